import type { Context } from "hono";
import type { Agent } from "../agent/agent.js";
import { ownsRun, type Component, type ComponentRef, type ComponentType } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import { recordRunEvents, tailRunEvents, type IndexedEvent } from "../agent/event-log.js";
import { staleAfterSeconds } from "../agent/liveness.js";
import type { Db } from "../db/port.js";
import type { JobStore } from "../queue/types.js";
import type { RequirementResolution } from "../agent/hitl.js";
import type { ToolExecution } from "../agent/run-output.js";
import { ConflictError, NotConfiguredError, NotFoundError } from "../errors.js";
import { nowSeconds } from "../time.js";
import { publicError } from "../public-error.js";
import type { OSEnv } from "./context.js";

/*
 * What the run routes of agents, teams and workflows share, whichever transport carries the
 * events (SSE or WebSocket): finding the component, turning agno's continue payload into
 * resolutions, and numbering events.
 */

/** What the run routes need of a component: its identity, and itself storing through a database. */
export interface Served<T> {
  readonly ref: ComponentRef;
  readonly db?: Db;
  withDb(db: Db): T;
}

/** The `kind` of `list` a request names, bound to this request's database; else 404. */
export function componentFor<T extends Served<T>>(
  c: Context<OSEnv>,
  kind: ComponentType,
  list: readonly T[],
  id: string,
): T {
  const found = list.find((x) => x.ref.id === id);
  if (!found) throw new NotFoundError(`${kind} ${id} not found`);
  const db = c.env.dbs[0];
  return db ? found.withDb(db) : found;
}

/** `componentFor`, for routes that read storage: without a database they answer 503. */
export function storedComponent<T extends Served<T>>(
  c: Context<OSEnv>,
  kind: ComponentType,
  list: readonly T[],
  id: string,
) {
  const component = componentFor(c, kind, list, id);
  if (!component.db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  return { component, db: component.db };
}

/** The agent a request names, bound to this request's database. */
export function agentFor(c: Context<OSEnv>, agents: Agent[], agentId: string): Agent {
  return componentFor(c, "agent", agents, agentId);
}

export function storedAgent(c: Context<OSEnv>, agents: Agent[], agentId: string) {
  const { component: agent, db } = storedComponent(c, "agent", agents, agentId);
  return { agent, db };
}

/**
 * agno's `tools` list (full ToolExecution dicts, as its client sends them on continue) turned
 * into requirement resolutions: confirmed or not, user input from the schema's values, or the
 * result of an external execution.
 */
export function resolutionsFromTools(tools: Array<Partial<ToolExecution>>): RequirementResolution[] {
  return tools.flatMap((t): RequirementResolution[] => {
    if (!t.tool_call_id) return [];
    if (t.requires_confirmation)
      return [
        { id: t.tool_call_id, confirmed: t.confirmed === true, confirmation_note: t.confirmation_note ?? undefined },
      ];
    if (t.requires_user_input) {
      const input = Object.fromEntries(
        (t.user_input_schema ?? [])
          .filter((f) => f.value !== undefined && f.value !== null)
          .map((f) => [f.name, f.value]),
      );
      return [{ id: t.tool_call_id, user_input: input }];
    }
    if (t.external_execution_required && typeof t.result === "string")
      return [{ id: t.tool_call_id, external_execution_result: t.result }];
    return [];
  });
}

/**
 * The RunError a stream ends with when its source throws: the public form of the error
 * (publicError: no SQL, parameters or run content), under the run's ids. `ids` may be filled in
 * as the run's events pass (see `followIds`), so a run that failed after it started names itself.
 */
export function errorEvent(ids: { run_id?: string; session_id?: string; agent_id: string }) {
  return (error: unknown): RunEvent => {
    const shown = publicError(error, ids.run_id ? `run ${ids.run_id}` : `agent ${ids.agent_id}`);
    return {
      event: "RunError",
      run_id: ids.run_id ?? "",
      session_id: ids.session_id ?? "",
      agent_id: ids.agent_id,
      created_at: nowSeconds(),
      content: shown.message,
      error_type: shown.type,
      error_id: shown.errorId,
      ...(shown.kind ? { error_kind: shown.kind } : {}),
    };
  };
}

/**
 * `errorEvent` for any component: agno's error event of its kind (RunError, TeamRunError,
 * WorkflowError) under its identity fields, with the public form of the error.
 */
export function componentErrorEvent(ref: ComponentRef, ids: { run_id?: string; session_id?: string }) {
  return (error: unknown): { event: string; [field: string]: unknown } => {
    const shown = publicError(error, ids.run_id ? `run ${ids.run_id}` : `${ref.type} ${ref.id}`);
    const common = {
      run_id: ids.run_id ?? "",
      session_id: ids.session_id ?? "",
      created_at: nowSeconds(),
      error_type: shown.type,
      error_id: shown.errorId,
      ...(shown.kind ? { error_kind: shown.kind } : {}),
    };
    if (ref.type === "workflow")
      return { event: "WorkflowError", ...common, workflow_id: ref.id, workflow_name: ref.name, error: shown.message };
    if (ref.type === "team")
      return { event: "TeamRunError", ...common, team_id: ref.id, team_name: ref.name, content: shown.message };
    return { event: "RunError", ...common, agent_id: ref.id, content: shown.message };
  };
}

/** Passes a run's events through, noting its run and session ids in `ids` as they appear. */
export async function* followIds<E extends { run_id?: string; session_id?: string }>(
  events: AsyncIterable<E>,
  ids: { run_id?: string; session_id?: string },
): AsyncGenerator<E> {
  for await (const event of events) {
    if (event.run_id) ids.run_id = event.run_id;
    if (event.session_id) ids.session_id = event.session_id;
    yield event;
  }
}

/**
 * Pulls the first event before the response is committed: loading and validation (an unknown
 * run, another user's session) happen before it, so they answer a 4xx instead of a RunError
 * inside a 200 stream.
 */
export async function firstEventFirst<E>(events: AsyncIterable<E>): Promise<AsyncIterable<E>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value;
  })();
}

export async function* positioned<E>(events: AsyncIterable<E>, first = 0): AsyncGenerator<IndexedEvent<E>> {
  let index = first;
  for await (const event of events) yield { index: index++, event };
}

/**
 * Hands work that outlives the response (a run whose client left) to the runtime. With tracing
 * on, the request's spans are flushed again once that work settles: the response's own flush ran
 * when its stream ended, before the run's last spans did.
 */
export function keepAlive(c: Context<OSEnv>) {
  try {
    const ctx = c.executionCtx;
    const tracer = c.get("trace")?.tracer;
    if (!tracer) return (work: Promise<unknown>) => ctx.waitUntil(work);
    return (work: Promise<unknown>) => ctx.waitUntil(work.finally(() => tracer.flush()));
  } catch {
    return undefined; // no execution context (plain Node use): the work simply runs on
  }
}

/** A run's events, numbered; with a database they are stored as they pass, for `/resume`. */
export function numberedEvents<E extends { event: string; run_id?: string } = RunEvent>(
  agent: { readonly db?: Db },
  events: AsyncIterable<E>,
  ids: { runId?: string; firstIndex?: number },
): AsyncIterable<IndexedEvent<E>> {
  return agent.db
    ? recordRunEvents(agent.db, events, { runId: ids.runId, firstIndex: ids.firstIndex })
    : positioned(events, ids.firstIndex);
}

/** Where a continued run's events go on: after the ones its log already holds. */
export async function continueIndex(agent: { readonly db?: Db }, runId: string): Promise<number> {
  return agent.db ? (await agent.db.lastRunEventIndex(runId)) + 1 : 0;
}

/**
 * A continue's events and the log they belong to: the run's own, after what it holds; or, when
 * the continue forked (its first event names a new run), the new run's log, from its start.
 */
export async function continuedEvents<E extends { run_id?: string } = RunEvent>(
  agent: { readonly db?: Db },
  runId: string,
  source: AsyncIterable<E>,
): Promise<{ events: AsyncIterable<E>; ids: { runId: string; firstIndex: number } }> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  const events = (async function* () {
    if (first.done) return;
    yield first.value;
    for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value;
  })();
  const forkedTo = !first.done && first.value.run_id !== runId ? first.value.run_id : undefined;
  return forkedTo
    ? { events, ids: { runId: forkedTo, firstIndex: 0 } }
    : { events, ids: { runId, firstIndex: await continueIndex(agent, runId) } };
}

/**
 * Checks a run can be re-attached to (the caller sees it, it belongs to this component, it was
 * streamed) and returns the tail of its stored events after `after`. A run whose heartbeat
 * stopped (three of the component's beats) ends its tail with an `interrupted` RunError.
 */
export async function openResume(
  db: Db,
  agent: Pick<Component, "ref" | "heartbeatSeconds">,
  runId: string,
  scope: { userId?: string; includeShared?: boolean },
  after: number,
  signal?: AbortSignal,
  jobs?: Pick<JobStore, "jobForRun">,
) {
  const { type, id: agentId } = agent.ref;
  const run = await db.getRun(runId, scope);
  if (!run || !ownsRun(agent.ref, run as unknown as Record<string, unknown>))
    throw new NotFoundError(`run ${runId} not found`);
  const unstreamed = async () =>
    run.status !== "RUNNING" && run.status !== "PENDING"
      ? true
      : (await jobs?.jobForRun(runId))?.payload.stream === false;
  if ((await db.lastRunEventIndex(runId)) < 0 && (await unstreamed())) {
    throw new ConflictError(
      `run ${runId} was not streamed, so it has no events to resume: GET /${type}s/${agentId}/runs/${runId} reads it`,
    );
  }
  return {
    run,
    tail: tailRunEvents(db, runId, after, {
      signal,
      staleAfterSeconds: staleAfterSeconds(agent.heartbeatSeconds),
    }) as AsyncIterable<IndexedEvent<RunEvent>>,
  };
}
