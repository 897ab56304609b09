import type { Context } from "hono";
import type { UpgradeWebSocket, WSContext } from "hono/ws";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { Component } from "../../agent/component.js";
import type { RunEvent } from "../../agent/events.js";
import type { IndexedEvent } from "../../agent/event-log.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { ToolExecution } from "../../agent/run-output.js";
import { ForbiddenError, NotConfiguredError, ValidationError } from "../../errors.js";
import type { Team } from "../../team/team.js";
import type { StepRequirementResolution } from "../../workflow/step-requirement.js";
import type { Workflow } from "../../workflow/workflow.js";
import {
  componentFor,
  continuedEvents,
  numberedEvents,
  openResume,
  resolutionsFromTools,
  storedComponent,
} from "../agent-runs.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import { readComponentRun, type RunnableComponent } from "../component-runs.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, idSchema, jsonObject, routeApp } from "../route.js";
import { publicError } from "../../public-error.js";
import { eventIndex, mediaList, mediaOf } from "../run-input.js";
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
import type { AuthConfig } from "../auth/middleware.js";

const target = { agent_id: idSchema.optional(), team_id: idSchema.optional(), workflow_id: idSchema.optional() };
const common = { id: z.string().max(100).optional(), ...target };
const clientMessage = z.discriminatedUnion("action", [
  // The workflow socket's message (agno's): credentials sent once the socket is open.
  z.object({ action: z.literal("authenticate"), id: common.id, token: z.string().max(16_384).optional() }),
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
    step_requirements: z.array(jsonObject).max(100).optional(),
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
type Kind = "agent" | "team" | "workflow";
type Runnable = RunnableComponent<Runnable> & Pick<Component, "heartbeatSeconds">;

const wsRoute = defineRoute({
  method: "get",
  path: "/ws",
  tags: ["Agents"],
  summary: "WebSocket streaming: run, continue, resume and cancel agent, team and workflow runs over one connection",
  description:
    "Authenticate the upgrade with a bearer header, or (a browser cannot set one) send `{action: authenticate, token}` first: until then every other message is answered with an `unauthorized` error frame, five refused tokens or 30 s without one close the socket with 4001. " +
    "Then send JSON messages `{action: run|continue|resume|cancel|ping, id?, agent_id | team_id | workflow_id, …}` (the run fields as for POST /agents/{agent_id}/runs, /teams/{team_id}/runs, /workflows/{workflow_id}/runs; a workflow continues with `step_requirements`); each message needs agents:, teams: or workflows:<id>:run for the component it names. " +
    'Every answer is JSON: run events carry `event_index` (their position, for `resume`) and `request_id` (the message\'s `id`); failures are `{event: "error", detail, error_id}`.',
  // Public: the socket authenticates itself, from the upgrade's bearer header or its first message;
  // each action then checks its own scope.
  scope: null,
  responses: {
    101: { description: "Switching protocols" },
    401: { description: "The upgrade's bearer token is refused, or authentication is not configured" },
    426: { description: "Not a WebSocket upgrade" },
    429: { description: "The caller holds as many open WebSockets as one user may" },
  },
});

/** A failed action's frame: the public form of the error (publicError), with the run's ids when it had started. */
function errorFrame(error: unknown, requestId: string | undefined, ids: { run_id?: string; session_id?: string } = {}) {
  const shown = publicError(error, ids.run_id ? `websocket run ${ids.run_id}` : "websocket action");
  return { event: "error", request_id: requestId, ...ids, detail: shown.message, error_id: shown.errorId };
}

/** The close code of a socket whose user already holds their share of sockets: the application range's 429. */
const QUOTA_EXCEEDED = 4029;

/** The frame refusing a message on a socket that has not authenticated. */
const unauthenticatedFrame = (requestId: string | undefined) => ({
  event: "error",
  request_id: requestId,
  detail: 'authenticate first: send {"action": "authenticate", "token": "<bearer token>"}',
  error_id: "unauthorized",
});

/** The one component a message names (`agent_id`, `team_id` or `workflow_id`); else a 422. */
function targetOf(m: Exclude<ClientMessage, { action: "ping" | "authenticate" }>): { kind: Kind; id: string } {
  const named = (["agent", "team", "workflow"] as const).filter((kind) => m[`${kind}_id`] !== undefined);
  if (named.length !== 1)
    throw new ValidationError(
      "name exactly one of agent_id, team_id, workflow_id",
      named[1] ? `${named[1]}_id` : "agent_id",
    );
  return { kind: named[0]!, id: m[`${named[0]!}_id`]! };
}

/**
 * `GET /ws`: the same runs as the SSE routes, over a WebSocket. The caller's identity comes from
 * the upgrade's bearer header or, as on agno's workflow socket, from an `authenticate` message
 * (a browser cannot set headers on an upgrade); each action checks its own scope. Events are
 * numbered and stored exactly as for SSE, so a run started here can be resumed over HTTP and
 * vice versa.
 */
export function websocketRoutes(
  served: { agents: Agent[]; teams: Team[]; workflows: Workflow[] },
  upgrade: UpgradeWebSocket | undefined,
  auth: AuthConfig,
  quota?: SocketQuota,
) {
  const app = routeApp();
  handle(app, wsRoute, async (c) => {
    if (!upgrade)
      throw new NotConfiguredError(
        "this host cannot upgrade to WebSocket: pass `websocket` to AgentOS (the Worker entry does)",
      );
    const refused = deploymentRefusal(c as unknown as Context<OSEnv>, auth);
    if (refused) return refused;
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      return c.json({ detail: "send a WebSocket upgrade (Upgrade: websocket)", error_id: "upgrade_required" }, 426);
    }
    const principal = await upgradePrincipal(c as unknown as Context<OSEnv>, auth);
    if (principal instanceof Response) return principal;
    c.set("principal", principal ?? NOBODY);
    // One user's sockets are capped (429 before the upgrade), a socket not yet authenticated
    // counting against the address it comes from; the place is freed when the socket closes.
    const place = new SocketPlace(quota, principal ? principal.userId : unauthenticatedHolder(c));
    const events = socketEvents(c as unknown as Context<OSEnv>, served, auth, principal !== null, place);
    const response = await upgrade(() => releasedOnClose(events, place.release))(c, async () => undefined).catch(
      (error: unknown) => {
        place.release();
        throw error;
      },
    );
    if (!response) place.release();
    return response ?? c.json({ detail: "the WebSocket upgrade failed", error_id: "upgrade_required" }, 426);
  });
  return app;
}

/** The quota key of a socket not yet authenticated: the address it comes from. */
const unauthenticatedHolder = (c: Context) => `unauthenticated:${c.req.header("cf-connecting-ip") ?? ""}`;

/** A socket's place in the per-user quota, moved to its user once it authenticates. */
class SocketPlace {
  private held: () => void;
  private holder: string | null;

  constructor(
    private readonly quota: SocketQuota | undefined,
    holder: string | null,
  ) {
    this.holder = holder;
    this.held = quota?.acquire(holder) ?? (() => undefined);
  }

  /** Takes a place for `userId` (QuotaExceededError when they hold their share) and frees the one held. */
  moveTo(userId: string | null): void {
    if (userId === this.holder) return;
    const next = this.quota?.acquire(userId) ?? (() => undefined);
    this.held();
    this.held = next;
    this.holder = userId;
  }

  readonly release = (): void => this.held();
}

function socketEvents(
  c: Context<OSEnv>,
  served: { agents: Agent[]; teams: Team[]; workflows: Workflow[] },
  auth: AuthConfig,
  authenticatedAtUpgrade: boolean,
  place: SocketPlace,
) {
  const socket = new SocketRuns(c);
  let authenticated = authenticatedAtUpgrade;
  let failures = 0;
  const lists = { agent: served.agents, team: served.teams, workflow: served.workflows } as unknown as Record<
    Kind,
    readonly Runnable[]
  >;
  const pump = (ws: WSContext, requestId: string | undefined, events: AsyncIterable<IndexedEvent<RunEvent>>) =>
    socket.pump(
      ws,
      events,
      (index, event) => ({ ...event, event_index: index, request_id: requestId }),
      (error, ids) => errorFrame(error, requestId, ids),
    );

  /** agno's `authenticate`: the token's principal becomes the socket's, its user takes the quota's place. */
  const authenticate = async (ws: WSContext, m: Extract<ClientMessage, { action: "authenticate" }>) => {
    const refuse = (detail: string) =>
      SocketRuns.send(ws, { event: "error", request_id: m.id, detail, error_id: "unauthorized" });
    if (!m.token) return refuse("Token is required");
    const found = await messagePrincipal(c, auth, m.token);
    if (typeof found === "string") {
      if (++failures >= MAX_AUTH_FAILURES) return socket.expire(ws, "too many failed authentications");
      return refuse(found);
    }
    try {
      place.moveTo(found.userId);
    } catch (error) {
      // Over the user's share of sockets: told why, then closed, as the upgrade would have been refused.
      SocketRuns.send(ws, errorFrame(error, m.id));
      ws.close(QUOTA_EXCEEDED, "too many open WebSockets");
      return socket.end();
    }
    c.set("principal", found);
    authenticated = true;
    socket.expireAt(ws, found.expiresAt);
    SocketRuns.send(ws, { event: "authenticated", request_id: m.id, user_id: found.userId });
  };

  const act = async (ws: WSContext, m: ClientMessage) => {
    if (m.action === "authenticate") return authenticate(ws, m);
    if (!authenticated) return SocketRuns.send(ws, unauthenticatedFrame(m.id));
    if (m.action === "ping") return SocketRuns.send(ws, { event: "pong", request_id: m.id });
    const principal = principalOf(c);
    const { kind, id } = targetOf(m);
    // Every action needs what its HTTP route needs: <kind>s:run, resume included (as agno's /resume).
    if (!hasScope(principal, `${kind}s`, "run", id))
      throw new ForbiddenError(`this needs the scope ${kind}s:${id}:run`);
    const list = lists[kind];
    if (m.action === "run") {
      const component = componentFor(c, kind, list, id);
      if (kind === "workflow" && (m.media || m.dependencies))
        throw new ValidationError(`message ${m.media ? "media" : "dependencies"}: workflows take none`, "media");
      const opts = {
        sessionId: m.session_id,
        userId: effectiveUserId(c, m.user_id),
        sessionState: m.session_state,
        metadata: m.metadata,
        ...(kind !== "workflow" && { dependencies: m.dependencies, media: await mediaOf(m) }),
        stream: true as const,
      };
      const events = (component as unknown as Startable).run(m.message, opts);
      return pump(ws, m.id, numberedEvents(component, events, {}));
    }
    if (m.action === "continue") {
      const component = componentFor(c, kind, list, id);
      const userId = effectiveUserId(c, m.user_id);
      // What the message resolves is checked before the run is looked up.
      if (kind === "workflow" && !m.step_requirements)
        throw new ValidationError(
          "send the resolved `step_requirements` (agno's StepRequirement list)",
          "step_requirements",
        );
      if (kind !== "workflow" && !m.tools && !m.requirements)
        throw new ValidationError("send the resolved `tools` (agno's ToolExecution list) or `requirements`", "tools");
      // The run must be this component's and the caller's (a run of another is not found).
      if (component.db) await readComponentRun(component.db, component.ref, m.run_id, readScope(c, m.user_id));
      const events =
        kind === "workflow"
          ? ((component as unknown as Workflow).continueRun(m.run_id, {
              stepRequirements: m.step_requirements as unknown as StepRequirementResolution[],
              ...(userId !== undefined && { userId }),
              stream: true,
            }) as AsyncIterable<RunEvent>)
          : (component as unknown as Agent).continueRun(m.run_id, {
              requirements: [
                ...(m.requirements ?? []),
                ...(m.tools ? resolutionsFromTools(m.tools as Array<Partial<ToolExecution>>) : []),
              ] as RequirementResolution[],
              userId,
              approver: { isAdmin: principal.admin },
              stream: true,
            });
      const continued = await continuedEvents(component, m.run_id, events);
      return pump(ws, m.id, numberedEvents(component, continued.events, continued.ids));
    }
    if (m.action === "resume") {
      const { component, db } = storedComponent(c, kind, list, id);
      const { tail } = await openResume(
        db,
        component,
        m.run_id,
        readScope(c, m.user_id),
        m.last_event_index ?? -1,
        undefined,
        c.env.jobs,
      );
      return pump(ws, m.id, tail);
    }
    const component = componentFor(c, kind, list, id);
    const userId = effectiveUserId(c, m.user_id);
    const cancelled = await component.cancelRun(m.run_id, userId !== undefined ? { userId } : {});
    return SocketRuns.send(ws, { event: "CancelResult", request_id: m.id, run_id: m.run_id, cancelled });
  };

  return {
    onOpen(_evt: Event, ws: WSContext) {
      // A token's socket lives as long as the token would be accepted over HTTP; one without
      // credentials has a while to send them.
      if (authenticated) socket.expireAt(ws, principalOf(c).expiresAt);
      else socket.deadline(ws, AUTH_DEADLINE_MS, () => authenticated);
    },
    onMessage(evt: MessageEvent, ws: WSContext) {
      if (socket.expired()) return socket.expire(ws);
      let requestId: string | undefined;
      void (async () => {
        try {
          const m = SocketRuns.parse(evt.data, clientMessage);
          requestId = m.id;
          await act(ws, m);
        } catch (error) {
          SocketRuns.send(ws, errorFrame(error, requestId));
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

/** What starting a run asks of an agent, a team or a workflow alike. */
interface Startable {
  run(message: string, opts: Record<string, unknown> & { stream: true }): AsyncIterable<RunEvent>;
}
