import type { Context } from "hono";
import { z } from "zod";
import type { ComponentRef, ComponentType } from "../agent/component.js";
import { ownsRun } from "../agent/component.js";
import type { Db } from "../db/port.js";
import { NotFoundError } from "../errors.js";
import {
  componentErrorEvent,
  firstEventFirst,
  followIds,
  keepAlive,
  numberedEvents,
  openResume,
  storedComponent,
  type Served,
} from "./agent-runs.js";
import { effectiveUserId, readScope } from "./auth/scopes.js";
import type { OSEnv } from "./context.js";
import { lastEventIdOf, bodyOf, resumeRequest } from "./run-input.js";
import { sseResponse } from "./sse.js";
import { agnoErrorSchema } from "./wire/errors.js";

/*
 * What the team and workflow run routes share with each other (the agent routes' helpers in
 * agent-runs.ts, generalised to any component): error answers, reading one of the component's
 * stored runs, streaming a run as SSE, cancelling and re-attaching.
 */

export const jsonOf = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** agno's error answers, by status, as a route declares the ones it gives. */
export function errorAnswers(what: string, ...statuses: Array<400 | 404 | 409 | 429 | 503>) {
  const text = {
    400: "The request cannot be done as asked",
    404: `The ${what}, session or run does not exist, or is not the caller's`,
    409: "The run is not in a state that allows this",
    429: "The queue is full: retry after Retry-After",
    503: "No database, or it does not answer",
  };
  return Object.fromEntries(statuses.map((s) => [s, jsonOf(agnoErrorSchema, text[s])]));
}

/** A run answer: its output as JSON (stream=false) or its events as SSE. */
export const runAnswer = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema }, "text/event-stream": {} },
});

/** What a component with runs offers the routes (an Agent, a Team, a Workflow). */
export interface RunnableComponent<T> extends Served<T> {
  readonly heartbeatSeconds: number;
  cancelRun(runId: string, opts?: { userId?: string }): Promise<boolean>;
}

/** The stored run `runId` of `ref`, readable by the caller and (when named) in `sessionId`; else 404. */
export async function readComponentRun(
  db: Db,
  ref: ComponentRef,
  runId: string,
  scope: { userId?: string; includeShared?: boolean },
  sessionId?: string,
): Promise<Record<string, unknown>> {
  const row = await db.getRun(runId, scope);
  if (
    !row ||
    !ownsRun(ref, row as unknown as Record<string, unknown>) ||
    (sessionId !== undefined && row.session_id !== sessionId)
  )
    throw new NotFoundError(`run ${runId} not found`);
  return row.run_data as unknown as Record<string, unknown>;
}

/**
 * Streams a run of `component` as SSE, numbered as an agent's are; with a database its events
 * are stored as they pass, for `/resume`. The first event is pulled before the answer is
 * committed, so a bad request is a 4xx rather than an error inside a 200 stream.
 */
export async function streamComponentRun<E extends { event: string; run_id?: string; session_id?: string }>(
  c: Context<OSEnv>,
  component: { readonly ref: ComponentRef; readonly db?: Db },
  events: AsyncIterable<E>,
  ids: { runId?: string; sessionId?: string; firstIndex?: number },
) {
  const known = { run_id: ids.runId, session_id: ids.sessionId };
  const indexed = numberedEvents(component, followIds(events, known), ids);
  const onError = componentErrorEvent(component.ref, known) as (error: unknown) => E;
  return sseResponse(await firstEventFirst(indexed), onError, {
    finishInBackground: keepAlive(c) ?? (() => undefined),
    pingMs: c.env.ssePingMs,
  });
}

/** Cancels a run of the component (and its queued job, so it never starts): `{run_id, cancelled}`. */
export async function cancelComponentRun<T>(
  c: Context<OSEnv>,
  component: RunnableComponent<T>,
  runId: string,
  userIdAsked: string | undefined,
) {
  const userId = effectiveUserId(c, userIdAsked);
  const cancelled = await component.cancelRun(runId, userId !== undefined ? { userId } : {});
  const job = cancelled && c.env.jobs ? await c.env.jobs.jobForRun(runId) : null;
  if (job) await c.env.jobs!.cancelJob(job.id);
  return { run_id: runId, cancelled };
}

/** `/resume`: the run's stored events after the client's last one, then the live ones. */
export async function resumeComponentRun<T extends RunnableComponent<T>>(
  c: Context<OSEnv>,
  kind: ComponentType,
  list: readonly T[],
  id: string,
  runId: string,
) {
  const { component, db } = storedComponent(c, kind, list, id);
  const body = c.req.header("content-type") ? bodyOf(c, resumeRequest) : {};
  const after = body.last_event_index ?? lastEventIdOf(c.req.header("last-event-id")) ?? -1;
  const { run, tail } = await openResume(
    db,
    component,
    runId,
    readScope(c, body.user_id),
    after,
    c.req.raw.signal,
    c.env.jobs,
  );
  return sseResponse(tail, componentErrorEvent(component.ref, { run_id: runId, session_id: run.session_id }) as never, {
    pingMs: c.env.ssePingMs,
  });
}

/**
 * A background run's acceptance (202 for stream=false), or its events streamed as the queue
 * runs it, wherever that is: the same tail `/resume` serves.
 */
export async function acceptedOrTail<T extends RunnableComponent<T>>(
  c: Context<OSEnv>,
  component: T,
  job: { id: string; session_id: string | null; payload: { run_id: string } },
  status: string,
  stream: boolean | undefined,
  userIdAsked: string | undefined,
) {
  const accepted = { run_id: job.payload.run_id, session_id: job.session_id ?? "", status, job_id: job.id };
  if (stream === false) return c.json(accepted, 202);
  const { tail } = await openResume(
    component.db!,
    component,
    accepted.run_id,
    readScope(c, userIdAsked),
    -1,
    c.req.raw.signal,
  );
  return sseResponse(
    tail,
    componentErrorEvent(component.ref, { run_id: accepted.run_id, session_id: accepted.session_id }) as never,
    { pingMs: c.env.ssePingMs },
  );
}
