import type { Agent } from "../agent/agent.js";
import type { Team } from "../team/team.js";
import type { Workflow } from "../workflow/workflow.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { OSInterface } from "../interfaces/os-interface.js";
import { collectKnowledge } from "../os/knowledge-bases.js";
import { CodeModeSession } from "../codemode/session-object.js";
import type { MediaStorage } from "../offload/media-storage.js";
import { R2MediaStorage } from "../offload/media-r2-storage.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { R2Storage } from "../offload/r2-storage.js";
import { AgentOS } from "../os/agent-os.js";
import type { Tool } from "../tools/tool.js";
import { jobQueueLimits } from "../os/background.js";
import { jobHandlersOf } from "../queue/job-handlers-of.js";
import type { AuthConfig } from "../os/auth/middleware.js";
import type { McpServerMount } from "../mcp/mcp-server.js";
import type { EnqueueRunInput } from "../queue/types.js";
import { ComponentRegistry } from "./component-registry.js";
import { storedComponentSource } from "../components/stored-component-source.js";
import { ComponentRegistry as CatalogRegistry } from "../components/component-registry.js";
import { readEnvConfig, type ConfigurationError, type WorkerConfig, type WorkerEnv } from "./env-config.js";
import { JobQueueObject, type QueueServices } from "./job-queue-object.js";
import { openDb, withDatabase } from "./open-db.js";
import { enqueueVia } from "./queue-rpc.js";
import { anyQueueShard, queueShards } from "./queue-shards.js";
import { requestLifetime } from "./request-lifetime.js";
import { scheduledTick } from "./scheduled-tick.js";
import { settlingCancelledScheduleRuns } from "../scheduler/job-end.js";
import { upgradeWebSocket } from "./websocket.js";
import { consolePage, linkingConsole } from "./console-page.js";
import { tracerFor } from "../tracing/tracing-settings.js";
import type { XaiLoginRoutes } from "../os/routes/xai-login.js";

/** A value, or how to make it from the Worker's env and its validated configuration (called once per isolate). */
export type FromEnv<T, E> = T | ((env: E, config: WorkerConfig) => T);

/** What a deployment serves and how; every field may be a value or a function of `env`. */
export interface AgentOSDefinition<E extends WorkerEnv> {
  /** the agents served under `/agents`, run by the JobQueue object and scheduled by the cron */
  agents?: FromEnv<Agent[], E>;
  /** the teams served under `/teams`, run by the JobQueue object and scheduled by the cron */
  teams?: FromEnv<Team[], E>;
  /** the workflows served under `/workflows`, likewise */
  workflows?: FromEnv<Workflow[], E>;
  /**
   * knowledge bases served under `/knowledge` besides those attached to the agents and teams;
   * their ingestions run on the JobQueue object
   */
  knowledge?: FromEnv<Knowledge[], E>;
  /**
   * interfaces in front of the agents, teams or workflows above: chat platforms (Slack, Telegram,
   * WhatsApp), whose runs go through the JobQueue object, which answers them on the platform, and protocols
   */
  interfaces?: FromEnv<OSInterface[], E>;
  /** `/info`'s identity; default AGNO_OS_ID / AGNO_OS_NAME, else "agno-edge" */
  id?: string;
  name?: string;
  description?: string;
  /** where run media and offloaded tool results go; default the STORAGE R2 bucket when bound */
  storage?: FromEnv<{ media?: MediaStorage; results?: ObjectStorage }, E>;
  /**
   * browser origins allowed to call the API besides agno's own (AgentOSOptions.corsOrigins), added
   * to those AGNO_CORS_ORIGINS lists
   */
  corsOrigins?: FromEnv<string[], E>;
  /** how requests authenticate; default from OS_SECURITY_KEY / JWT_VERIFICATION_KEYS / AGNO_AUTH */
  auth?: FromEnv<AuthConfig, E>;
  /** the durable queue (on when JOB_QUEUE is bound): attempts per background job (default 3) */
  queue?: { maxAttempts?: number };
  /** what stored components may use beyond the served agents' models and tools (AgentOSOptions.registry) */
  registry?: FromEnv<{ models?: string[]; tools?: Tool[] }, E>;
  /** `xaiLoginRoutes(tokenManager)`: users sign in to SuperGrok under `/models/xai/login`; undefined serves none */
  xaiLogin?: FromEnv<XaiLoginRoutes | undefined, E>;
  /** serve the AgentOS as an MCP server at `/mcp` (agno's `mcp_server`): `mcpServer()` or `mcpServer({...})` */
  mcpServer?: FromEnv<McpServerMount, E>;
  /**
   * the browser console at `/ui`, from the ASSETS binding (`[assets]` pointing at agno-edge's
   * dist/ui); on when ASSETS is bound, `false` turns it off (ASSETS then serves nothing here)
   */
  console?: boolean;
  /** the cron tick (`scheduled`): `enabled: false` makes it do nothing */
  scheduler?: { enabled?: boolean };
}

/** What a Worker module exports: `export default os; export const { JobQueue, CodeModeSession } = os;` */
export interface DefinedAgentOS<E extends WorkerEnv> {
  fetch(request: Request, env: E, ctx: ExecutionContext): Promise<Response>;
  scheduled(controller: ScheduledController, env: E, ctx?: ExecutionContext): Promise<void>;
  /** the JobQueue Durable Object class, running background jobs with the same components */
  JobQueue: new (ctx: DurableObjectState, env: E) => JobQueueObject<E>;
  /** CodeMode's per-session Durable Object class */
  CodeModeSession: typeof CodeModeSession;
  /** the components served for this env (built once per isolate and env) */
  components(env: E): ComponentRegistry;
}

/** One env's deployment: its configuration (or why it is closed), components and HTTP app, each built once. */
type Setup =
  | {
      ok: true;
      config: WorkerConfig;
      registry: ComponentRegistry;
      catalog: CatalogRegistry;
      knowledge: Knowledge[];
      interfaces: OSInterface[];
      os(): AgentOS;
    }
  | { ok: false; error: ConfigurationError; closed: AgentOS };

/**
 * Turns components and options into a Worker: `fetch`, `scheduled` and the Durable Object classes
 * (`JobQueue`, `CodeModeSession`), all reading one registry of components per env. The env is
 * validated at the first request: a bad or contradictory setting is logged once, naming every bad
 * variable, and the deployment stays closed (protected routes answer 401 or 503) until it is fixed.
 *
 * @example
 * const os = defineAgentOS({ agents: (env: Env) => [supportAgent(env)] });
 * export default os;
 * export const { JobQueue, CodeModeSession } = os;
 */
export function defineAgentOS<E extends WorkerEnv = WorkerEnv>(def: AgentOSDefinition<E>): DefinedAgentOS<E> {
  const setups = new WeakMap<E, Setup>();
  const resolve = <T>(value: FromEnv<T, E> | undefined, env: E, config: WorkerConfig): T | undefined =>
    typeof value === "function" ? (value as (env: E, config: WorkerConfig) => T)(env, config) : value;

  const setup = (env: E): Setup => {
    let s = setups.get(env);
    if (s) return s;
    const read = readEnvConfig(env);
    if (!read.ok) {
      // Logged once per isolate and env; every request then gets the same closed answer.
      console.error(read.error.message);
      const closed = new AgentOS({
        id: def.id,
        name: def.name,
        auth: { mode: "closed", status: read.error.concernsAuth ? 401 : 503, reason: read.error.message },
      });
      s = { ok: false, error: read.error, closed };
    } else {
      const config = read.config;
      const storage = resolve(def.storage, env, config) ?? defaultStorage(env, config);
      const queue = config.queueBound
        ? {
            durable: true as const,
            maxDepth: config.queue.maxDepth,
            maxJobsPerUser: config.quotas.maxJobsPerUser,
            maxSchedulesPerUser: config.quotas.maxSchedulesPerUser,
            ...(def.queue?.maxAttempts ? { maxAttempts: def.queue.maxAttempts } : {}),
          }
        : undefined;
      const registry = new ComponentRegistry(resolve(def.agents, env, config) ?? [], storage, {
        teams: resolve(def.teams, env, config) ?? [],
        workflows: resolve(def.workflows, env, config) ?? [],
        ...(queue ? { queue: jobQueueLimits(queue) } : {}),
      });
      const knowledge = collectKnowledge(resolve(def.knowledge, env, config) ?? [], [
        ...registry.agents,
        ...registry.teams,
      ]);
      const interfaces = resolve(def.interfaces, env, config) ?? [];
      // What stored components may use: the HTTP app validates and runs them with it, and the queue
      // builds their background runs with the same one, without building the HTTP app.
      const catalog = new CatalogRegistry({
        ...resolve(def.registry, env, config),
        knowledge,
        agents: registry.agents,
        teams: registry.teams,
        workflows: registry.workflows,
      });
      let os: AgentOS | undefined;
      const build = () =>
        (os ??= new AgentOS({
          id: def.id ?? config.osId,
          name: def.name ?? config.osName,
          description: def.description,
          auth: resolve(def.auth, env, config) ?? config.auth,
          corsOrigins: [...config.corsOrigins, ...(resolve(def.corsOrigins, env, config) ?? [])],
          agents: registry.agents,
          teams: registry.teams,
          workflows: registry.workflows,
          knowledge,
          interfaces,
          registry: catalog,
          maxUploadBytes: config.maxUploadBytes,
          mcpServer: resolve(def.mcpServer, env, config),
          websocket: upgradeWebSocket,
          maxWebSocketsPerUser: config.quotas.maxWebSocketsPerUser,
          ...(storage.media ? { mediaStorage: storage.media } : {}),
          ...(storage.results ? { resultStorage: storage.results } : {}),
          ...optional("xaiLogin", resolve(def.xaiLogin, env, config)),
          ...(queue ? { queue } : {}),
          ...(config.tracing ? { tracing: config.tracing } : {}),
        }));
      s = { ok: true, config, registry, catalog, knowledge, interfaces, os: build };
    }
    setups.set(env, s);
    return s;
  };

  const ready = (env: E) => {
    const s = setup(env);
    if (!s.ok) throw s.error;
    return s;
  };

  class JobQueue extends JobQueueObject<E> {
    protected queueServices(env: E): QueueServices {
      const { config, registry, catalog, knowledge, interfaces } = ready(env);
      const withDb = withDatabase(config);
      if (!withDb) throw new Error("the job queue needs DATABASE_URL");
      const { db } = openDb(withDb, config.queue.dbConnections);
      return {
        // Background runs of stored components (components as data) are built through the same
        // registry the HTTP app validates and runs them with.
        components: storedComponentSource(registry, catalog),
        knowledge,
        interfaces,
        handlers: jobHandlersOf(registry.agents),
        ...(registry.storage.media ? { media: registry.storage.media } : {}),
        db,
        ...optional("tracer", tracerFor(config.tracing, db)),
        concurrency: config.queue.concurrency,
        leaseSeconds: config.queue.leaseSeconds,
      };
    }
  }

  /** The HTTP API: the env's AgentOS over a database connection held for the request. */
  const serveApi = async (request: Request, env: E, ctx: ExecutionContext): Promise<Response> => {
    const s = setup(env);
    if (!s.ok) return s.closed.fetch(request, { dbs: [], misconfigured: s.error.message }, ctx);
    const os = s.os();
    const withDb = withDatabase(s.config);
    if (!withDb) return os.fetch(request, { dbs: [] }, ctx);
    const { db, end } = openDb(withDb);
    const lifetime = requestLifetime(ctx, end);
    try {
      const queue = anyQueueShard(env.JOB_QUEUE, s.config.queue.shards);
      const dispatcher = queue && {
        wake: () => queue.wake(),
        enqueue: (input: EnqueueRunInput) => enqueueVia(queue, input),
      };
      // A schedule's attempt whose job is cancelled before it starts settles with the cancel.
      const jobs = settlingCancelledScheduleRuns(db.jobs, db.schedules);
      return lifetime.finish(
        await os.fetch(
          request,
          { dbs: [db], jobs, ssePingMs: s.config.ssePingMs, ...(dispatcher ? { queue: dispatcher } : {}) },
          lifetime.ctx,
        ),
      );
    } catch (error) {
      lifetime.abandon();
      throw error;
    }
  };

  return {
    JobQueue,
    CodeModeSession,
    components: (env) => ready(env).registry,

    async fetch(request, env, ctx) {
      const assets = def.console === false ? undefined : env.ASSETS;
      if (assets) {
        const page = await consolePage(request, assets);
        if (page) return page;
        if (new URL(request.url).pathname === "/") return linkingConsole(await serveApi(request, env, ctx));
      }
      return serveApi(request, env, ctx);
    },

    async scheduled(controller, env) {
      if (def.scheduler?.enabled === false) return;
      const { config, registry } = ready(env);
      const withDb = withDatabase(config);
      if (!withDb) return;
      await scheduledTick(
        {
          config: withDb,
          queues: queueShards(env.JOB_QUEUE, config.queue.shards),
          resultStorage: registry.storage.results,
          heartbeatSeconds: registry.heartbeatSeconds(config.heartbeatSeconds),
          workflows: registry.workflows,
        },
        controller.scheduledTime,
      );
    },
  };
}

/** With a STORAGE bucket bound, run media and offloaded tool results go to it (rows keep references). */
/** `{[key]: value}`, or nothing when the value is undefined (the options are exact). */
function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: T });
}

function defaultStorage(env: WorkerEnv, config: WorkerConfig): { media?: MediaStorage; results?: ObjectStorage } {
  if (!env.STORAGE) return {};
  const bucket = config.storageBucket ? { bucketName: config.storageBucket } : {};
  return { media: new R2MediaStorage(env.STORAGE, bucket), results: new R2Storage(env.STORAGE, bucket) };
}
