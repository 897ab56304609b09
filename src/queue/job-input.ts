import type { EnqueueJobInput, JobComponentType } from "./types.js";

/** How deep the queue may grow, and how often a job is tried: the limits every enqueue carries. */
export interface JobLimits {
  userId: string | null;
  maxAttempts: number;
  maxDepth: number;
  maxUserDepth?: number;
}

/** A job of `jobType` for `component`, with its idempotency key and the queue's limits (a new id each call). */
export function jobInput(
  jobType: string,
  component: { type: JobComponentType; id: string },
  payload: object,
  idempotencyKey: string,
  limits: JobLimits,
): EnqueueJobInput {
  return {
    id: crypto.randomUUID(),
    job_type: jobType,
    component_type: component.type,
    component_id: component.id,
    user_id: limits.userId,
    payload: payload as Record<string, unknown>,
    max_attempts: limits.maxAttempts,
    idempotency_key: idempotencyKey,
    max_depth: limits.maxDepth,
    ...(limits.maxUserDepth !== undefined ? { max_user_depth: limits.maxUserDepth } : {}),
  };
}
