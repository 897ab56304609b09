import { identityOf } from "../agent/component.js";
import { QueueFullError, QuotaExceededError, ValidationError } from "../errors.js";
import { jobComponent } from "../queue/run-job-input.js";
import type { EnqueueRunInput } from "../queue/types.js";
import { runTypeOf } from "./session.js";
import type { RunRecord, RunType } from "./types.js";
import { validateId, validateRun } from "./validate.js";

/**
 * What every adapter's enqueue and schedule create share: the ids checked before any write, the
 * rows a queued run starts with (named after the job's component, whatever its type), and the
 * errors that say why an enqueue or a create was refused.
 */

/** The ids an enqueue stores, checked before any round trip (a bad one is the caller's 422). */
export function checkEnqueueIds(input: EnqueueRunInput): void {
  validateId(input.component_id, "component_id");
  validateId(input.session_id, "session_id");
  validateId(input.payload.run_id, "run_id");
  if (input.user_id !== null) validateId(input.user_id, "user_id");
}

/** The component columns of a run or session row: the id of the job's component in its type's column, null in the others. */
export interface ComponentColumns {
  type: RunType;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
}

/** The component columns of the rows an enqueue writes (the PENDING run, the session it may open): the job's component's. */
export function jobComponentColumns(
  input: Pick<EnqueueRunInput, "component_type" | "component_id" | "payload">,
): ComponentColumns {
  const ids: Pick<RunRecord, "agent_id" | "team_id" | "workflow_id"> = identityOf(jobComponent(input));
  return {
    type: runTypeOf(ids),
    agent_id: ids.agent_id ?? null,
    team_id: ids.team_id ?? null,
    workflow_id: ids.workflow_id ?? null,
  };
}

/** The PENDING run an enqueue stores, named after the job's component (an agent, a team or a workflow) and checked as every stored run is. */
export function pendingRunOf(input: EnqueueRunInput, ts: number): RunRecord {
  return validateRun({
    run_id: input.payload.run_id,
    session_id: input.session_id,
    ...identityOf(jobComponent(input)),
    user_id: input.user_id,
    status: "PENDING",
    input: { input_content: input.payload.message },
    ...(input.payload.metadata ? { metadata: input.payload.metadata } : {}),
    created_at: ts,
  });
}

/** The 422 of an Idempotency-Key sent again with another body. */
export function keyReused(): ValidationError {
  return new ValidationError("this Idempotency-Key was used with a different request", "Idempotency-Key");
}

/** Who a per-user cap names: the user, or the one principal every caller without a user shares. */
const capHolder = (userId: string | null) =>
  userId === null ? "callers without a user (one shared principal)" : `user ${userId}`;

/** The 429 of a user who has as many jobs waiting or running as one may; other users are not refused. */
export function userQueueFull(userId: string | null, cap: number): QuotaExceededError {
  return new QuotaExceededError(
    `the per-user job cap (${cap} background jobs waiting or running) is reached for ${capHolder(userId)}: try again when some have finished`,
    "jobs",
    5,
  );
}

/** The 429 of a full queue, with the `depth` the enqueue counted. */
export function queueFull(depth: unknown): QueueFullError {
  return new QueueFullError(`the background queue is full (${Number(depth ?? 0)} jobs waiting or running)`, 5);
}

/** The 429 of an owner who holds as many schedules as one may. */
export function scheduleCapReached(userId: string | null, cap: number | undefined): QuotaExceededError {
  return new QuotaExceededError(
    `the per-user schedule cap (${cap} schedules) is reached for ${capHolder(userId)}: delete one first`,
    "schedules",
    60,
  );
}
