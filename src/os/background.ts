import type { Component } from "../agent/component.js";
import { portableMedia, type MediaInput } from "../agent/media.js";
import { BadRequestError, NotConfiguredError, ValidationError } from "../errors.js";
import type { JobRecord } from "../queue/types.js";
import type { JobQueueLimits } from "../queue/job-enqueuer.js";
import { runJobInput, runJobPayload } from "../queue/run-job-input.js";
import type { RequestServices } from "./context.js";
import { sha256Hex } from "../sha256.js";
import type { ReplyTarget } from "../interfaces/reply-target.js";

/** `new AgentOS({queue: {durable: true}})`: background runs survive crashes and deploys. */
export interface QueueConfig {
  durable: true;
  /** jobs waiting or running before new ones get 429 (default 10,000) */
  maxDepth?: number;
  /** attempts per job, the first included (default 3) */
  maxAttempts?: number;
  /**
   * Jobs one user may have waiting or running (default 1,000: a tenth of the default depth, so no
   * one user fills the queue, while a single-tenant deployment, whose callers are often all the
   * shared principal of those without a user, keeps room for bursts): the next is a 429 for that
   * user only. Scheduled runs count too: an occurrence past the cap is a failed attempt, not a job.
   */
  maxJobsPerUser?: number;
  /** schedules one user may own (default 100; no owner is one shared principal) */
  maxSchedulesPerUser?: number;
}

/** The per-user caps a QueueConfig sets, with their defaults. */
export function userCaps(config: QueueConfig | undefined): { maxJobsPerUser: number; maxSchedulesPerUser: number } {
  return { maxJobsPerUser: config?.maxJobsPerUser ?? 1000, maxSchedulesPerUser: config?.maxSchedulesPerUser ?? 100 };
}

/** The limits a job enqueued from inside a run carries (ToolContext.enqueueJob): the same as a background run's. */
export function jobQueueLimits(config: QueueConfig): JobQueueLimits {
  return {
    maxAttempts: config.maxAttempts ?? 3,
    maxDepth: config.maxDepth ?? 10_000,
    maxUserDepth: userCaps(config).maxJobsPerUser,
  };
}

export interface BackgroundRequest {
  message: string;
  /** false: answered with 202 only, nobody follows the run's events */
  stream?: boolean;
  session_id?: string;
  user_id?: string;
  session_state?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  media?: MediaInput[];
  /** a chat interface's message: where the answer is posted (set by interfaces, never by a client) */
  reply?: ReplyTarget;
  /** the config version of a stored component the request resolved: the job runs exactly that one */
  component_version?: number;
}

/** agno's run statuses for a job's state. */
export function runStatusOf(job: JobRecord): string {
  return { PENDING: "PENDING", RUNNING: "RUNNING", COMPLETED: "COMPLETED", FAILED: "ERROR", CANCELLED: "CANCELLED" }[
    job.status
  ];
}

/** Where a background run is committed: the queue's storage and its dispatcher (a request's `c.env`, or a webhook's own). */
export type QueueTarget = Pick<RequestServices, "jobs" | "queue">;

/**
 * Commits a background run (the job, its PENDING run and, if new, its session) and wakes the
 * queue. With an idempotency key, a repeat of the same request returns the first job. Plain
 * arguments, no HTTP context: a webhook or any server code can enqueue as the run route does.
 */
export async function enqueueBackgroundRun(
  target: QueueTarget,
  config: QueueConfig | undefined,
  agent: Pick<Component, "ref" | "db">,
  req: BackgroundRequest,
  opts: { userId: string | null; idempotencyKey?: string; traceparent?: string | undefined },
) {
  if (!config?.durable)
    throw new BadRequestError("background runs need the durable queue: new AgentOS({ queue: { durable: true } })");
  if (!agent.db)
    throw new BadRequestError(
      `${agent.ref.type} ${agent.ref.id} has no database: background runs are stored, so they need one`,
    );
  const { jobs, queue } = target;
  if (!jobs || !queue) throw new NotConfiguredError("this host has no job queue binding (JOB_QUEUE)");
  const key = opts.idempotencyKey;
  if (key !== undefined && (key.length === 0 || key.length > 255))
    throw new ValidationError("Idempotency-Key must be 1 to 255 characters", "Idempotency-Key");
  const fields = {
    message: req.message,
    stream: req.stream,
    sessionState: req.session_state,
    dependencies: req.dependencies,
    metadata: req.metadata,
    media: portableMedia(req.media),
    reply: req.reply,
    componentVersion: req.component_version,
  };
  // What the request asked for, without the ids this call made up.
  const requestHash = key
    ? await sha256Hex(
        JSON.stringify([
          agent.ref.type === "agent" ? agent.ref.id : `${agent.ref.type}:${agent.ref.id}`,
          req.session_id ?? null,
          { ...runJobPayload(fields, ""), run_id: null },
        ]),
      )
    : undefined;
  const input = runJobInput({
    component: agent.ref,
    ...fields,
    sessionId: req.session_id,
    userId: opts.userId,
    maxAttempts: config.maxAttempts ?? 3,
    maxDepth: config.maxDepth ?? 10_000,
    maxUserDepth: userCaps(config).maxJobsPerUser,
    idempotencyKey: key,
    requestHash,
    ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
  });
  // Where the queue can take it itself, it does (one RPC, no connection opened here).
  if (queue.enqueue) return queue.enqueue(input);
  const { job, created } = await jobs.enqueueRun(input);
  if (created) await queue.wake();
  return { job, created };
}
