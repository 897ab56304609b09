import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import type { Agent } from "../agent/agent.js";
import type { Team } from "../team/team.js";
import type { Workflow } from "../workflow/workflow.js";
import { authMiddleware, type AuthConfig } from "./auth/middleware.js";
import type { OSEnv, RequestServices } from "./context.js";
import { errorResponse, notFound, onError } from "./errors.js";
import { headerLimit } from "./header-limit.js";
import { corsMiddleware } from "./cors.js";
import { originProblem } from "./cors-origins.js";
import { agentRoutes } from "./routes/agents.js";
import { teamRoutes } from "./routes/teams.js";
import { checkUniqueIds } from "./unique-ids.js";
import { workflowRoutes } from "./routes/workflows.js";
import { databaseRoutes } from "./routes/databases.js";
import { metaRoutes } from "./routes/meta.js";
import { sessionRoutes } from "./routes/sessions.js";
import { memoryRoutes } from "./routes/memories.js";
import { learningRoutes } from "./routes/learnings.js";
import { docsRoutes } from "./routes/docs.js";
import { websocketRoutes } from "./routes/websocket.js";
import { workflowSocketRoutes } from "./routes/workflow-socket.js";
import { SocketQuota } from "./socket-quota.js";
import { queueRoutes } from "./routes/queue.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { approvalRoutes } from "./routes/approvals.js";
import { serviceAccountRoutes } from "./routes/service-accounts.js";
import { auditRoutes } from "./routes/audit.js";
import { traceRoutes } from "./routes/traces.js";
import { metricsRoutes } from "./routes/metrics.js";
import { evalRoutes } from "./routes/evals.js";
import { mediaRoutes } from "./routes/media.js";
import { knowledgeRoutes } from "./routes/knowledge.js";
import type { XaiLoginRoutes } from "./routes/xai-login.js";
import { collectKnowledge } from "./knowledge-bases.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { jobQueueLimits, type QueueConfig } from "./background.js";
import type { JobHandler } from "../queue/job-handler.js";
import { jobHandlersOf } from "../queue/job-handlers-of.js";
import type { UpgradeWebSocket } from "hono/ws";
import type { OSInterface } from "../interfaces/os-interface.js";
import { checkInterfaces } from "../interfaces/check-interfaces.js";
import type { McpServerMount } from "../mcp/mcp-server.js";
import { ComponentRegistry } from "../components/component-registry.js";
import type { ComponentWriteHook } from "../components/component-write-hook.js";
import type { Tool } from "../tools/tool.js";
import { componentRoutes } from "./routes/components.js";
import { registryRoutes } from "./routes/registry.js";
import { tracingMiddleware } from "./request-trace.js";
import type { TracingSettings } from "../tracing/tracing-settings.js";

export const AGNO_EDGE_VERSION = "0.1.0";
/** The agno release whose API and wire format agno-edge answers (`/info`'s `agno_version`). */
export const AGNO_VERSION = "3.0.0a3";

export interface AgentOSOptions {
  id?: string;
  name?: string;
  description?: string;
  /**
   * `xaiLoginRoutes(tokenManager)`: serves `/models/xai/login` (start, poll, status, sign-out), where
   * each caller signs in to SuperGrok for themselves (passed built, so Workers without it do not bundle it)
   */
  xaiLogin?: XaiLoginRoutes;
  /** how requests authenticate; defaults to closed (`unconfigured`: every protected route 401s) */
  auth?: AuthConfig;
  /**
   * browser origins allowed to call this AgentOS (CORS, with credentials) besides agno's own
   * (os.agno.com, localhost:3000 for agent-ui, …), each `scheme://host[:port]`; `*` is refused
   */
  corsOrigins?: string[];
  /** largest accepted request body in bytes (default 1 MiB); larger bodies get 413 before parsing */
  maxBodyBytes?: number;
  /** largest accepted request head (URL plus headers) in bytes (default 16 KiB); larger gets 431 */
  maxHeaderBytes?: number;
  /** the agents served under `/agents` (each request binds them to its own database) */
  agents?: Agent[];
  /** the teams served under `/teams` (bound to each request's database like the agents) */
  teams?: Team[];
  /** the workflows served under `/workflows` */
  workflows?: Workflow[];
  /** the durable background queue (`background=true` runs); needs a database and the JOB_QUEUE binding */
  queue?: QueueConfig;
  /**
   * traces the runs requests start (agents, teams, workflows, their model and tool calls), under
   * the caller's `traceparent`: to the default database's trace tables (`db`) and/or an
   * OpenTelemetry collector (`otlp`); default off (`defineAgentOS` reads AGNO_TRACING)
   */
  tracing?: TracingSettings;
  /** the host's WebSocket upgrade (Hono's helper); `GET /ws` and `GET /workflows/ws` answer 503 without one */
  websocket?: UpgradeWebSocket;
  /** WebSockets one user (no user: one shared principal) may hold open at once, per isolate (default 20); one more is a 429 */
  maxWebSocketsPerUser?: number;
  /**
   * where run media go (R2, S3, a directory): given to every agent without its own, and read
   * by `GET /sessions/{session_id}/media/{storage_key}`
   */
  mediaStorage?: MediaStorage;
  /** where agents with `offloadToolResults` write large tool results, unless their ResultStore names its own */
  resultStorage?: ObjectStorage;
  /**
   * knowledge bases served under `/knowledge` (agno's knowledge routes), besides those attached to
   * the agents and teams, which are served too; uploaded files are kept in `mediaStorage`
   */
  knowledge?: Knowledge[];
  /** largest file `POST /knowledge/content` accepts, in bytes (default 10 MiB); larger is a 413 */
  maxUploadBytes?: number;
  /**
   * interfaces, each in front of agents, teams or workflows this AgentOS serves: chat platforms
   * (Slack, Telegram, WhatsApp), whose webhooks queue runs and so need the durable queue, and protocols
   */
  interfaces?: OSInterface[];
  /**
   * serve this AgentOS as an MCP server at `/mcp` (agno's `mcp_server`): `mcpServer()` for agno's
   * built-in tools, or `mcpServer({...})` choosing tools (by tag, by name, your own), hosts and origins
   */
  mcpServer?: McpServerMount;
  /**
   * What stored components (`/components`, agno's Studio) may use beyond what the served agents
   * and teams already use: more model specs (`provider:model_id`) and tools. `GET /registry` lists it all.
   * A built `ComponentRegistry` is used as it is, so a runtime's queue and its HTTP app share one.
   */
  registry?: { models?: string[]; tools?: Tool[] } | ComponentRegistry;
  /** called after every component or config write with who, what and the before/after version (the audit trail's seam) */
  onComponentWrite?: ComponentWriteHook;
}

/**
 * The AgentOS runtime: agno's HTTP API as one Hono app. The host (the Worker entry, or a Node
 * server) passes the per-request services (databases) as the app's bindings.
 *
 * @example
 * const os = new AgentOS({ name: "support", auth: { mode: "security_key", securityKey: key } });
 * export default { fetch: (req, env, ctx) => os.fetch(req, { dbs: [makeDb(env)] }, ctx) };
 */
export class AgentOS {
  readonly id: string;
  readonly name: string;
  readonly app: OpenAPIHono<OSEnv>;
  /** the agents served (the job queue runs background jobs with the same ones) */
  readonly agents: Agent[];
  readonly teams: Team[];
  readonly workflows: Workflow[];
  /** the knowledge bases `/knowledge` serves: the options' and the agents' and teams' own */
  readonly knowledge: Knowledge[];
  /** the interfaces mounted (the job queue answers chat interfaces' runs through them) */
  readonly interfaces: OSInterface[];
  /** the background jobs the agents' toolkits enqueue: the job queue's `handlers` (JobServices) */
  readonly jobHandlers: JobHandler[];
  /** what stored components may use (`GET /registry`) */
  readonly registry: ComponentRegistry;

  constructor(opts: AgentOSOptions = {}) {
    this.id = opts.id ?? "agno-edge";
    this.name = opts.name ?? "agno-edge AgentOS";
    const app = new OpenAPIHono<OSEnv>();
    app.onError(onError);
    app.notFound(notFound);
    const badOrigin = (opts.corsOrigins ?? []).map((o) => originProblem(o)).find((p) => p !== undefined);
    if (badOrigin) throw new Error(`AgentOS corsOrigins ${badOrigin}`);
    // First, so every answer to an allowed origin (a 431, a 401) is one its page can read.
    app.use(corsMiddleware(opts.corsOrigins));
    app.use(headerLimit(opts.maxHeaderBytes ?? 16 * 1024));
    const knowledge = collectKnowledge(opts.knowledge ?? [], [...(opts.agents ?? []), ...(opts.teams ?? [])]);
    this.knowledge = knowledge;
    const apiBodyLimit = bodyLimit({
      maxSize: opts.maxBodyBytes ?? 1024 * 1024,
      onError: (c) =>
        errorResponse(
          c,
          413,
          `request body is larger than ${opts.maxBodyBytes ?? 1024 * 1024} bytes`,
          "payload_too_large",
        ),
    });
    // Knowledge uploads are files: their route applies its own, larger limit.
    app.use((c, next) =>
      knowledge.length > 0 && c.req.method === "POST" && c.req.path === "/knowledge/content"
        ? next()
        : apiBodyLimit(c, next),
    );
    app.use(authMiddleware(opts.auth ?? { mode: "unconfigured" }));
    if (opts.tracing) app.use(tracingMiddleware(opts.tracing));
    const mediaStorage = opts.mediaStorage;
    // With the durable queue, the agents' tools may enqueue jobs into it (ToolContext.enqueueJob).
    const limits = opts.queue?.durable ? jobQueueLimits(opts.queue) : undefined;
    const agents = (opts.agents ?? [])
      .map((a) => (mediaStorage && !a.mediaStorage ? a.withMediaStorage(mediaStorage) : a))
      .map((a) => (opts.resultStorage && !a.resultStorage ? a.withOffloadStorage(opts.resultStorage) : a))
      .map((a) => (limits && !a.jobQueue ? a.withJobQueue(limits) : a));
    this.agents = agents;
    this.jobHandlers = jobHandlersOf(agents);
    this.teams = [...(opts.teams ?? [])];
    this.workflows = [...(opts.workflows ?? [])];
    checkUniqueIds("agents", agents);
    checkUniqueIds("teams", this.teams);
    checkUniqueIds("workflows", this.workflows);
    const components = [...agents, ...this.teams, ...this.workflows];
    this.interfaces = [...(opts.interfaces ?? [])];
    checkInterfaces(this.interfaces, components);
    const socketQuota = new SocketQuota(opts.maxWebSocketsPerUser ?? 20);
    this.registry =
      opts.registry instanceof ComponentRegistry
        ? opts.registry
        : new ComponentRegistry({
            ...opts.registry,
            knowledge,
            agents,
            teams: this.teams,
            workflows: this.workflows,
          });
    const mcp = opts.mcpServer;
    app.route(
      "/",
      metaRoutes(
        {
          id: this.id,
          name: this.name,
          description: opts.description,
          version: AGNO_EDGE_VERSION,
          agnoVersion: AGNO_VERSION,
        },
        Date.now(),
        {
          agents,
          teams: this.teams,
          workflows: this.workflows,
          knowledge,
          interfaces: this.interfaces,
          auth: opts.auth ?? { mode: "unconfigured" },
          mcp: mcp !== undefined,
          registry: this.registry,
        },
      ),
    );
    app.route("/", agentRoutes(agents, opts.queue, this.registry));
    app.route("/", teamRoutes(this.teams, opts.queue, this.registry));
    // Before the workflow routes: `/workflows/ws` is not the workflow called "ws".
    app.route(
      "/",
      workflowSocketRoutes(this.workflows, opts.websocket, opts.auth ?? { mode: "unconfigured" }, socketQuota),
    );
    app.route("/", workflowRoutes(this.workflows, opts.queue, this.registry));
    app.route("/", queueRoutes(opts.queue));
    app.route(
      "/",
      websocketRoutes(
        { agents, teams: this.teams, workflows: this.workflows },
        opts.websocket,
        opts.auth ?? { mode: "unconfigured" },
        socketQuota,
      ),
    );
    app.route("/", databaseRoutes());
    app.route("/", sessionRoutes());
    // Optimising without a named model uses the first served memory model, else the first agent's or team's model.
    const defaultMemoryModel = () =>
      agents.map((a) => a.configuration.memoryModel).find((m) => m !== undefined) ??
      agents[0]?.model ??
      this.teams[0]?.model;
    app.route("/", memoryRoutes(defaultMemoryModel));
    app.route("/", learningRoutes());
    app.route("/", registryRoutes(this.registry));
    app.route("/", componentRoutes({ registry: this.registry, onWrite: opts.onComponentWrite }));
    if (opts.xaiLogin) app.route("/", opts.xaiLogin);
    app.route("/", scheduleRoutes(components, opts.queue));
    app.route("/", approvalRoutes(components, opts.queue));
    app.route("/", serviceAccountRoutes());
    app.route("/", auditRoutes());
    app.route("/", traceRoutes());
    app.route("/", metricsRoutes());
    app.route("/", evalRoutes(agents, this.teams, opts.queue));
    app.route(
      "/",
      mediaRoutes(
        [...new Set([mediaStorage, ...agents.map((a) => a.mediaStorage)])].filter(
          (s): s is MediaStorage => s !== undefined,
        ),
      ),
    );
    if (knowledge.length > 0)
      app.route(
        "/",
        knowledgeRoutes(knowledge, {
          queue: opts.queue,
          media: mediaStorage,
          ...(opts.maxUploadBytes ? { upload: { maxBytes: opts.maxUploadBytes } } : {}),
        }),
      );
    for (const iface of this.interfaces)
      app.route(
        "/",
        iface.routes({ queue: opts.queue, served: components, ...(mediaStorage ? { media: mediaStorage } : {}) }),
      );
    if (mcp)
      app.route(
        "/",
        mcp.routes(app, { name: this.name, version: AGNO_EDGE_VERSION, open: opts.auth?.mode === "none" }),
      );
    app.route("/", docsRoutes(app, { title: this.name, version: AGNO_EDGE_VERSION, description: opts.description }));
    this.app = app;
  }

  fetch(request: Request, services: RequestServices, ctx?: ExecutionContextLike): Response | Promise<Response> {
    return this.app.fetch(request, services, ctx as never);
  }
}

/** The part of a Workers ExecutionContext the app may use; Node hosts can pass a stand-in. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
}
