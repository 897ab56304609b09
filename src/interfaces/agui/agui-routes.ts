import type { Context } from "hono";
import { z } from "zod";
import { findComponent, type Component } from "../../agent/component.js";
import type { RunEvent } from "../../agent/events.js";
import type { RunOutput } from "../../agent/run-output.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { continuedEvents, firstEventFirst, keepAlive, numberedEvents } from "../../os/agent-runs.js";
import { effectiveUserId, principalOf } from "../../os/auth/scopes.js";
import type { OSEnv } from "../../os/context.js";
import { defineRoute, errorSchema, handle, jsonAnswer, jsonBody, routeApp } from "../../os/route.js";
import { publicError } from "../../public-error.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import { AguiTranslator, type AguiEvent } from "./agui-events.js";
import {
  dependenciesOf,
  runAgentInput,
  stateOf,
  trailingToolMessages,
  userInputOf,
  type RunAgentInput,
} from "./agui-input.js";
import { pausedRunAnswered, resolutionsFrom } from "./agui-resume.js";
import { aguiResponse } from "./agui-sse.js";
import type { AGUI } from "./agui.js";
import { clientTools } from "./client-tools.js";

/**
 * AG-UI's two routes (agno's attach_routes): `POST {prefix}/agui` runs the component with a
 * RunAgentInput and streams AG-UI events; `GET {prefix}/status` says the interface is there.
 * The run is the AgentOS's own component bound to the request's database, under the caller's
 * user, so the thread (a session) is theirs alone.
 */
export function aguiRoutes(iface: AGUI, deps: InterfaceRouteDeps) {
  const app = routeApp();
  const ref = iface.component.ref;
  const family = ref.type === "team" ? "teams" : "agents";
  const run = defineRoute({
    method: "post",
    path: `${iface.prefix}/agui`,
    tags: ["AGUI"],
    summary: "Run the agent or team with AG-UI",
    description:
      "Takes AG-UI's RunAgentInput (threadId is the session, the last user message the input, the frontend's tools run by the frontend) and streams AG-UI events as SSE. Messages that end in tool results continue the paused run that waits on them.",
    scope: { resource: family, action: "run", instance: ref.id },
    request: { body: jsonBody(runAgentInput) },
    responses: {
      200: { description: "AG-UI events", content: { "text/event-stream": {} } },
      400: jsonAnswer(errorSchema, "The input cannot be run as sent"),
      404: jsonAnswer(errorSchema, "The thread, or the paused run the tool results answer, is not the caller's"),
      409: jsonAnswer(errorSchema, "The run id is taken, or the run is not paused"),
      503: jsonAnswer(errorSchema, "No database, or it does not answer"),
    },
  });
  const status = defineRoute({
    method: "get",
    path: `${iface.prefix}/status`,
    tags: ["AGUI"],
    summary: "Whether the AG-UI interface is available",
    scope: null,
    responses: { 200: jsonAnswer(z.object({ status: z.literal("available") }), "Available") },
  });

  handle(app, status, (c) => c.json({ status: "available" as const }));

  handle(app, run, async (c) => {
    const input = c.req.valid("json") as RunAgentInput;
    const component = served(c, deps.served, iface.component);
    const userId = effectiveUserId(c, forwardedUserId(input.forwardedProps));
    const state = stateOf(input.state);
    const box: RunBox = {};
    const translator = new AguiTranslator({ threadId: input.threadId, runId: input.runId }, state, () => box.state);
    const events = await runEvents(c, component, input, userId, state, box);
    const agui = translated(await firstEventFirst(events), translator, box);
    return aguiResponse(agui, (error) => translator.error(publicError(error, `run ${input.runId}`).message), {
      finishInBackground: keepAlive(c) ?? (() => undefined),
      pingMs: c.env.ssePingMs,
    });
  });
  return app;
}

/** The AgentOS's instance of the interface's component, storing through this request's database. */
function served(c: Context<OSEnv>, list: readonly Component[], given: Component): Component {
  const found = findComponent(list, given.ref) ?? given;
  const db = c.env.dbs[0];
  return db ? found.withDb(db) : found;
}

/** The user a client names in forwardedProps (taken only where the caller may name users: isolation decides). */
function forwardedUserId(props: unknown): string | undefined {
  const named = (props as { user_id?: unknown } | null | undefined)?.user_id;
  return typeof named === "string" && named !== "" ? named : undefined;
}

/** What the route keeps of the run: its final output, and its live session state while it runs. */
interface RunBox {
  output?: RunOutput;
  state?: Record<string, unknown>;
}

/**
 * The run's events, stored as they pass (so `/resume` can re-attach): a new run from the last
 * user message, or, when the messages end in tool results, the paused run they answer, continued.
 */
async function runEvents(
  c: Context<OSEnv>,
  component: Component,
  input: RunAgentInput,
  userId: string | undefined,
  state: Record<string, unknown> | undefined,
  box: RunBox,
): Promise<AsyncIterable<RunEvent>> {
  const tools = clientTools(input.tools);
  // With the frontend's state, the route reads the run's (a STATE_DELTA after each tool call).
  const watch = state !== undefined ? { onSessionState: (live: Record<string, unknown>) => (box.state = live) } : {};
  const toolMessages = trailingToolMessages(input.messages);
  if (toolMessages.length > 0) {
    if (!component.resume) throw new NotFoundError(`${component.ref.type} ${component.ref.id} cannot be continued`);
    const paused = await pausedRunAnswered(component, input.threadId, toolMessages, userId);
    const source = component.resume(paused.run_id, {
      resolutions: resolutionsFrom(paused.requirements ?? [], toolMessages),
      ...(userId !== undefined ? { userId } : {}),
      isAdmin: principalOf(c).admin,
      stream: true,
      clientTools: tools,
      ...watch,
    });
    const { events, ids } = await continuedEvents(component, paused.run_id, keepOutput(source, box));
    return unindexed(numberedEvents(component, events, ids));
  }
  const message = userInputOf(input.messages);
  if (message.trim() === "") throw new ValidationError("messages: there is no user message to answer", "messages");
  const dependencies = dependenciesOf(input.context);
  const source = component.execute({
    message,
    runId: input.runId,
    sessionId: input.threadId,
    ...(userId !== undefined ? { userId } : {}),
    ...(state !== undefined ? { sessionState: state } : {}),
    ...(dependencies ? { dependencies } : {}),
    stream: true,
    clientTools: tools,
    ...watch,
  });
  return unindexed(numberedEvents(component, keepOutput(source, box), { runId: input.runId }));
}

/** Passes the run's events on, keeping its final output (the generator's return value) in `box`. */
async function* keepOutput(
  source: AsyncGenerator<RunEvent, RunOutput>,
  box: { output?: RunOutput },
): AsyncGenerator<RunEvent> {
  box.output = yield* source;
}

async function* unindexed<E>(events: AsyncIterable<{ event: E }>): AsyncGenerator<E> {
  for await (const { event } of events) yield event;
}

async function* translated(
  events: AsyncIterable<RunEvent>,
  translator: AguiTranslator,
  box: { output?: RunOutput },
): AsyncGenerator<AguiEvent> {
  yield* translator.start();
  for await (const event of events) yield* translator.event(event);
  yield* translator.finish(box.output);
}
