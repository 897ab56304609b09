import type { ComponentRef, ComponentType } from "../agent/component.js";
import type { MediaInput } from "../agent/media.js";
import type { RunRecord, RunRow } from "../db/types.js";
import type { ReplyTarget } from "../interfaces/reply-target.js";

/** A job's life: PENDING (queued or waiting to retry) → RUNNING (leased) → a final state. */
export type JobStatus = "PENDING" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELLED";
export const JOB_STATUSES: readonly JobStatus[] = ["PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED"];

/** What a background run needs to start later, anywhere (JSON: media travel as base64). */
export interface RunJobPayload {
  run_id: string;
  /** the component that runs it (payloads stored before it was added have only the job's component_id: an agent's) */
  component?: ComponentRef;
  message: string;
  /** false: nobody follows the run live, so its events are not stored (default: stored, for /resume) */
  stream?: boolean;
  session_state?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  media?: MediaInput[];
  /** a chat interface's message: where the run's answer is posted */
  reply?: ReplyTarget;
  /**
   * A stored component's config version (components as data), pinned when the run was requested:
   * the queue builds exactly that config, whatever is published by the time the job runs.
   */
  component_version?: number;
  /** the W3C trace context of whoever queued it (outside what a request hash covers): the job's span continues that trace */
  traceparent?: string;
}

/**
 * The columns a job listing sorts by (agno's: any column of the jobs table but the payload).
 * `updated_at` falls back to `created_at` where unset, as agno sorts it; text sorts by code point.
 */
export const JOB_SORT_FIELDS = [
  "id",
  "component_type",
  "job_type",
  "component_id",
  "session_id",
  "user_id",
  "status",
  "attempt",
  "max_attempts",
  "idempotency_key",
  "available_at",
  "locked_by",
  "locked_at",
  "lease_expires_at",
  "error",
  "created_at",
  "updated_at",
  "completed_at",
] as const;
export type JobSortField = (typeof JOB_SORT_FIELDS)[number];

/**
 * A page of jobs: those in any of `statuses` (all when unset), ordered by `sortBy` (default
 * `created_at`) in `sortOrder` (default desc; unset values last ascending, first descending, as
 * Postgres orders them), then by id; a `sortBy` that names no column orders by id alone, as agno
 * ignores an unknown sort field.
 */
export interface JobListOptions {
  statuses?: readonly JobStatus[];
  limit: number;
  page: number;
  sortBy?: string;
  sortOrder?: "asc" | "desc";
}

/** What a job runs: a component's run (`job_type` "run"), or other work carried by the same queue (`enqueueJob`). */
export type JobComponentType = ComponentType | "knowledge";

/** A row of `agno_jobs` (agno's columns; timestamps in epoch seconds). */
export interface JobRecord {
  id: string;
  component_type: JobComponentType;
  job_type: string;
  component_id: string;
  session_id: string | null;
  user_id: string | null;
  payload: RunJobPayload;
  status: JobStatus;
  /** how many times it was claimed; the fencing token of the current lease */
  attempt: number;
  max_attempts: number;
  idempotency_key: string | null;
  request_hash: string | null;
  available_at: number;
  locked_by: string | null;
  locked_at: number | null;
  lease_expires_at: number | null;
  error: string | null;
  created_at: number;
  updated_at: number | null;
  completed_at: number | null;
}

export interface EnqueueRunInput {
  component_type: ComponentType;
  component_id: string;
  session_id: string;
  user_id: string | null;
  payload: RunJobPayload;
  max_attempts: number;
  idempotency_key?: string;
  /** a digest of the request, so a reused key with another body is told apart */
  request_hash?: string;
  /** refuse (QueueFullError) when this many jobs are PENDING or RUNNING */
  max_depth: number;
  /** refuse (QuotaExceededError) when the job's user (no user: the one shared principal) has this many PENDING or RUNNING; unset: no per-user cap */
  max_user_depth?: number;
  /** the session's name if the job creates it */
  session_name: string;
  /**
   * The caller made up `session_id` for this job (the request named none), so the session cannot
   * exist yet: the enqueue is then one statement instead of a transaction.
   */
  new_session?: boolean;
}

/**
 * A job that is not a component's run (a knowledge ingestion): no run row, no session, a payload
 * of its own that the executor for its `job_type` reads. Idempotent by `idempotency_key` (per
 * user) like runs, bounded by the same depth and per-user caps, retried by the same dispatcher.
 */
export interface EnqueueJobInput {
  id: string;
  /** what executes it, e.g. "knowledge_ingestion" (never "run": runs are enqueued with their run row) */
  job_type: string;
  component_type: JobComponentType;
  component_id: string;
  user_id: string | null;
  payload: Record<string, unknown>;
  max_attempts: number;
  idempotency_key?: string;
  max_depth: number;
  max_user_depth?: number;
}

/** One input's outcome in a batch: its job (`created: false` for a repeat of a key), or why not. */
export type EnqueueOutcome = { job: JobRecord; created: boolean } | { error: Error };

/** A claim: the jobs this worker now holds, each under a lease fenced by its attempt number. */
export interface Lease {
  id: string;
  attempt: number;
  workerId: string;
}

export interface QueueStats {
  pending: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** seconds the oldest due PENDING job has waited, 0 when none */
  oldest_pending_age_seconds: number;
}

/**
 * The durable queue's storage port (SPEC Q1-Q4). The database is the truth: every transition is
 * one conditional statement, so a worker that lost its lease can neither complete nor retry.
 */
export interface JobStore {
  /** commits the job, the PENDING run and (if new) its session together, or nothing */
  enqueueRun(input: EnqueueRunInput): Promise<{ job: JobRecord; created: boolean }>;
  /** many enqueues in one transaction, each succeeding or failing on its own, as `enqueueRun` would */
  enqueueRuns(inputs: EnqueueRunInput[]): Promise<EnqueueOutcome[]>;
  /** commits a job that runs no component (see EnqueueJobInput); a repeat of its key returns the first job */
  enqueueJob(input: EnqueueJobInput): Promise<{ job: JobRecord; created: boolean }>;
  /** leases up to `limit` due jobs (new, retrying, or whose lease expired); attempt += 1 */
  claimJobs(opts: { workerId: string; limit: number; leaseSeconds: number }): Promise<JobRecord[]>;
  /** extends a lease; false when it is no longer this worker's */
  heartbeatJob(lease: Lease, leaseSeconds: number): Promise<boolean>;
  /** ends a leased job; false (and nothing written) when the lease is stale */
  finishJob(lease: Lease, outcome: { status: "COMPLETED" | "FAILED" | "CANCELLED"; error?: string }): Promise<boolean>;
  /**
   * Writes a run's last state as `Db.upsertRun` with `expectStatus` does and, in the same
   * statement, ends its leased job as COMPLETED, fenced as `finishJob` (`jobEnded: false` when the
   * lease is stale: the run's write still lands, as it would alone). Null when the run was not in
   * one of those states, or the database needs upsertRun's full path: nothing written.
   */
  completeWithRun(
    lease: Lease,
    run: RunRecord,
    expectStatus: string[],
  ): Promise<{ row: RunRow; jobEnded: boolean } | null>;
  /**
   * puts a leased job back to wait `delaySeconds` for its next attempt; false when stale. With
   * `notAnAttempt`, the claim is given back (attempt - 1): the job could not start yet, which is
   * not a failure and must not use up its attempts (the next claim's lease then carries the same
   * attempt number, so the caller must hold nothing of this one)
   */
  retryJob(lease: Lease, delaySeconds: number, error: string, opts?: { notAnAttempt?: boolean }): Promise<boolean>;
  /** a queued job becomes CANCELLED and never runs; a running one is reported as such; either way its run is CANCELLED (a running one stops cooperatively) */
  cancelJob(id: string): Promise<"cancelled" | "running" | "finished">;
  /** a FAILED or CANCELLED job gets exactly one more attempt */
  requeueJob(id: string): Promise<JobRecord>;
  getJob(id: string): Promise<JobRecord | null>;
  listJobs(opts: JobListOptions): Promise<{ data: JobRecord[]; total_count: number }>;
  queueStats(): Promise<QueueStats>;
  /** when the next job falls due (a delayed retry, a lease that will lapse), epoch seconds; null when none */
  nextDueAt(): Promise<number | null>;
  /** the job that runs this run, if it was queued */
  jobForRun(runId: string): Promise<JobRecord | null>;
}
