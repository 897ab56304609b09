import type { Context } from "hono";
import type { UpgradeWebSocket, WSContext } from "hono/ws";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { RunEvent } from "../../agent/events.js";
import type { IndexedEvent } from "../../agent/event-log.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { ToolExecution } from "../../agent/run-output.js";
import { BadRequestError, ForbiddenError, NotConfiguredError, ValidationError } from "../../errors.js";
import {
  agentFor,
  continuedEvents,
  keepAlive,
  numberedEvents,
  openResume,
  resolutionsFromTools,
  storedAgent,
} from "../agent-runs.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, idSchema, inputProblem, jsonObject, routeApp, validationError } from "../route.js";
import { compact } from "../sse.js";
import { publicError } from "../../public-error.js";
import { eventIndex, mediaList, mediaOf } from "../run-input.js";
import { releasedOnClose, type SocketQuota } from "../socket-quota.js";

/** Largest client message (UTF-16 characters, as the socket hands it over), and most runs one socket may stream at once. */
const MAX_MESSAGE_CHARS = 1024 * 1024;
const MAX_ACTIVE_RUNS = 8;
/** The close code of a socket whose token expired. */
export const TOKEN_EXPIRED = 4001;

const common = { id: z.string().max(100).optional(), agent_id: idSchema };
const clientMessage = z.discriminatedUnion("action", [
  z.object({ action: z.literal("ping"), id: common.id }),
  z.object({
    action: z.literal("run"),
    ...common,
    message: z.string().min(1).max(100_000),
    session_id: idSchema.optional(),
    user_id: idSchema.optional(),
    session_state: jsonObject.optional(),
    dependencies: jsonObject.optional(),
    metadata: jsonObject.optional(),
    media: mediaList.optional(),
  }),
  z.object({
    action: z.literal("continue"),
    ...common,
    run_id: idSchema,
    tools: z.array(jsonObject).max(100).optional(),
    requirements: z.array(jsonObject).max(100).optional(),
    user_id: idSchema.optional(),
  }),
  z.object({
    action: z.literal("resume"),
    ...common,
    run_id: idSchema,
    last_event_index: eventIndex.optional(),
    user_id: idSchema.optional(),
  }),
  z.object({ action: z.literal("cancel"), ...common, run_id: idSchema, user_id: idSchema.optional() }),
]);
type ClientMessage = z.infer<typeof clientMessage>;

const wsRoute = defineRoute({
  method: "get",
  path: "/ws",
  tags: ["Agents"],
  summary: "WebSocket streaming: run, continue, resume and cancel agent runs over one connection",
  description:
    "Send JSON messages `{action: run|continue|resume|cancel|ping, id?, agent_id, …}` (the run fields as for POST /agents/{agent_id}/runs). " +
    'Every answer is JSON: run events carry `event_index` (their position, for `resume`) and `request_id` (the message\'s `id`); failures are `{event: "error", detail, error_id}`.',
  scope: { resource: "agents", action: "run", perItem: "checked per message" },
  responses: {
    101: { description: "Switching protocols" },
    426: { description: "Not a WebSocket upgrade" },
    429: { description: "The caller holds as many open WebSockets as one user may" },
  },
});

/** Sends one JSON frame, unless the client has gone (the run goes on and is stored). */
function sender(ws: WSContext) {
  return (frame: Record<string, unknown>) => {
    if (ws.readyState === 1) ws.send(JSON.stringify(compact(frame)));
  };
}

/** A failed action's frame: the public form of the error (publicError), with the run's ids when it had started. */
function errorFrame(error: unknown, requestId: string | undefined, ids: { run_id?: string; session_id?: string } = {}) {
  const shown = publicError(error, ids.run_id ? `websocket run ${ids.run_id}` : "websocket action");
  return { event: "error", request_id: requestId, ...ids, detail: shown.message, error_id: shown.errorId };
}

function parse(data: unknown): ClientMessage {
  if (typeof data !== "string") throw new ValidationError("messages must be JSON text", "message");
  if (data.length > MAX_MESSAGE_CHARS)
    throw new ValidationError(`messages are limited to ${MAX_MESSAGE_CHARS} characters`, "message");
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ValidationError("message is not valid JSON", "message");
  }
  const result = clientMessage.safeParse(json);
  if (!result.success) throw validationError(result.error, "message");
  const problem = inputProblem(result.data, "message");
  if (problem) throw problem;
  return result.data;
}

/**
 * `GET /ws`: the same runs as the SSE routes, over a WebSocket. Auth and the caller's identity
 * come from the upgrade request; each action checks its own scope. Events are numbered and
 * stored exactly as for SSE, so a run started here can be resumed over HTTP and vice versa.
 */
export function websocketRoutes(agents: Agent[], upgrade: UpgradeWebSocket | undefined, quota?: SocketQuota) {
  const app = routeApp();
  handle(app, wsRoute, async (c) => {
    if (!upgrade)
      throw new NotConfiguredError(
        "this host cannot upgrade to WebSocket: pass `websocket` to AgentOS (the Worker entry does)",
      );
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      return c.json({ detail: "send a WebSocket upgrade (Upgrade: websocket)", error_id: "upgrade_required" }, 426);
    }
    // One user's sockets are capped (429 before the upgrade); the place is freed when the socket closes.
    const release = quota?.acquire(principalOf(c).userId) ?? (() => undefined);
    const response = await upgrade(() =>
      releasedOnClose(socketEvents(c as unknown as Context<OSEnv>, agents), release),
    )(c, async () => undefined).catch((error: unknown) => {
      release();
      throw error;
    });
    if (!response) release();
    return response ?? c.json({ detail: "the WebSocket upgrade failed", error_id: "upgrade_required" }, 426);
  });
  return app;
}

function socketEvents(c: Context<OSEnv>, agents: Agent[]) {
  const runs = new Set<Promise<void>>();
  const stayAlive = keepAlive(c);
  let closed!: () => void;
  // The request (and its database pool) lives as long as the socket and the runs it started.
  stayAlive?.(new Promise<void>((resolve) => (closed = resolve)));

  const pump = (ws: WSContext, requestId: string | undefined, events: AsyncIterable<IndexedEvent<RunEvent>>) => {
    if (runs.size >= MAX_ACTIVE_RUNS)
      throw new BadRequestError(`at most ${MAX_ACTIVE_RUNS} runs stream over one connection at a time`);
    const send = sender(ws);
    const ids: { run_id?: string; session_id?: string } = {};
    const done = (async () => {
      try {
        for await (const { index, event } of events) {
          ids.run_id = event.run_id || ids.run_id;
          ids.session_id = event.session_id || ids.session_id;
          send({ ...event, event_index: index, request_id: requestId });
        }
      } catch (error) {
        send(errorFrame(error, requestId, ids));
      }
    })();
    runs.add(done);
    stayAlive?.(done.finally(() => runs.delete(done)));
  };

  const act = async (ws: WSContext, m: ClientMessage) => {
    const send = sender(ws);
    if (m.action === "ping") return send({ event: "pong", request_id: m.id });
    const principal = principalOf(c);
    // Every action needs what its HTTP route needs: agents:run, resume included (as agno's /resume).
    if (!hasScope(principal, "agents", "run", m.agent_id))
      throw new ForbiddenError(`this needs the scope agents:${m.agent_id}:run`);
    if (m.action === "run") {
      const agent = agentFor(c, agents, m.agent_id);
      const opts = {
        sessionId: m.session_id,
        userId: effectiveUserId(c, m.user_id),
        sessionState: m.session_state,
        dependencies: m.dependencies,
        metadata: m.metadata,
        media: await mediaOf(m),
        stream: true as const,
      };
      return pump(ws, m.id, numberedEvents(agent, agent.run(m.message, opts), {}));
    }
    if (m.action === "continue") {
      const agent = agentFor(c, agents, m.agent_id);
      if (!m.tools && !m.requirements)
        throw new ValidationError("send the resolved `tools` (agno's ToolExecution list) or `requirements`", "tools");
      const requirements = [
        ...(m.requirements ?? []),
        ...(m.tools ? resolutionsFromTools(m.tools as Array<Partial<ToolExecution>>) : []),
      ] as RequirementResolution[];
      const events = agent.continueRun(m.run_id, {
        requirements,
        userId: effectiveUserId(c, m.user_id),
        approver: { isAdmin: principal.admin },
        stream: true,
      });
      const continued = await continuedEvents(agent, m.run_id, events);
      return pump(ws, m.id, numberedEvents(agent, continued.events, continued.ids));
    }
    if (m.action === "resume") {
      const { agent, db } = storedAgent(c, agents, m.agent_id);
      const { tail } = await openResume(
        db,
        agent,
        m.run_id,
        readScope(c, m.user_id),
        m.last_event_index ?? -1,
        undefined,
        c.env.jobs,
      );
      return pump(ws, m.id, tail);
    }
    const agent = agentFor(c, agents, m.agent_id);
    const userId = effectiveUserId(c, m.user_id);
    const cancelled = await agent.cancelRun(m.run_id, userId !== undefined ? { userId } : {});
    return send({ event: "CancelResult", request_id: m.id, run_id: m.run_id, cancelled });
  };

  // A token's socket lives as long as the token would be accepted over HTTP: then it is closed
  // with 4001 (the application range's "unauthorized", as HTTP's 401), so a client knows to get
  // a fresh token and reconnect. Runs it started go on and stay resumable.
  const expiresAt = principalOf(c).expiresAt;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const expired = () => expiresAt !== undefined && Date.now() >= expiresAt;
  const expire = (ws: WSContext) => {
    if (expiry) clearTimeout(expiry);
    if (ws.readyState === 0 || ws.readyState === 1) ws.close(TOKEN_EXPIRED, "token expired");
    closed();
  };
  const arm = (ws: WSContext) => {
    if (expiresAt === undefined) return;
    if (expired()) return expire(ws);
    // setTimeout takes at most 2^31-1 ms; a longer-lived token re-arms.
    expiry = setTimeout(() => arm(ws), Math.min(expiresAt - Date.now(), 2 ** 31 - 1));
  };

  return {
    onOpen(_evt: Event, ws: WSContext) {
      arm(ws);
    },
    onMessage(evt: MessageEvent, ws: WSContext) {
      if (expired()) return expire(ws);
      let requestId: string | undefined;
      void (async () => {
        try {
          const m = parse(evt.data);
          requestId = m.id;
          await act(ws, m);
        } catch (error) {
          sender(ws)(errorFrame(error, requestId));
        }
      })();
    },
    onClose() {
      if (expiry) clearTimeout(expiry);
      closed();
    },
    onError() {
      if (expiry) clearTimeout(expiry);
      closed();
    },
  };
}
