import type { EnqueueReply } from "./queue-rpc.js";

/** What the Worker calls on a JobQueue object (its RPC methods). */
export interface QueueStub {
  wake(): Promise<void>;
  enqueue(input: Parameters<import("../queue/types.js").JobStore["enqueueRun"]>[0]): Promise<EnqueueReply>;
}

type QueueNamespace = DurableObjectNamespace<Rpc.DurableObjectBranded & { wake(): Promise<void> }>;

/** Object ids by namespace and shard: an id is a hash of its name, the same for every request (a stub is per request). */
const queueIds = new WeakMap<QueueNamespace, DurableObjectId[]>();

function queueAt(ns: QueueNamespace, shard: number): QueueStub {
  let ids = queueIds.get(ns);
  if (!ids) queueIds.set(ns, (ids = []));
  return ns.get((ids[shard] ??= ns.idFromName(shard === 0 ? "default" : `shard-${shard}`))) as unknown as QueueStub;
}

/**
 * The JobQueue objects: one ("default") unless AGNO_QUEUE_SHARDS asks for more. Postgres is the
 * truth and every object claims from the same table with SKIP LOCKED, so any of them may run any
 * job; more objects are more event loops for the jobs to share.
 */
export function queueShards(ns: QueueNamespace | undefined, shards: number): QueueStub[] {
  return ns ? Array.from({ length: shards }, (_, i) => queueAt(ns, i)) : [];
}

/** The object a request's enqueue goes to: any one, at random, which spreads the work without shared state. */
export function anyQueueShard(ns: QueueNamespace | undefined, shards: number): QueueStub | undefined {
  return ns && queueAt(ns, Math.floor(Math.random() * shards));
}
