import type { Context } from "hono";
import type { Agent } from "../agent/agent.js";
import { portableMedia, type MediaInput } from "../agent/media.js";
import { BadRequestError, NotConfiguredError, ValidationError } from "../errors.js";
import type { EnqueueRunInput, JobRecord, RunJobPayload } from "../queue/types.js";
import { effectiveUserId } from "./auth/scopes.js";
import type { OSEnv } from "./context.js";
import { sha256Hex } from "../sha256.js";

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
}


/** agno's run statuses for a job's state. */
export function runStatusOf(job: JobRecord): string {
  return { PENDING: "PENDING", RUNNING: "RUNNING", COMPLETED: "COMPLETED", FAILED: "ERROR", CANCELLED: "CANCELLED" }[job.status];
}

/**
 * Commits a background run (the job, its PENDING run and, if new, its session) and wakes the
 * queue. With an `Idempotency-Key`, a repeat of the same request returns the first job.
 */
export async function enqueueBackgroundRun(c: Context<OSEnv>, config: QueueConfig | undefined, agent: Agent, req: BackgroundRequest) {
  if (!config?.durable) throw new BadRequestError("background runs need the durable queue: new AgentOS({ queue: { durable: true } })");
  if (!agent.db) throw new BadRequestError(`agent ${agent.id} has no database: background runs are stored, so they need one`);
  const { jobs, queue } = c.env;
  if (!jobs || !queue) throw new NotConfiguredError("this host has no job queue binding (JOB_QUEUE)");
  const key = c.req.header("idempotency-key");
  if (key !== undefined && (key.length === 0 || key.length > 255)) throw new ValidationError("Idempotency-Key must be 1 to 255 characters", "Idempotency-Key");
  const userId = effectiveUserId(c, req.user_id) ?? null;
  const media = portableMedia(req.media);
  const payload: RunJobPayload = {
    run_id: crypto.randomUUID(),
    message: req.message,
    ...(req.stream === false ? { stream: false } : {}),
    ...(req.session_state ? { session_state: req.session_state } : {}),
    ...(req.dependencies ? { dependencies: req.dependencies } : {}),
    ...(req.metadata ? { metadata: req.metadata } : {}),
    ...(media ? { media } : {}),
  };
  // What the request asked for, without the ids this call made up.
  const requestHash = key ? await sha256Hex(JSON.stringify([agent.id, req.session_id ?? null, { ...payload, run_id: null }])) : undefined;
  const input: EnqueueRunInput = {
    component_type: "agent",
    component_id: agent.id,
    session_id: req.session_id ?? crypto.randomUUID(),
    user_id: userId,
    payload,
    max_attempts: config.maxAttempts ?? 3,
    max_depth: config.maxDepth ?? 10_000,
    max_user_depth: userCaps(config).maxJobsPerUser,
    session_name: req.message.slice(0, 100),
    ...(req.session_id ? {} : { new_session: true }),
    ...(key ? { idempotency_key: key, request_hash: requestHash } : {}),
  };
  // Where the queue can take it itself, it does (one RPC, no connection opened here).
  if (queue.enqueue) return queue.enqueue(input);
  const { job, created } = await jobs.enqueueRun(input);
  if (created) await queue.wake();
  return { job, created };
}
