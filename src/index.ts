import { Pool } from "@neondatabase/serverless";
import { useLocalWsProxy } from "./db/postgres/local-proxy.js";
import { exampleAssistant } from "./example/assistant.js";
import { createModel, credentialsFromEnv } from "./models/providers.js";
import type { Model } from "./models/model.js";
import { UnconfiguredModel } from "./models/unconfigured-model.js";
import { WorkersAIModel, type WorkersAIBinding } from "./models/workers-ai-model.js";
import { requestLifetime } from "./worker/request-lifetime.js";
import { upgradeWebSocket } from "./worker/websocket.js";
import { JobQueueObject, type QueueServices } from "./worker/job-queue-object.js";
import { enqueueVia } from "./worker/queue-rpc.js";
import type { EnqueueRunInput } from "./queue/types.js";
import { PostgresDb } from "./db/postgres/postgres-db.js";
import { JwtVerifier } from "./os/auth/jwt.js";
import type { AuthConfig } from "./os/auth/middleware.js";
import { AgentOS } from "./os/agent-os.js";
import { R2MediaStorage } from "./offload/media-r2-storage.js";
import { R2Storage } from "./offload/r2-storage.js";
import { pruneToolResults } from "./offload/result-store.js";
import { runDueSchedules } from "./scheduler/run-due.js";
import { DEFAULT_HEARTBEAT_SECONDS, INTERRUPTED, staleAfterSeconds } from "./agent/liveness.js";
import { DEFAULT_SSE_PING_MS } from "./os/sse.js";
import type { CodeModeSession } from "./codemode/session-object.js";
import { DatabaseUnavailableError, errorMessage } from "./errors.js";

/** CodeMode's session object (one per session; it keeps the sandbox's state between cells). */
export { CodeModeSession } from "./codemode/session-object.js";

/**
 * The Worker entry: the only module that reads bindings. It builds the AgentOS once per
 * isolate (per distinct env) and the database adapter per request, because a Neon Pool must be
 * created, used and ended within one request on Workers.
 */
export interface Env {
  /** Postgres connection string (Neon in production; PGlite or any Postgres locally) */
  DATABASE_URL?: string;
  /** `host:port` of the local WebSocket-to-TCP proxy; set by `npm run dev`, never in production */
  DB_WS_PROXY?: string;
  /** Postgres schema for agno's tables (default `ai`) */
  AGNO_DB_SCHEMA?: string;
  /** `none` serves without authentication: local development only */
  AGNO_AUTH?: string;
  /** bearer secret every protected route requires */
  OS_SECURITY_KEY?: string;
  /** JSON array of verification keys (PEM public keys, JWKs, `{"kty":"oct",…}` secrets, JWKS): JWT auth */
  JWT_VERIFICATION_KEYS?: string;
  JWT_AUDIENCE?: string;
  JWT_ISSUER?: string;
  /** `true`: with JWT auth, each user sees only their own sessions and runs */
  AGNO_USER_ISOLATION?: string;
  /** how long a streamed run's events stay re-attachable after its last event (default 86400 s) */
  AGNO_RUN_EVENTS_TTL_SECONDS?: string;
  /** how often an executing run marks its row alive (default 10 s); silent for three beats, the cron tick marks it interrupted */
  AGNO_RUN_HEARTBEAT_SECONDS?: string;
  /** seconds of silence after which an SSE stream sends a `: ping` comment (default 15) */
  AGNO_SSE_PING_SECONDS?: string;
  AGNO_OS_ID?: string;
  AGNO_OS_NAME?: string;
  /** the example agent's model, `provider:model-id`; keys and base URLs in the provider's usual variables */
  MODEL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  GROQ_API_KEY?: string;
  /** the JobQueue Durable Object (durable background runs); `wrangler.toml` binds it */
  JOB_QUEUE?: DurableObjectNamespace<JobQueue>;
  /** background jobs run at once per queue instance (default 32) */
  AGNO_BACKGROUND_MAX_CONCURRENCY?: string;
  /** background jobs waiting or running before new ones get 429 (default 10000) */
  AGNO_QUEUE_MAX_DEPTH?: string;
  /** seconds a job's lease lasts unrenewed before another worker may take the job (default 30) */
  AGNO_QUEUE_LEASE_SECONDS?: string;
  /** background jobs one user (no user: one shared principal) may have waiting or running (default 1000) */
  AGNO_USER_MAX_JOBS?: string;
  /** schedules one user may own (default 100) */
  AGNO_USER_MAX_SCHEDULES?: string;
  /** WebSockets one user may hold open, per isolate (default 20) */
  AGNO_USER_MAX_WEBSOCKETS?: string;
  /** Postgres connections each JobQueue object keeps at most (default AGNO_BACKGROUND_MAX_CONCURRENCY + 4) */
  AGNO_QUEUE_DB_CONNECTIONS?: string;
  /** how long opening a database connection may take before the request answers 503 database_unavailable (default 5000 ms) */
  AGNO_DB_CONNECT_TIMEOUT_MS?: string;
  /** how long a statement may go unanswered before the runtime gives up on it, 503 database_unavailable (default 10000 ms) */
  AGNO_DB_STATEMENT_TIMEOUT_MS?: string;
  /** JobQueue objects that share the jobs (default 1; each runs up to AGNO_BACKGROUND_MAX_CONCURRENCY) */
  AGNO_QUEUE_SHARDS?: string;
  /** the Workers AI binding, for `MODEL=workers-ai:@cf/…` (add `[ai] binding = "AI"` to wrangler.toml) */
  AI?: WorkersAIBinding;
  /** the R2 bucket for offloaded tool results and media (`[[r2_buckets]]` in wrangler.toml) */
  STORAGE?: R2Bucket;
  /** STORAGE's bucket name, as references record it (wrangler.toml's [vars]) */
  AGNO_STORAGE_BUCKET?: string;
  /** CodeMode's per-session sandbox state (`durableCodeRunner(env.CODEMODE_SESSION)`); `wrangler.toml` binds it */
  CODEMODE_SESSION?: DurableObjectNamespace<CodeModeSession>;
}

/** The example agent's model: Workers AI through its binding, a provider by name, or none yet. */
function modelFrom(env: Env): Model {
  if (!env.MODEL) return new UnconfiguredModel();
  if (env.MODEL.startsWith("workers-ai:")) {
    const id = env.MODEL.slice("workers-ai:".length);
    if (!env.AI) return new UnconfiguredModel(`MODEL names Workers AI (${id}) but the Worker has no AI binding: add [ai] binding = "AI" to wrangler.toml`);
    return new WorkersAIModel(env.AI, id);
  }
  return createModel(env.MODEL, { credentials: credentialsFromEnv(env as unknown as Record<string, unknown>) });
}

function authFrom(env: Env): AuthConfig {
  if (env.JWT_VERIFICATION_KEYS) {
    try {
      const keys: unknown = JSON.parse(env.JWT_VERIFICATION_KEYS);
      const verifier = new JwtVerifier(Array.isArray(keys) ? keys : [keys], { audience: env.JWT_AUDIENCE, issuer: env.JWT_ISSUER });
      return { mode: "jwt", verifier, userIsolation: env.AGNO_USER_ISOLATION === "true" };
    } catch (error) {
      // Closed, not open: a deployment whose keys do not parse refuses every protected route.
      console.error(`JWT_VERIFICATION_KEYS is not usable: ${errorMessage(error)}`);
      return { mode: "unconfigured" };
    }
  }
  if (env.OS_SECURITY_KEY) return { mode: "security_key", securityKey: env.OS_SECURITY_KEY };
  if (env.AGNO_AUTH === "none") return { mode: "none" };
  return { mode: "unconfigured" };
}

const runtimes = new WeakMap<Env, AgentOS>();

function agentOS(env: Env): AgentOS {
  let os = runtimes.get(env);
  if (!os) {
    const model = modelFrom(env);
    os = new AgentOS({
      id: env.AGNO_OS_ID,
      name: env.AGNO_OS_NAME,
      auth: authFrom(env),
      // With a bucket, the example agent offloads large tool results to it (SPEC O1).
      agents: [exampleAssistant(model, { offloadToolResults: env.STORAGE !== undefined, heartbeatSeconds: heartbeatSeconds(env) })],
      availableModels: env.MODEL ? [env.MODEL] : [],
      websocket: upgradeWebSocket,
      maxWebSocketsPerUser: positive(env.AGNO_USER_MAX_WEBSOCKETS, 20),
      // Run media go to the R2 bucket when one is bound; rows keep references (SPEC MD1).
      ...(env.STORAGE ? { mediaStorage: new R2MediaStorage(env.STORAGE, bucketOf(env)), resultStorage: new R2Storage(env.STORAGE, bucketOf(env)) } : {}),
      ...(env.JOB_QUEUE ? { queue: { durable: true as const, maxDepth: positive(env.AGNO_QUEUE_MAX_DEPTH, 10_000), ...userQuotas(env) } } : {}),
    });
    runtimes.set(env, os);
  }
  return os;
}

/** The STORAGE bucket's name for references (`AGNO_STORAGE_BUCKET`; a binding cannot report it). */
function bucketOf(env: Env): { bucketName?: string } {
  return env.AGNO_STORAGE_BUCKET ? { bucketName: env.AGNO_STORAGE_BUCKET } : {};
}

/** The per-user caps on the queue and schedules (AGNO_USER_MAX_JOBS, AGNO_USER_MAX_SCHEDULES). */
function userQuotas(env: Env) {
  return { maxJobsPerUser: positive(env.AGNO_USER_MAX_JOBS, 1000), maxSchedulesPerUser: positive(env.AGNO_USER_MAX_SCHEDULES, 100) };
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** How often executing runs mark their rows alive (`AGNO_RUN_HEARTBEAT_SECONDS`); the cron tick's sweep goes by the same. */
function heartbeatSeconds(env: Env): number {
  return positive(env.AGNO_RUN_HEARTBEAT_SECONDS, DEFAULT_HEARTBEAT_SECONDS);
}

/**
 * The JobQueue objects: one ("default") unless AGNO_QUEUE_SHARDS asks for more. Postgres is the
 * truth and every object claims from the same table with SKIP LOCKED, so any of them may run any
 * job; more objects are more event loops for the jobs to share.
 */
function queues(env: Env) {
  const ns = env.JOB_QUEUE;
  return ns ? Array.from({ length: positive(env.AGNO_QUEUE_SHARDS, 1) }, (_, i) => queueAt(ns, i)) : [];
}

/** Object ids by namespace and shard: an id is a hash of its name, the same for every request (a stub is per request). */
const queueIds = new WeakMap<DurableObjectNamespace<JobQueue>, DurableObjectId[]>();

function queueAt(ns: DurableObjectNamespace<JobQueue>, shard: number) {
  let ids = queueIds.get(ns);
  if (!ids) queueIds.set(ns, (ids = []));
  return ns.get((ids[shard] ??= ns.idFromName(shard === 0 ? "default" : `shard-${shard}`)));
}

/** The object a request's enqueue goes to: any one, at random, which spreads the work without shared state. */
function queueOf(env: Env) {
  const ns = env.JOB_QUEUE;
  return ns && queueAt(ns, Math.floor(Math.random() * positive(env.AGNO_QUEUE_SHARDS, 1)));
}

/** The database adapter over a Pool made on its first query: a request that never queries (an enqueue, a 401) opens none. */
function openDb(env: Env & { DATABASE_URL: string }, connections = 10) {
  let pool: Pool | undefined;
  const connect = () => {
    if (env.DB_WS_PROXY) useLocalWsProxy(env.DB_WS_PROXY);
    // Bounded waits: a database that refuses fails at once, one that never answers (a dead host, a
    // frozen server) fails after these instead of holding the request. The statement bound is the
    // driver's client-side query_timeout: it needs no startup parameter, which poolers may refuse.
    pool = new Pool({
      connectionString: env.DATABASE_URL,
      max: connections,
      connectionTimeoutMillis: positive(env.AGNO_DB_CONNECT_TIMEOUT_MS, 5_000),
      query_timeout: positive(env.AGNO_DB_STATEMENT_TIMEOUT_MS, 10_000),
    });
    // An idle connection that drops (a restarted database, an aborted object) is not a crash.
    pool.on("error", (error: Error) => console.error(`database connection lost: ${error.message}`));
    return pool;
  };
  return { db: new PostgresDb({ pool: connect, schema: env.AGNO_DB_SCHEMA, cacheKey: env.DATABASE_URL }), end: async () => pool?.end() };
}

export default {
  async fetch(request, env, ctx): Promise<Response> {
    const os = agentOS(env);
    if (!env.DATABASE_URL) return os.fetch(request, { dbs: [] }, ctx);
    const { db, end } = openDb({ ...env, DATABASE_URL: env.DATABASE_URL });
    const lifetime = requestLifetime(ctx, end);
    try {
      const queue = queueOf(env);
      const dispatcher = queue && { wake: () => queue.wake(), enqueue: (input: EnqueueRunInput) => enqueueVia(queue, input) };
      const ssePingMs = positive(env.AGNO_SSE_PING_SECONDS, DEFAULT_SSE_PING_MS / 1000) * 1000;
      return lifetime.finish(await os.fetch(request, { dbs: [db], jobs: db.jobs, ssePingMs, ...(dispatcher ? { queue: dispatcher } : {}) }, lifetime.ctx));
    } catch (error) {
      lifetime.abandon();
      throw error;
    }
  },

  /**
   * The cron trigger: wakes the queue (after a deploy, say), dispatches due schedules, and drops
   * expired tool results and event logs of streams nobody can still want to re-attach to. Each
   * step runs even when another fails; the first failure is rethrown so the invocation shows it.
   */
  async scheduled(controller, env): Promise<void> {
    if (!env.DATABASE_URL) return;
    const wakeAll = async () => void (await Promise.all(queues(env).map((q) => q.wake())));
    const now = Math.floor(controller.scheduledTime / 1000);
    const { db, end } = openDb({ ...env, DATABASE_URL: env.DATABASE_URL });
    const ttl = Number(env.AGNO_RUN_EVENTS_TTL_SECONDS ?? 86_400);
    const steps: Array<[string, () => Promise<unknown>]> = [
      ["wake the queue", wakeAll],
      // Claims and dispatches due schedules to the queue; their runs happen there, not here.
      ["dispatch schedules", async () => env.JOB_QUEUE && runDueSchedules(db, { wake: wakeAll, maxDepth: positive(env.AGNO_QUEUE_MAX_DEPTH, 10_000), maxUserJobs: userQuotas(env).maxJobsPerUser }, controller.scheduledTime)],
      ["prune tool results", async () => env.STORAGE && pruneToolResults(db, new R2Storage(env.STORAGE, bucketOf(env)), now)],
      ["prune run events", () => db.pruneRunEvents(now - (Number.isFinite(ttl) && ttl > 0 ? ttl : 86_400))],
      // Interactive runs whose runtime died (no heartbeat, no job holding them) end as interrupted.
      ["end interrupted runs", () => db.interruptStaleRuns({ ...INTERRUPTED, staleBefore: now - staleAfterSeconds(heartbeatSeconds(env)), limit: 500 })],
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
  },
} satisfies ExportedHandler<Env>;

/**
 * The JobQueue Durable Object: runs background jobs with the same agents and database as the
 * Worker. Its Pool lives as long as the object (a Durable Object is one long-lived context).
 */
export class JobQueue extends JobQueueObject<Env> {
  protected queueServices(env: Env): QueueServices {
    if (!env.DATABASE_URL) throw new Error("the job queue needs DATABASE_URL");
    const concurrency = positive(env.AGNO_BACKGROUND_MAX_CONCURRENCY, 32);
    // A connection for each running job, and a few for enqueues and claims, so no job waits for
    // one (the driver's default of 10 makes running jobs queue for connections: BENCHMARKS.md, figure 6).
    const { db } = openDb({ ...env, DATABASE_URL: env.DATABASE_URL }, positive(env.AGNO_QUEUE_DB_CONNECTIONS, concurrency + 4));
    return {
      agents: agentOS(env).agents,
      db,
      concurrency,
      leaseSeconds: positive(env.AGNO_QUEUE_LEASE_SECONDS, 30),
    };
  }
}
