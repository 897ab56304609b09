import type { Context } from "hono";
import { z } from "zod";
import { NotConfiguredError, NotFoundError } from "../../errors.js";
import { JOB_STATUSES, type JobRecord, type JobStore } from "../../queue/types.js";
import type { QueueConfig } from "../background.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, idSchema, routeApp } from "../route.js";

const tags: ["Queue"] = ["Queue"];
const admin = { resource: "agent_os", action: "admin" };
const jobPath = z.object({ job_id: idSchema });

const listJobs = defineRoute({
  method: "get",
  path: "/queue/jobs",
  tags,
  summary: "Background jobs, newest first",
  scope: admin,
  request: {
    query: z.object({
      status: z.enum(JOB_STATUSES as [string, ...string[]]).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(20),
      page: z.coerce.number().int().min(1).default(1),
    }),
  },
});
const getJob = defineRoute({
  method: "get",
  path: "/queue/jobs/{job_id}",
  tags,
  summary: "One background job",
  scope: admin,
  request: { params: jobPath },
});
const requeueJob = defineRoute({
  method: "post",
  path: "/queue/jobs/{job_id}/requeue",
  tags,
  summary: "Give a FAILED or CANCELLED job exactly one more attempt",
  scope: admin,
  request: { params: jobPath },
  responses: {
    200: { description: "The job, PENDING again" },
    409: { description: "The job is not FAILED or CANCELLED" },
  },
});
const cancelJob = defineRoute({
  method: "post",
  path: "/queue/jobs/{job_id}/cancel",
  tags,
  summary: "Cancel a job: a queued one never runs, a running one's run is cancelled cooperatively",
  scope: admin,
  request: { params: jobPath },
});
const stats = defineRoute({
  method: "get",
  path: "/queue/stats",
  tags,
  summary: "Jobs by status and the oldest wait",
  scope: admin,
});

/** The queue's storage for this request, or 503 when the deployment has no durable queue. */
function store(c: Context<OSEnv>, config: QueueConfig | undefined): JobStore {
  if (!config?.durable || !c.env.jobs)
    throw new NotConfiguredError(
      "this deployment has no durable queue: new AgentOS({ queue: { durable: true } }) with a database",
    );
  return c.env.jobs;
}

/** What a job looks like over HTTP: the row, with the run it runs named plainly. */
const view = (job: JobRecord) => ({
  ...job,
  run_id: job.payload.run_id,
  payload: { ...job.payload, media: job.payload.media?.map((m) => ({ mimeType: m.mimeType, filename: m.filename })) },
});

/** `/queue/*` (admin only): inspect, cancel and requeue background jobs (SPEC Q3). */
export function queueRoutes(config: QueueConfig | undefined) {
  const app = routeApp();
  handle(app, listJobs, async (c) => {
    const q = c.req.valid("query");
    const page = await store(c, config).listJobs({
      status: q.status as JobRecord["status"] | undefined,
      limit: q.limit,
      page: q.page,
    });
    return c.json({
      data: page.data.map(view),
      meta: {
        page: q.page,
        limit: q.limit,
        total_count: page.total_count,
        total_pages: Math.ceil(page.total_count / q.limit),
      },
    });
  });
  handle(app, getJob, async (c) => {
    const { job_id } = c.req.valid("param");
    const job = await store(c, config).getJob(job_id);
    if (!job) throw new NotFoundError(`job ${job_id} not found`);
    return c.json(view(job));
  });
  handle(app, requeueJob, async (c) => {
    const job = await store(c, config).requeueJob(c.req.valid("param").job_id);
    await c.env.queue?.wake();
    return c.json(view(job));
  });
  handle(app, cancelJob, async (c) => {
    const { job_id } = c.req.valid("param");
    const jobs = store(c, config);
    const result = await jobs.cancelJob(job_id);
    return c.json({ ...view((await jobs.getJob(job_id))!), cancelled: result !== "finished" });
  });
  handle(app, stats, async (c) => c.json(await store(c, config).queueStats()));
  return app;
}
