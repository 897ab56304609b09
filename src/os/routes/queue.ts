import type { Context } from "hono";
import { z } from "zod";
import { ConflictError, NotConfiguredError, NotFoundError } from "../../errors.js";
import type { JobRecord, JobStatus, JobStore, QueueStats } from "../../queue/types.js";
import type { QueueConfig } from "../background.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, jsonAnswer, idSchema, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  AGNO_JOB_STATUSES,
  queueJobListSchema,
  queueJobSchema,
  queueStatsSchema,
  type AgnoJobStatus,
} from "../wire/queue.js";

const tags: ["Queue"] = ["Queue"];
const admin = { resource: "agent_os", action: "admin" };
const jobPath = z.object({ job_id: idSchema.describe("The job's id: its run's run_id") });
const notFound = { 404: { description: "No such job" } };

/** agno's name of each of our job states; agno's `paused` has no counterpart here (a paused run's job has ended). */
const AGNO_STATUS: Record<JobStatus, AgnoJobStatus> = {
  PENDING: "queued",
  RUNNING: "running",
  COMPLETED: "completed",
  FAILED: "failed",
  CANCELLED: "cancelled",
};
const OUR_STATUS = Object.fromEntries(Object.entries(AGNO_STATUS).map(([ours, agno]) => [agno, ours])) as Partial<
  Record<AgnoJobStatus, JobStatus>
>;

const listJobs = defineRoute({
  method: "get",
  path: "/queue/jobs",
  tags,
  summary:
    "Background jobs, newest first unless sorted otherwise; `status` repeats to match any of several (failed alone: the dead letters)",
  description:
    "`sort_by` names a column of the jobs table (created_at, the default, updated_at, completed_at, status, attempt, component_type, component_id, user_id, …); an unknown one orders by id alone, as agno ignores it.",
  scope: admin,
  request: {
    query: z.object({
      status: z
        .union([z.enum(AGNO_JOB_STATUSES), z.array(z.enum(AGNO_JOB_STATUSES)).max(AGNO_JOB_STATUSES.length)])
        .optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(20),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z.string().max(64).default("created_at").describe("The column to sort by"),
      sort_order: z.enum(["asc", "desc"]).default("desc"),
    }),
  },
  responses: { 200: jsonAnswer(queueJobListSchema, "A page of jobs") },
});
const getJob = defineRoute({
  method: "get",
  path: "/queue/jobs/{job_id}",
  tags,
  summary: "One background job",
  scope: admin,
  request: { params: jobPath },
  responses: { 200: jsonAnswer(queueJobSchema, "The job"), ...notFound },
});
const requeueJob = defineRoute({
  method: "post",
  path: "/queue/jobs/{job_id}/requeue",
  tags,
  summary: "Give a failed or cancelled job exactly one more attempt",
  scope: admin,
  request: { params: jobPath },
  responses: {
    200: jsonAnswer(queueJobSchema, "The job, queued again"),
    ...notFound,
    409: { description: "The job is not failed or cancelled" },
  },
});
const cancelJob = defineRoute({
  method: "post",
  path: "/queue/jobs/{job_id}/cancel",
  tags,
  summary:
    "Cancel a job: a queued one never runs (cancelled), a running one's run is cancelled cooperatively (running, until it stops)",
  scope: admin,
  request: { params: jobPath },
  responses: {
    200: jsonAnswer(queueJobSchema, "The job once cancelled"),
    ...notFound,
    409: { description: "The job had already ended" },
  },
});
const stats = defineRoute({
  method: "get",
  path: "/queue/stats",
  tags,
  summary: "Jobs by status and how long the oldest queued one has waited",
  scope: admin,
  responses: { 200: jsonAnswer(queueStatsSchema, "The queue's health") },
});

/** The queue's storage for this request, or 503 when the deployment has no durable queue. */
function store(c: Context<OSEnv>, config: QueueConfig | undefined): JobStore {
  if (!config?.durable || !c.env.jobs)
    throw new NotConfiguredError(
      "this deployment has no durable queue: new AgentOS({ queue: { durable: true } }) with a database",
    );
  return c.env.jobs;
}

/**
 * The job a path names: agno's job id is its run's run_id, which is how clients know it; the
 * job's own row id (which the 202 of a background run also names) is found too.
 */
async function jobNamed(jobs: JobStore, id: string): Promise<JobRecord> {
  const job = (await jobs.getJob(id)) ?? (await jobs.jobForRun(id));
  if (!job) throw new NotFoundError(`job ${id} not found`);
  return job;
}

/** What a job looks like over HTTP: agno's QueueJobSchema, keyed by its run, uploads by name and type only. */
const view = (job: JobRecord): z.infer<typeof queueJobSchema> => ({
  id: job.payload.run_id ?? job.id,
  component_type: job.component_type,
  component_id: job.component_id,
  session_id: job.session_id ?? "",
  job_type: job.job_type,
  user_id: job.user_id,
  payload: {
    ...job.payload,
    ...(job.payload.media && {
      media: job.payload.media.map((m) => ({ mimeType: m.mimeType, filename: m.filename })),
    }),
  },
  status: AGNO_STATUS[job.status],
  attempt: job.attempt,
  max_attempts: job.max_attempts,
  idempotency_key: job.idempotency_key,
  available_at: job.available_at,
  locked_by: job.locked_by,
  locked_at: job.locked_at,
  error: job.error,
  created_at: job.created_at,
  updated_at: job.updated_at,
  completed_at: job.completed_at,
});

/** agno's stats: counts of the states some job is in, and the oldest queued job's wait (null when none waits). */
function statsView(s: QueueStats): z.infer<typeof queueStatsSchema> {
  const counts = Object.fromEntries(
    (Object.keys(AGNO_STATUS) as JobStatus[])
      .map((ours) => [AGNO_STATUS[ours], s[ours.toLowerCase() as Lowercase<JobStatus>]] as const)
      .filter(([, n]) => n > 0),
  );
  return { counts, oldest_queued_age_seconds: s.pending > 0 ? s.oldest_pending_age_seconds : null };
}

/** `/queue/*` (admin only): inspect, cancel and requeue background jobs, in agno's shapes (SPEC Q3). */
export function queueRoutes(config: QueueConfig | undefined) {
  const app = routeApp();
  handle(app, listJobs, async (c) => {
    const q = c.req.valid("query");
    const asked = q.status === undefined ? [] : [...new Set([q.status].flat())];
    const jobs = store(c, config);
    // agno's `paused` has no job here: asked alone, it matches nothing.
    const statuses = asked.flatMap((s) => OUR_STATUS[s] ?? []);
    const page = await jobs.listJobs({
      ...(asked.length > 0 && { statuses }),
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    return c.json({
      data: page.data.map(view),
      meta: paginationInfo({ page: q.page, limit: q.limit, total_count: page.total_count }),
    });
  });
  handle(app, getJob, async (c) => c.json(view(await jobNamed(store(c, config), c.req.valid("param").job_id))));
  handle(app, requeueJob, async (c) => {
    const jobs = store(c, config);
    const job = await jobs.requeueJob((await jobNamed(jobs, c.req.valid("param").job_id)).id);
    await c.env.queue?.wake();
    return c.json(view(job));
  });
  handle(app, cancelJob, async (c) => {
    const jobs = store(c, config);
    const { id } = await jobNamed(jobs, c.req.valid("param").job_id);
    const result = await jobs.cancelJob(id);
    const job = await jobNamed(jobs, id);
    if (result === "finished")
      throw new ConflictError(`job ${job.payload.run_id ?? job.id} had already ended (${AGNO_STATUS[job.status]})`);
    return c.json(view(job));
  });
  handle(app, stats, async (c) => c.json(statsView(await store(c, config).queueStats())));
  return app;
}
