import { z } from "zod";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/** A queue job's states as agno names them (`db/schemas/jobs.py` JOB_STATUSES). */
export const AGNO_JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "paused"] as const;
export type AgnoJobStatus = (typeof AGNO_JOB_STATUSES)[number];

const epoch = () => z.int().describe("Epoch seconds");

export const queueJobSchema = agnoObject(
  { model: "QueueJobSchema", file: "os/routers/job_queue/schema.py" },
  {
    id: z.string().describe("The job's id, which is its run's run_id"),
    component_type: z.string().describe("agent, team or workflow"),
    component_id: z.string(),
    session_id: z.string(),
    job_type: z.string().describe('The kind of work ("run")'),
    user_id: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()).describe("The run's parameters (uploaded files by name and type only)"),
    status: z.enum(AGNO_JOB_STATUSES),
    attempt: z.int().describe("Executions started so far"),
    max_attempts: z.int(),
    idempotency_key: z.string().nullable(),
    available_at: epoch().nullable().describe("When it may be claimed (a retry's backoff)"),
    locked_by: z.string().nullable().describe("The worker holding it"),
    locked_at: epoch().nullable(),
    error: z.string().nullable(),
    created_at: epoch().nullable(),
    updated_at: epoch().nullable(),
    completed_at: epoch().nullable(),
  },
);

export const queueJobListSchema = paginated(queueJobSchema);

/**
 * What agno's stats route answers: the dict its job stores' `queue_stats` build (no response
 * model), counts only for the states some job is in.
 */
export const queueStatsSchema = agnoObject(
  { model: "queue_stats", file: "job_queue/store.py" },
  {
    counts: z.partialRecord(z.enum(AGNO_JOB_STATUSES), z.int().min(1)).describe("Jobs by status"),
    oldest_queued_age_seconds: z.int().min(0).nullable().describe("How long the oldest queued job has waited"),
  },
);
