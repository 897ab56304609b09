import type { Context } from "hono";
import type { UpgradeWebSocket, WSContext } from "hono/ws";
import { z } from "zod";
import type { IndexedEvent } from "../../agent/event-log.js";
import { NotConfiguredError } from "../../errors.js";
import { publicError } from "../../public-error.js";
import type { StepRequirementResolution } from "../../workflow/step-requirement.js";
import type { Workflow } from "../../workflow/workflow.js";
import { componentFor, continuedEvents, numberedEvents, openResume, storedComponent } from "../agent-runs.js";
import type { AuthConfig } from "../auth/middleware.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import { readComponentRun } from "../component-runs.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, idSchema, jsonObject, routeApp, validationError } from "../route.js";
import { eventIndex } from "../run-input.js";
import { releasedOnClose, type SocketQuota } from "../socket-quota.js";
import { SocketRuns } from "../socket-runs.js";
import {
  AUTH_DEADLINE_MS,
  deploymentRefusal,
  MAX_AUTH_FAILURES,
  messagePrincipal,
  NOBODY,
  upgradePrincipal,
} from "../socket-auth.js";

/** agno's client messages on `/workflows/ws` (`os/router.py`), by `action`. */
const clientMessage = z.discriminatedUnion("action", [
  z.object({ action: z.literal("authenticate"), token: z.string().max(16_384).optional() }),
  z.object({ action: z.literal("ping") }),
  z.object({
    action: z.literal("start-workflow"),
    workflow_id: idSchema.optional(),
    message: z.string().max(100_000).optional(),
    session_id: idSchema.optional(),
    user_id: idSchema.optional(),
  }),
  z.object({
    action: z.literal("reconnect"),
    workflow_id: idSchema.optional(),
    run_id: idSchema.optional(),
    session_id: idSchema.optional(),
    user_id: idSchema.optional(),
    last_event_index: eventIndex.nullable().optional(),
  }),
  z.object({
    action: z.literal("continue-workflow"),
    workflow_id: idSchema.optional(),
    run_id: idSchema.optional(),
    session_id: idSchema.optional(),
    user_id: idSchema.optional(),
    step_requirements: z.array(jsonObject).max(100).optional(),
  }),
]);
type ClientMessage = z.infer<typeof clientMessage>;
const ACTIONS = new Set(clientMessage.options.map((o) => o.shape.action.value as string));
const envelope = z.looseObject({ action: z.string().max(100).optional() });

const route = defineRoute({
  method: "get",
  path: "/workflows/ws",
  tags: ["Workflows"],
  summary: "agno's workflow WebSocket: start, continue and reconnect to workflow runs",
  description:
    "agno's protocol: the server says `connected` (with `requires_auth`); the client sends `{action: authenticate, token}` " +
    "(or authenticates the upgrade with a bearer header), then `start-workflow`, `continue-workflow`, `reconnect` or `ping`. " +
    "Each action needs workflows:<workflow_id>:run. Run events carry `event_index` and `run_id`; `reconnect` replays those after `last_event_index`. " +
    'Failures are `{event: "error", error, error_id}`.',
  scope: null,
  responses: {
    101: { description: "Switching protocols" },
    401: { description: "The upgrade's bearer token is refused, or authentication is not configured" },
    426: { description: "Not a WebSocket upgrade" },
    429: { description: "The caller holds as many open WebSockets as one user may" },
  },
});

/** agno's error frame: the public form of the error (publicError). */
function errorFrame(error: unknown, ids: { run_id?: string } = {}) {
  const shown = publicError(error, ids.run_id ? `workflow run ${ids.run_id}` : "workflow websocket action");
  return { event: "error", ...ids, error: shown.message, error_id: shown.errorId };
}

/**
 * `GET /workflows/ws`: agno's workflow socket. Authentication may come after the upgrade (a
 * browser cannot set headers on one), so the route is public and the socket itself answers
 * every action but `authenticate` with `auth_required` until a token is accepted, as agno does.
 */
export function workflowSocketRoutes(
  workflows: Workflow[],
  upgrade: UpgradeWebSocket | undefined,
  auth: AuthConfig,
  quota?: SocketQuota,
) {
  const app = routeApp();
  handle(app, route, async (c) => {
    if (!upgrade)
      throw new NotConfiguredError(
        "this host cannot upgrade to WebSocket: pass `websocket` to AgentOS (the Worker entry does)",
      );
    const refused = deploymentRefusal(c as unknown as Context<OSEnv>, auth);
    if (refused) return refused;
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
      return c.json({ detail: "send a WebSocket upgrade (Upgrade: websocket)", error_id: "upgrade_required" }, 426);
    const principal = await upgradePrincipal(c as unknown as Context<OSEnv>, auth);
    if (principal instanceof Response) return principal;
    c.set("principal", principal ?? NOBODY);
    // Sockets not yet authenticated count against the address they come from.
    const holder = principal ? principal.userId : `unauthenticated:${c.req.header("cf-connecting-ip") ?? ""}`;
    const release = quota?.acquire(holder) ?? (() => undefined);
    const events = socketEvents(c as unknown as Context<OSEnv>, workflows, auth, principal !== null);
    const response = await upgrade(() => releasedOnClose(events, release))(c, async () => undefined).catch(
      (error: unknown) => {
        release();
        throw error;
      },
    );
    if (!response) release();
    return response ?? c.json({ detail: "the WebSocket upgrade failed", error_id: "upgrade_required" }, 426);
  });
  return app;
}

function socketEvents(c: Context<OSEnv>, workflows: Workflow[], auth: AuthConfig, authenticatedAtUpgrade: boolean) {
  const socket = new SocketRuns(c);
  let authenticated = authenticatedAtUpgrade;
  let failures = 0;
  const send = (ws: WSContext, frame: Record<string, unknown>) => SocketRuns.send(ws, frame);
  const pump = (ws: WSContext, events: AsyncIterable<IndexedEvent<{ run_id?: string; session_id?: string }>>) =>
    socket.pump(
      ws,
      events,
      (index, event) => ({ ...event, event_index: index }),
      (error, ids) => errorFrame(error, { run_id: ids.run_id }),
    );
  const may = (workflowId: string | undefined) => hasScope(principalOf(c), "workflows", "run", workflowId);

  const authenticate = async (ws: WSContext, token: string | undefined) => {
    if (!token) return send(ws, { event: "auth_error", error: "Token is required" });
    const found = await messagePrincipal(c, auth, token);
    if (typeof found === "string") {
      if (++failures >= MAX_AUTH_FAILURES) return socket.expire(ws, "too many failed authentications");
      return send(ws, {
        event: "auth_error",
        error: found,
        error_type: /expired/i.test(found) ? "expired" : "invalid_token",
      });
    }
    c.set("principal", found);
    authenticated = true;
    socket.expireAt(ws, principalOf(c).expiresAt);
    send(ws, {
      event: "authenticated",
      message: "Authentication successful. You can now send commands.",
      user_id: principalOf(c).userId,
    });
  };

  const act = async (ws: WSContext, m: ClientMessage) => {
    if (m.action === "authenticate") return authenticate(ws, m.token);
    if (!authenticated)
      return send(ws, {
        event: "auth_required",
        error: `Authentication required. Send authenticate action with valid ${auth.mode === "jwt" ? "JWT" : "bearer token"}.`,
      });
    if (m.action === "ping") return send(ws, { event: "pong" });
    if (m.action === "start-workflow") {
      if (!may(m.workflow_id))
        return send(ws, { event: "error", error: "Insufficient permissions to run this workflow" });
      if (!m.workflow_id) return send(ws, { event: "error", error: "workflow_id is required" });
      const workflow = componentFor(c, "workflow", workflows, m.workflow_id);
      const events = workflow.run(m.message ?? "", {
        sessionId: m.session_id,
        userId: effectiveUserId(c, m.user_id),
        stream: true,
      });
      return pump(ws, numberedEvents(workflow, events, {}));
    }
    if (m.action === "continue-workflow") {
      if (!may(m.workflow_id))
        return send(ws, { event: "error", error: "Insufficient permissions to continue this workflow" });
      if (!m.workflow_id) return send(ws, { event: "error", error: "workflow_id is required" });
      if (!m.run_id) return send(ws, { event: "error", error: "run_id is required" });
      const { component: workflow, db } = storedComponent(c, "workflow", workflows, m.workflow_id);
      const run = await readComponentRun(db, workflow.ref, m.run_id, readScope(c, m.user_id), m.session_id);
      if (run.status !== "PAUSED")
        return send(ws, { event: "error", error: `Run is not paused (status=${String(run.status)})` });
      const userId = effectiveUserId(c, m.user_id);
      const events = workflow.continueRun(m.run_id, {
        stepRequirements: (m.step_requirements ?? []) as unknown as StepRequirementResolution[],
        ...(userId !== undefined && { userId }),
        stream: true,
      });
      const continued = await continuedEvents(workflow, m.run_id, events);
      return pump(ws, numberedEvents(workflow, continued.events, continued.ids));
    }
    return reconnect(ws, m);
  };

  /**
   * agno's `reconnect`: a finished (or paused) run's stored events after `last_event_index`
   * behind a `replay` frame; a running one's missed events behind `catch_up`, then `subscribed`
   * and its live events.
   */
  const reconnect = async (ws: WSContext, m: Extract<ClientMessage, { action: "reconnect" }>) => {
    if (!m.workflow_id)
      return send(ws, { event: "error", error: "workflow_id is required to reconnect to a workflow run" });
    if (!may(m.workflow_id))
      return send(ws, { event: "error", error: "Insufficient permissions to reconnect to this workflow" });
    if (!m.run_id) return send(ws, { event: "error", error: "run_id is required for subscription" });
    const { component: workflow, db } = storedComponent(c, "workflow", workflows, m.workflow_id);
    if (m.session_id !== undefined)
      await readComponentRun(db, workflow.ref, m.run_id, readScope(c, m.user_id), m.session_id);
    const after = m.last_event_index ?? -1;
    const { run, tail } = await openResume(
      db,
      workflow,
      m.run_id,
      readScope(c, m.user_id),
      after,
      undefined,
      c.env.jobs,
    );
    const missed = await db.getRunEvents(m.run_id, { afterIndex: after });
    const status = String(run.status ?? "unknown");
    if (status !== "RUNNING" && status !== "PENDING") {
      send(ws, {
        event: "replay",
        run_id: m.run_id,
        status,
        total_events: missed.length,
        message: missed.length
          ? `Run ${status.toLowerCase()}. Replaying stored events from database.`
          : "Run finished but no events stored past the requested index.",
      });
      for (const { index, event } of missed)
        send(ws, { ...event, event_index: index, run_id: event.run_id ?? m.run_id });
      return;
    }
    const count = (await db.lastRunEventIndex(m.run_id)) + 1;
    if (missed.length)
      send(ws, {
        event: "catch_up",
        run_id: m.run_id,
        status: "running",
        missed_events: missed.length,
        current_event_count: count,
        message: `Catching up on ${missed.length} missed events.`,
      });
    for (const { index, event } of missed) send(ws, { ...event, event_index: index, run_id: event.run_id ?? m.run_id });
    send(ws, {
      event: "subscribed",
      run_id: m.run_id,
      status: "running",
      current_event_count: count,
      message: "Subscribed to workflow run. You will receive new events as they occur.",
    });
    const from = missed.at(-1)?.index ?? after;
    return pump(ws, skipThrough(tail, from));
  };

  return {
    onOpen(_evt: Event, ws: WSContext) {
      send(ws, {
        event: "connected",
        message: authenticated ? "Connected to AgentOS." : "Connected to AgentOS. Please authenticate to continue.",
        requires_auth: !authenticated,
      });
      if (authenticated) socket.expireAt(ws, principalOf(c).expiresAt);
      else socket.deadline(ws, AUTH_DEADLINE_MS, () => authenticated);
    },
    onMessage(evt: MessageEvent, ws: WSContext) {
      if (socket.expired()) return socket.expire(ws);
      void (async () => {
        try {
          const raw = SocketRuns.parse(evt.data, envelope);
          if (!ACTIONS.has(raw.action ?? ""))
            return send(ws, { event: "error", error: `Unknown action: ${String(raw.action ?? null)}` });
          const parsed = clientMessage.safeParse(raw);
          if (!parsed.success) throw validationError(parsed.error, "message");
          await act(ws, parsed.data);
        } catch (error) {
          send(ws, errorFrame(error));
        }
      })();
    },
    onClose() {
      socket.end();
    },
    onError() {
      socket.end();
    },
  };
}

/** The tail after the events already sent from the log (it reads the same log, from an earlier index). */
async function* skipThrough<E>(tail: AsyncIterable<IndexedEvent<E>>, sent: number): AsyncGenerator<IndexedEvent<E>> {
  for await (const item of tail) if (item.index > sent) yield item;
}
