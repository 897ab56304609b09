import type { Context } from "hono";
import { z } from "zod";
import { findComponent, type Component } from "../../agent/component.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import { ConflictError, ForbiddenError, NotConfiguredError, NotFoundError, ValidationError } from "../../errors.js";
import { triggerSchedule } from "../../scheduler/dispatch.js";
import type { Page } from "../../db/types.js";
import type { Schedule, ScheduleRun, ScheduleScope } from "../../scheduler/types.js";
import { scheduleCreateSchema, scheduleTarget } from "../../scheduler/validate.js";
import { userCaps, type QueueConfig } from "../background.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, jsonAnswer, idSchema, jsonBody, jsonObject, routeApp } from "../route.js";
import { dbFor } from "./sessions.js";
import { publishedStoredExists } from "../stored-agents.js";
import { recordAudit } from "../audit.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  scheduleListSchema,
  scheduleResponseSchema,
  scheduleRunListSchema,
  scheduleRunResponseSchema,
  scheduleStateResponseSchema,
} from "../wire/schedules.js";

const tags: ["Schedules"] = ["Schedules"];
const read = { resource: "schedules", action: "read", idParam: "schedule_id" };
const write = { resource: "schedules", action: "write", idParam: "schedule_id" };
const schedulePath = z.object({ schedule_id: idSchema });
/** The spellings of a boolean query parameter agno (pydantic) reads. */
const TRUE_WORDS = ["true", "1", "yes", "on", "t", "y"] as const;
const FALSE_WORDS = ["false", "0", "no", "off", "f", "n"] as const;
const runPath = z.object({ schedule_id: idSchema, run_id: idSchema });
/** Admins (or callers without isolation) may name the user whose schedules they mean. */
const userQuery = z.object({ user_id: idSchema.optional() });
const pageQuery = userQuery.extend({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(100),
  page: z.coerce.number().int().min(1).default(1),
});
const notFound = { 404: { description: "No such schedule for this caller" } };
const action = (verb: string, summary: string, responses: Record<number, object>) =>
  defineRoute({
    method: "post",
    path: `/schedules/{schedule_id}/${verb}`,
    tags,
    summary,
    scope: write,
    request: { params: schedulePath, query: userQuery },
    responses: { ...notFound, ...responses },
  });

const listSchedules = defineRoute({
  method: "get",
  path: "/schedules",
  tags,
  summary: "The caller's schedules, newest first (a page)",
  scope: { resource: "schedules", action: "read" },
  request: { query: pageQuery.extend({ enabled: z.enum([...TRUE_WORDS, ...FALSE_WORDS]).optional() }) },
  responses: { 200: jsonAnswer(scheduleListSchema, "A page of schedules") },
});
const createSchedule = defineRoute({
  method: "post",
  path: "/schedules",
  tags,
  summary:
    "Create a schedule: a cron expression (5 fields, IANA timezone) that starts runs of an agent, team or workflow, or evals (`/eval-runs`)",
  scope: { resource: "schedules", action: "write" },
  request: { query: userQuery, body: jsonBody(scheduleCreateSchema) },
  responses: {
    201: jsonAnswer(scheduleResponseSchema, "Created"),
    409: { description: "The owner already has a schedule of this name" },
    429: { description: "The owner holds as many schedules as one user may" },
  },
});
const getSchedule = defineRoute({
  method: "get",
  path: "/schedules/{schedule_id}",
  tags,
  summary: "One schedule",
  scope: read,
  request: { params: schedulePath, query: userQuery },
  responses: { 200: jsonAnswer(scheduleResponseSchema, "The schedule"), ...notFound },
});
const updateSchedule = defineRoute({
  method: "patch",
  path: "/schedules/{schedule_id}",
  tags,
  summary:
    "Change a schedule (only name, description, method, endpoint, payload, cron_expr, timezone, timeout_seconds, max_retries, retry_delay_seconds, enabled, next_run_at, disabled_reason)",
  scope: write,
  request: { params: schedulePath, query: userQuery, body: jsonBody(jsonObject) },
  responses: {
    200: jsonAnswer(scheduleResponseSchema, "The schedule as changed"),
    ...notFound,
    409: { description: "The owner already has a schedule of the new name" },
  },
});
const deleteSchedule = defineRoute({
  method: "delete",
  path: "/schedules/{schedule_id}",
  tags,
  summary: "Delete a schedule and its run history (runs already queued still run)",
  scope: { resource: "schedules", action: "delete", idParam: "schedule_id" },
  request: { params: schedulePath, query: userQuery },
  responses: { 204: { description: "Deleted" }, ...notFound },
});
const enable = action(
  "enable",
  "Enable a schedule: next_run_at moves to its next occurrence, disabled_reason is cleared",
  { 200: jsonAnswer(scheduleStateResponseSchema, "The schedule's state") },
);
const disable = action("disable", "Disable a schedule: no more occurrences until it is enabled", {
  200: jsonAnswer(scheduleStateResponseSchema, "The schedule's state"),
});
const trigger = action("trigger", "Run a schedule once now, as a background run with its retries and timeout", {
  200: jsonAnswer(scheduleRunResponseSchema, "The recorded attempt"),
  409: { description: "The schedule is disabled" },
});
const listRuns = defineRoute({
  method: "get",
  path: "/schedules/{schedule_id}/runs",
  tags,
  summary: "A schedule's attempts, newest first (a page)",
  scope: read,
  request: { params: schedulePath, query: pageQuery },
  responses: { 200: jsonAnswer(scheduleRunListSchema, "A page of attempts"), ...notFound },
});
const getRun = defineRoute({
  method: "get",
  path: "/schedules/{schedule_id}/runs/{run_id}",
  tags,
  summary: "One attempt of a schedule",
  scope: read,
  request: { params: runPath, query: userQuery },
  responses: { 200: jsonAnswer(scheduleRunResponseSchema, "The attempt"), ...notFound },
});

type ScheduleView = z.infer<typeof scheduleResponseSchema>;
type RunView = z.infer<typeof scheduleRunResponseSchema>;

/** A schedule over HTTP: agno's ScheduleResponse (no lock, no provenance of the runs that wrote it). */
const view = (s: Schedule): ScheduleView => ({
  id: s.id,
  user_id: s.user_id,
  name: s.name,
  description: s.description,
  method: s.method,
  endpoint: s.endpoint,
  payload: s.payload,
  cron_expr: s.cron_expr,
  timezone: s.timezone,
  timeout_seconds: s.timeout_seconds,
  max_retries: s.max_retries,
  retry_delay_seconds: s.retry_delay_seconds,
  enabled: s.enabled,
  next_run_at: s.next_run_at,
  managed_by: s.managed_by,
  target_type: s.target_type,
  target_id: s.target_id,
  disabled_reason: s.disabled_reason,
  created_at: s.created_at,
  updated_at: s.updated_at,
});
/** What enable and disable answer: agno's trimmed ScheduleStateResponse. */
const stateView = (s: Schedule): z.infer<typeof scheduleStateResponseSchema> => ({
  id: s.id,
  name: s.name,
  enabled: s.enabled,
  next_run_at: s.next_run_at,
  updated_at: s.updated_at,
});
/** An attempt over HTTP: agno's ScheduleRunResponse (the job, occurrence and retry bookkeeping stay inside). */
const runView = (r: ScheduleRun): RunView => ({
  id: r.id,
  schedule_id: r.schedule_id,
  user_id: r.user_id,
  attempt: r.attempt,
  triggered_at: r.triggered_at,
  completed_at: r.completed_at,
  status: r.status,
  status_code: r.status_code,
  run_id: r.run_id,
  session_id: r.session_id,
  error: r.error,
  input: r.input,
  output: r.output,
  requirements: r.requirements as RunView["requirements"],
  created_at: r.created_at,
});
/** A schedule's version in the audit trail: its `updated_at`, which every write to it moves. */
const version = (s: Schedule): string => String(s.updated_at);
const audited = (c: Context<OSEnv>, action: string, id: string, before: Schedule | null, after: Schedule | null) =>
  recordAudit(c, {
    action,
    resource_type: "schedule",
    resource_id: id,
    before_version: before && version(before),
    after_version: after && version(after),
    details: { name: (after ?? before)?.name ?? null },
  });
const pageView = <T, V>(p: Page<T>, item: (t: T) => V) => ({ data: p.data.map(item), meta: paginationInfo(p) });

/**
 * The target must be a component this AgentOS serves (an agent, a team or a workflow), or a stored
 * one with a published version the caller may see (each occurrence runs its current published
 * version); and, since its runs will start without the caller present, the caller must be allowed
 * to run it now (as agno requires `agents:run`). An eval schedule (`/eval-runs`) evaluates a
 * code-defined agent or team, as `POST /eval-runs` does, and needs `evals:write`.
 */
async function checkTarget(
  c: Context<OSEnv>,
  components: readonly Component[],
  endpoint: string,
  payload: Record<string, unknown> | null,
): Promise<void> {
  const target = scheduleTarget(endpoint, payload);
  const ref = target.ref;
  if (target.kind === "eval") {
    if (!findComponent(components, ref))
      throw new ValidationError(`payload: ${ref.type} ${ref.id} is not served by this AgentOS`, "payload");
    if (!hasScope(principalOf(c), "evals", "write"))
      throw new ForbiddenError("scheduling evals needs the scope evals:write");
    return;
  }
  if (!findComponent(components, ref) && !(await publishedStoredExists(c, ref)))
    throw new ValidationError(`endpoint: ${ref.type} ${ref.id} is not served by this AgentOS`, "endpoint");
  const resource = `${ref.type}s`;
  if (!hasScope(principalOf(c), resource, "run", ref.id))
    throw new ForbiddenError(`scheduling runs of ${ref.type} ${ref.id} needs the scope ${resource}:${ref.id}:run`);
}

/** The durable queue's storage and wake-up; a schedule nobody could ever run is refused, not stored to sit idle. */
function durableQueue(c: Context<OSEnv>, queue: QueueConfig | undefined) {
  const { jobs, queue: wake } = c.env;
  if (!queue?.durable || !jobs)
    throw new NotConfiguredError(
      "schedules run on the durable queue: new AgentOS({ queue: { durable: true } }) with a database",
    );
  return {
    jobs,
    maxDepth: queue.maxDepth,
    maxUserJobs: userCaps(queue).maxJobsPerUser,
    wake: wake && (() => wake.wake()),
  };
}

/** `/schedules/*` in agno's paths (SPEC SC1-SC2, U1): every call is scoped to the caller's user. */
export function scheduleRoutes(agents: readonly Component[], queue: QueueConfig | undefined) {
  const app = routeApp();
  const store = (c: Context<OSEnv>) => dbFor(c).schedules;
  const mine = (c: Context<OSEnv>, requested?: string) => ({ userId: effectiveUserId(c, requested) });
  const found = async (c: Context<OSEnv>, id: string, scope: ScheduleScope) => {
    const schedule = await store(c).getSchedule(id, scope);
    if (!schedule) throw new NotFoundError(`schedule ${id} not found`);
    return schedule;
  };

  handle(app, listSchedules, async (c) => {
    const q = c.req.valid("query");
    const enabled = q.enabled === undefined ? undefined : (TRUE_WORDS as readonly string[]).includes(q.enabled);
    const page = await store(c).listSchedules({ enabled, limit: q.limit, page: q.page }, readScope(c, q.user_id));
    return c.json(pageView(page, view));
  });
  handle(app, createSchedule, async (c) => {
    durableQueue(c, queue);
    const body = c.req.valid("json");
    await checkTarget(c, agents, body.endpoint, body.payload ?? null);
    const owner = effectiveUserId(c, c.req.valid("query").user_id) ?? principalOf(c).userId ?? null;
    const created = await store(c).createSchedule(
      body,
      { userId: owner },
      { maxPerUser: userCaps(queue).maxSchedulesPerUser },
    );
    await audited(c, "create", created.id, null, created);
    return c.json(view(created), 201);
  });
  handle(app, getSchedule, async (c) =>
    c.json(view(await found(c, c.req.valid("param").schedule_id, readScope(c, c.req.valid("query").user_id)))),
  );
  handle(app, updateSchedule, async (c) => {
    const { schedule_id } = c.req.valid("param");
    const changes = c.req.valid("json");
    const scope = mine(c, c.req.valid("query").user_id);
    const before = await store(c).getSchedule(schedule_id, scope);
    if (typeof changes.endpoint === "string" || (before && changes.payload !== undefined))
      await checkTarget(
        c,
        agents,
        typeof changes.endpoint === "string" ? changes.endpoint : before!.endpoint,
        changes.payload !== undefined ? (changes.payload as Record<string, unknown> | null) : (before?.payload ?? null),
      );
    const after = await store(c).updateSchedule(schedule_id, changes, scope);
    await audited(c, "update", schedule_id, before, after);
    return c.json(view(after));
  });
  handle(app, deleteSchedule, async (c) => {
    const { schedule_id } = c.req.valid("param");
    const scope = mine(c, c.req.valid("query").user_id);
    const before = await store(c).getSchedule(schedule_id, scope);
    await store(c).deleteSchedule(schedule_id, scope);
    await audited(c, "delete", schedule_id, before, null);
    return c.body(null, 204);
  });
  handle(app, enable, async (c) => {
    const { schedule_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const before = await found(c, schedule_id, mine(c, q.user_id));
    await checkTarget(c, agents, before.endpoint, before.payload);
    const after = await store(c).enableSchedule(schedule_id, mine(c, q.user_id));
    await audited(c, "enable", schedule_id, before, after);
    return c.json(stateView(after));
  });
  handle(app, disable, async (c) => {
    const { schedule_id } = c.req.valid("param");
    const scope = mine(c, c.req.valid("query").user_id);
    const before = await store(c).getSchedule(schedule_id, scope);
    const after = await store(c).disableSchedule(schedule_id, scope);
    await audited(c, "disable", schedule_id, before, after);
    return c.json(stateView(after));
  });
  handle(app, trigger, async (c) => {
    const schedule = await found(c, c.req.valid("param").schedule_id, mine(c, c.req.valid("query").user_id));
    if (!schedule.enabled) throw new ConflictError(`schedule ${schedule.id} is disabled: enable it first`);
    await checkTarget(c, agents, schedule.endpoint, schedule.payload);
    return c.json(runView(await triggerSchedule({ ...durableQueue(c, queue), schedules: store(c) }, schedule)));
  });
  handle(app, listRuns, async (c) => {
    const q = c.req.valid("query");
    const page = await store(c).listScheduleRuns(
      c.req.valid("param").schedule_id,
      { limit: q.limit, page: q.page },
      readScope(c, q.user_id),
    );
    return c.json(pageView(page, runView));
  });
  handle(app, getRun, async (c) => {
    const { schedule_id, run_id } = c.req.valid("param");
    const run = await store(c).getScheduleRun(schedule_id, run_id, readScope(c, c.req.valid("query").user_id));
    if (!run) throw new NotFoundError(`run ${run_id} of schedule ${schedule_id} not found`);
    return c.json(runView(run));
  });
  return app;
}
