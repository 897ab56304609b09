import { INTERRUPTED, staleAfterSeconds } from "../agent/liveness.js";
import { DatabaseUnavailableError, errorMessage } from "../errors.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { pruneToolResults } from "../offload/result-store.js";
import { runDueSchedules } from "../scheduler/run-due.js";
import { resolveTimedOutReviews } from "../workflow/resolve-timed-out-reviews.js";
import type { Workflow } from "../workflow/workflow.js";
import type { WorkerConfig } from "./env-config.js";
import { openDb } from "./open-db.js";
import type { QueueStub } from "./queue-shards.js";

export interface TickDeps {
  config: WorkerConfig & { databaseUrl: string };
  /** every JobQueue object (none without the binding) */
  queues: QueueStub[];
  /** where offloaded tool results live, when anywhere */
  resultStorage?: ObjectStorage;
  /** the longest heartbeat interval of the served components: a run is stale after three of those */
  heartbeatSeconds: number;
  /** the served workflows: their paused runs past a review's deadline are resolved here */
  workflows?: readonly Workflow[];
}

/**
 * The cron tick: wakes the queue (after a deploy, say), dispatches due schedules, drops expired
 * tool results and event logs of streams nobody can still want to re-attach to, ends runs
 * whose runtime died, expires approvals past their deadline, refreshes the metrics of the days
 * written since the last tick, and resolves workflow reviews left
 * unanswered past their timeout. Each step runs even when another fails; the first failure is
 * rethrown so the invocation shows it.
 */
export async function scheduledTick(deps: TickDeps, scheduledTime: number): Promise<void> {
  const { config } = deps;
  const wakeAll = async () => void (await Promise.all(deps.queues.map((q) => q.wake())));
  const now = Math.floor(scheduledTime / 1000);
  const { db, end } = openDb(config);
  const storage = deps.resultStorage;
  const steps: Array<[string, () => Promise<unknown>]> = [
    ["wake the queue", wakeAll],
    // Claims and dispatches due schedules to the queue; their runs happen there, not here.
    [
      "dispatch schedules",
      async () =>
        config.queueBound &&
        runDueSchedules(
          db,
          { wake: wakeAll, maxDepth: config.queue.maxDepth, maxUserJobs: config.quotas.maxJobsPerUser },
          scheduledTime,
        ),
    ],
    ["prune tool results", async () => storage && pruneToolResults(db, storage, now)],
    ["prune run events", () => db.pruneRunEvents(now - config.runEventsTtlSeconds)],
    // Interactive runs whose runtime died (no heartbeat, no job holding them) end as interrupted.
    [
      "end interrupted runs",
      () =>
        db.interruptStaleRuns({
          ...INTERRUPTED,
          staleBefore: now - staleAfterSeconds(deps.heartbeatSeconds),
          limit: 500,
        }),
    ],
    // Pending approvals past their expiry become `expired` here, so the inbox and its count stay
    // right for whoever reads them next, not only when the approvals are read.
    ["expire approvals", () => db.expireApprovals(now)],
    // Recounts only the days whose sessions or runs were written since the last refresh.
    ["refresh metrics", () => db.metrics.refresh({ now })],
    // Last: the runs it resolves go on to their end within this invocation.
    [
      "resolve timed-out reviews",
      async () => deps.workflows?.length && resolveTimedOutReviews(db, deps.workflows, scheduledTime),
    ],
  ];
  const failures: unknown[] = [];
  let unavailable: DatabaseUnavailableError | undefined;
  try {
    for (const [what, step] of steps) {
      // Once the database is out of reach, the steps left would each wait out the same timeouts:
      // this tick stops there and the next one (a minute later) tries again.
      if (unavailable) break;
      await step().catch((error: unknown) => {
        if (error instanceof DatabaseUnavailableError) return void (unavailable = error);
        console.error(`scheduled: could not ${what}: ${errorMessage(error)}`);
        failures.push(error);
      });
    }
  } finally {
    await end();
  }
  if (unavailable) console.warn(`scheduled: ${unavailable.message} (the next tick runs the steps left)`);
  if (failures.length > 0) throw failures[0];
}
