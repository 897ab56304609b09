import type { Context } from "hono";
import { z } from "zod";
import { findComponent, type Component, type ComponentType } from "../../agent/component.js";
import type { RunEvent } from "../../agent/events.js";
import { BadRequestError, ConflictError, ForbiddenError, NotConfiguredError, NotFoundError } from "../../errors.js";
import { firstEventFirst, followIds, keepAlive, numberedEvents } from "../../os/agent-runs.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../../os/auth/scopes.js";
import { cancelComponentRun, errorAnswers, readComponentRun, type RunnableComponent } from "../../os/component-runs.js";
import type { OSEnv } from "../../os/context.js";
import { defineRoute, handle, jsonAnswer, jsonBody, routeApp, idSchema } from "../../os/route.js";
import { sseResponse } from "../../os/sse.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import { agentCard } from "./a2a-card.js";
import { resolutionsOf, runInputOf } from "./a2a-input.js";
import { a2aStream, failedFrame, type A2AFrame, type StreamState } from "./a2a-stream.js";
import { taskOf, type RunLike } from "./a2a-task.js";
import {
  a2aEnvelope,
  a2aTaskAnswer,
  agentCardSchema,
  messageSendParams,
  rpcResult,
  taskParams,
  type A2AEnvelope,
  type A2AMethod,
  type A2AOutMessage,
} from "./a2a-wire.js";

const KINDS = [
  { type: "agent", plural: "agents", param: "agent_id", tag: "A2A" },
  { type: "team", plural: "teams", param: "team_id", tag: "A2A" },
  { type: "workflow", plural: "workflows", param: "workflow_id", tag: "A2A" },
] as const;
type Kind = (typeof KINDS)[number];

/** The four POST routes: their path's own method, and the action its scope names. */
const OPERATIONS: Array<{ path: string; method: A2AMethod; action: "run" | "read"; summary: string }> = [
  { path: "message:send", method: "message/send", action: "run", summary: "Send a message (A2A, JSON-RPC)" },
  { path: "message:stream", method: "message/stream", action: "run", summary: "Stream a message (A2A, SSE)" },
  { path: "tasks:get", method: "tasks/get", action: "read", summary: "Get a task (A2A)" },
  { path: "tasks:cancel", method: "tasks/cancel", action: "run", summary: "Cancel a task (A2A)" },
];

const ACTION_OF = Object.fromEntries(OPERATIONS.map((o) => [o.method, o.action])) as Record<A2AMethod, "run" | "read">;

/** `params` checked against `schema`: a 400 naming the field, as agno answers an invalid A2A request. */
function paramsOf<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = ["params", ...issue.path.map(String)].join(".");
  throw new BadRequestError(`Invalid A2A request: ${field}: ${issue.message}`);
}

/**
 * agno's A2A routes (`libs/agno/agno/os/interfaces/a2a/router.py`) for the components an A2A
 * interface serves: per agent, team and workflow, the agent card and the four JSON-RPC routes.
 * Each run goes through the instance the AgentOS serves, bound to the request's database.
 */
export function a2aRoutes(prefix: string, components: readonly Component[], deps: InterfaceRouteDeps) {
  const app = routeApp();

  /** The served instance of the `kind` component `id` this interface is in front of; else 404. */
  const componentFor = (c: Context<OSEnv>, type: ComponentType, id: string): Component => {
    const mine = components.some((x) => x.ref.type === type && x.ref.id === id);
    const served = mine ? findComponent(deps.served, { type, id }) : undefined;
    if (!served) throw new NotFoundError(`${type} ${id} not found`);
    const db = c.env.dbs[0];
    return db ? served.withDb(db) : served;
  };

  for (const kind of KINDS) {
    if (!components.some((x) => x.ref.type === kind.type)) continue;
    const base = `${prefix}/${kind.plural}/{${kind.param}}`;
    const pathParams = z.object({ [kind.param]: idSchema }) as z.ZodObject<Record<string, typeof idSchema>>;
    const card = defineRoute({
      method: "get",
      path: `${base}/.well-known/agent-card.json`,
      summary: `The A2A agent card of a ${kind.type}`,
      tags: [kind.tag],
      scope: { resource: kind.plural, action: "read", idParam: kind.param },
      request: { params: pathParams },
      responses: { 200: jsonAnswer(agentCardSchema, "The agent card"), ...errorAnswers(kind.type, 404) },
    });
    handle(app, card, (c) => {
      const id = c.req.param(kind.param)!;
      const component = componentFor(c, kind.type, id);
      const origin = new URL(c.req.url).origin;
      const endpoint = `${origin}${prefix}/${kind.plural}/${encodeURIComponent(id)}/v1/message:stream`;
      return c.json(agentCard(component, endpoint));
    });

    for (const op of OPERATIONS) {
      const route = defineRoute({
        method: "post",
        path: `${base}/v1/${op.path}`,
        summary: op.summary,
        description:
          `A JSON-RPC 2.0 request (A2A 0.3). \`method\` defaults to \`${op.method}\`; any of message/send, ` +
          "message/stream, tasks/get and tasks/cancel is taken here, with that method's scope (the card's url receives them all).",
        tags: [kind.tag],
        scope: { resource: kind.plural, action: op.action, idParam: kind.param },
        request: { params: pathParams, body: jsonBody(a2aEnvelope) },
        responses: {
          200: {
            description: "The JSON-RPC result (a Task), or for message/stream its SSE stream of results",
            content: { "application/json": { schema: a2aTaskAnswer }, "text/event-stream": {} },
          },
          ...errorAnswers(kind.type, 400, 404, 409, 503),
        },
      });
      handle(app, route, (c) => {
        const id = c.req.param(kind.param)!;
        const body = c.req.valid("json" as never) as A2AEnvelope;
        const method = body.method ?? op.method;
        // The route checked its own scope; a method other than the path's needs its own.
        if (!hasScope(principalOf(c), kind.plural, ACTION_OF[method], id))
          throw new ForbiddenError(`this needs the scope ${kind.plural}:${id}:${ACTION_OF[method]}`);
        const component = componentFor(c, kind.type, id);
        return dispatch(c, kind, component, method, body);
      });
    }
  }
  return app;
}

function dispatch(c: Context<OSEnv>, kind: Kind, component: Component, method: A2AMethod, body: A2AEnvelope) {
  switch (method) {
    case "message/send":
    case "message/stream":
      return sendMessage(c, component, body, method === "message/stream");
    case "tasks/get":
      return getTask(c, component, body);
    case "tasks/cancel":
      return cancelTask(c, kind, component, body);
  }
}

/** Who the run is for: the caller under isolation; otherwise the `X-User-ID` header or `metadata.userId` (agno's). */
function userAsked(c: Context<OSEnv>, metadata: Record<string, unknown> | undefined): string | undefined {
  const header = c.req.header("x-user-id");
  if (header) return header.slice(0, 255);
  return typeof metadata?.userId === "string" ? metadata.userId.slice(0, 255) : undefined;
}

function storedDb(component: Component) {
  if (!component.db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  return component.db;
}

async function sendMessage(c: Context<OSEnv>, component: Component, body: A2AEnvelope, stream: boolean) {
  const params = paramsOf(messageSendParams, body.params);
  const message = params.message;
  if (message.role !== "user") throw new BadRequestError("Only user messages are accepted");
  const asked = userAsked(c, message.metadata);
  const userId = effectiveUserId(c, asked);
  let events: AsyncGenerator<RunEvent, unknown>;
  const ids: { runId?: string; firstIndex?: number } = {};
  if (message.taskId) {
    // A follow-up of a task: it answers what the paused run waits for, and the run goes on.
    const db = storedDb(component);
    const run = (await readComponentRun(
      db,
      component.ref,
      message.taskId,
      readScope(c, asked),
      message.contextId,
    )) as unknown as RunLike;
    if (run.status !== "PAUSED")
      throw new ConflictError(
        `task ${message.taskId} is ${taskOf(run).status.state}: only an input-required task takes a follow-up; send a message without taskId to start a new task`,
      );
    if (!component.resume) throw new BadRequestError(`this ${component.ref.type} cannot continue a paused run`);
    events = component.resume(message.taskId, {
      resolutions: resolutionsOf(run, message),
      isAdmin: principalOf(c).admin,
      stream,
      ...(userId !== undefined ? { userId } : {}),
    });
    ids.runId = message.taskId;
    ids.firstIndex = (await db.lastRunEventIndex(message.taskId)) + 1;
  } else {
    const { text, media } = runInputOf(message);
    events = component.execute({
      message: text,
      stream,
      ...(message.contextId ? { sessionId: message.contextId } : {}),
      ...(userId !== undefined ? { userId } : {}),
      ...(media ? { media } : {}),
      ...(params.metadata ? { metadata: params.metadata } : {}),
    });
  }
  const userMessage: A2AOutMessage = {
    kind: "message",
    messageId: message.messageId,
    role: "user",
    parts: message.parts,
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
  if (!stream) {
    let next = await events.next();
    while (!next.done) next = await events.next();
    const run = next.value as RunLike;
    return c.json(rpcResult(body.id, taskOf(run, params.configuration?.historyLength)));
  }
  const state: StreamState = { taskId: message.taskId ?? "", contextId: message.contextId ?? "" };
  // Stored as they pass when there is a database, so `/…/runs/{id}/resume` re-attaches to an A2A run too.
  const known: { run_id?: string; session_id?: string } = {};
  const logged = numberedEvents(component, followIds(events, known), ids);
  const frames = a2aStream(
    (async function* () {
      for await (const { event } of logged) yield event as unknown as { event: string; run_id?: string };
    })(),
    state,
    userMessage,
  );
  const indexed = (async function* () {
    for await (const frame of frames) yield { event: frame };
  })();
  return sseResponse<A2AFrame>(await firstEventFirst(indexed), (error) => failedFrame(state, error), {
    finishInBackground: keepAlive(c) ?? (() => undefined),
    pingMs: c.env.ssePingMs,
    frame: (f) => `event: ${f.event}\ndata: ${JSON.stringify(rpcResult(body.id, f.result))}\n\n`,
  });
}

async function getTask(c: Context<OSEnv>, component: Component, body: A2AEnvelope) {
  const params = paramsOf(taskParams, body.params);
  const db = storedDb(component);
  const asked = userAsked(c, params.metadata);
  const run = await readComponentRun(db, component.ref, params.id, readScope(c, asked), params.contextId);
  return c.json(rpcResult(body.id, taskOf(run as unknown as RunLike, params.historyLength)));
}

async function cancelTask(c: Context<OSEnv>, kind: Kind, component: Component, body: A2AEnvelope) {
  const params = paramsOf(taskParams, body.params);
  const db = storedDb(component);
  const asked = userAsked(c, params.metadata);
  // Another user's task is not found, as the HTTP routes answer; only then is it cancelled.
  await readComponentRun(db, component.ref, params.id, readScope(c, asked), params.contextId);
  const runnable = component as unknown as Partial<RunnableComponent<unknown>>;
  if (typeof runnable.cancelRun !== "function") throw new BadRequestError(`a ${kind.type}'s tasks cannot be cancelled`);
  const { cancelled } = await cancelComponentRun(c, runnable as RunnableComponent<unknown>, params.id, asked);
  const run = (await readComponentRun(db, component.ref, params.id, readScope(c, asked))) as unknown as RunLike;
  if (!cancelled && run.status !== "CANCELLED")
    throw new ConflictError(`task ${params.id} is ${taskOf(run).status.state}: it has ended and cannot be canceled`);
  return c.json(rpcResult(body.id, taskOf(run)));
}
