import { NotFoundError, StatusConflictError, ValidationError } from "../../errors.js";
import type {
  EnqueueJobInput,
  EnqueueOutcome,
  EnqueueRunInput,
  JobListOptions,
  JobRecord,
  JobStatus,
  JobStore,
  Lease,
  QueueStats,
} from "../../queue/types.js";
import type { RunRecord, RunRow } from "../types.js";
import { jobSortField } from "../../queue/job-sort-field.js";
import { validateId, validateRun } from "../validate.js";
import { isActive, MemoryEnqueue, ownerOf } from "./enqueue.js";
import type { MemoryRunStore } from "./run-store.js";
import { compareIds, copy, now, type MemoryTables } from "./tables.js";

const LEASE_LAPSED = "the worker of its last attempt stopped (lease expired)";

/**
 * The durable queue's storage in memory, with the Postgres adapter's rules: leases fenced by the
 * attempt and the worker, fair-share claims, retries until `max_attempts`, a job's run moved with
 * it. Every transition is synchronous, as each is one statement on Postgres.
 */
export class MemoryJobStore implements JobStore {
  private readonly enqueue: MemoryEnqueue;

  constructor(
    private readonly t: MemoryTables,
    private readonly runs: MemoryRunStore,
  ) {
    this.enqueue = new MemoryEnqueue(t, runs);
  }

  enqueueRun(input: EnqueueRunInput): Promise<{ job: JobRecord; created: boolean }> {
    return this.enqueue.enqueueRun(input);
  }

  enqueueRuns(inputs: EnqueueRunInput[]): Promise<EnqueueOutcome[]> {
    return this.enqueue.enqueueRuns(inputs);
  }

  async enqueueJob(input: EnqueueJobInput): Promise<{ job: JobRecord; created: boolean }> {
    validateId(input.id, "job_id");
    validateId(input.component_id, "component_id");
    if (input.user_id !== null) validateId(input.user_id, "user_id");
    return this.enqueue.enqueueJob(input);
  }

  /**
   * Leases due jobs (new or retrying ones whose time has come, running ones whose lease lapsed
   * with attempts left), fairly: a job's share is its rank among its owner's due jobs plus the
   * owner's jobs running under a live lease, and the lowest shares go first, each by due time.
   */
  async claimJobs(opts: { workerId: string; limit: number; leaseSeconds: number }): Promise<JobRecord[]> {
    const t = now();
    const due = [...this.t.jobs.values()]
      .filter(
        (j) =>
          (j.status === "PENDING" && j.available_at <= t) ||
          (j.status === "RUNNING" &&
            j.lease_expires_at !== null &&
            j.lease_expires_at < t &&
            j.attempt < j.max_attempts),
      )
      .sort(byDueTime);
    const held = new Map<string, number>();
    for (const j of this.t.jobs.values())
      if (j.status === "RUNNING" && j.lease_expires_at !== null && j.lease_expires_at >= t)
        held.set(ownerOf(j), (held.get(ownerOf(j)) ?? 0) + 1);
    const rank = new Map<string, number>();
    const shares = due.map((job) => {
      const owner = ownerOf(job);
      rank.set(owner, (rank.get(owner) ?? 0) + 1);
      return { job, share: rank.get(owner)! + (held.get(owner) ?? 0) };
    });
    const claimed = shares
      .sort((a, b) => a.share - b.share || byDueTime(a.job, b.job))
      .slice(0, Math.max(0, opts.limit))
      .map(({ job }) =>
        this.put({
          ...job,
          status: "RUNNING",
          attempt: job.attempt + 1,
          locked_by: opts.workerId,
          locked_at: t,
          lease_expires_at: t + opts.leaseSeconds,
          updated_at: t,
        }),
      );
    return claimed.map(copy);
  }

  /** Jobs whose last attempt's worker died: failed, with their runs marked ERROR. */
  async expireExhaustedJobs(): Promise<JobRecord[]> {
    const t = now();
    const failed = [...this.t.jobs.values()]
      .filter(
        (j) =>
          j.status === "RUNNING" &&
          j.lease_expires_at !== null &&
          j.lease_expires_at < t &&
          j.attempt >= j.max_attempts,
      )
      .map((j) => this.put({ ...j, ...ended("FAILED", j.error ?? LEASE_LAPSED, t) }));
    this.setRunStatus(
      failed.flatMap((j) => runOf(j)),
      "ERROR",
      ["PENDING", "RUNNING"],
    );
    return failed.map(copy);
  }

  async heartbeatJob(lease: Lease, leaseSeconds: number): Promise<boolean> {
    const job = this.leased(lease);
    if (!job) return false;
    const t = now();
    this.put({ ...job, lease_expires_at: t + leaseSeconds, updated_at: t });
    return true;
  }

  async finishJob(
    lease: Lease,
    outcome: { status: "COMPLETED" | "FAILED" | "CANCELLED"; error?: string },
  ): Promise<boolean> {
    const job = this.leased(lease);
    if (!job) return false;
    this.put({ ...job, ...ended(outcome.status, outcome.error ?? null, now()) });
    return true;
  }

  async completeWithRun(
    lease: Lease,
    run: RunRecord,
    expectStatus: string[],
  ): Promise<{ row: RunRow; jobEnded: boolean } | null> {
    const checked = validateRun(run);
    // Only an update of the run as stored (its session, its owner, an expected status): else nothing.
    const existing = this.t.runs.get(checked.run_id);
    const owner = this.t.sessions.get(checked.session_id)?.user_id ?? null;
    if (
      !existing ||
      existing.session_id !== checked.session_id ||
      !expectStatus.includes(existing.status as string) ||
      !this.t.sessions.has(checked.session_id) ||
      (checked.user_id && owner && checked.user_id !== owner)
    )
      return null;
    return this.t.transaction(() => {
      const row = this.runs.write(checked, expectStatus);
      const job = this.leased(lease);
      if (job) this.put({ ...job, ...ended("COMPLETED", null, now()) });
      return { row: copy(row), jobEnded: job !== undefined };
    });
  }

  async retryJob(
    lease: Lease,
    delaySeconds: number,
    error: string,
    opts: { notAnAttempt?: boolean } = {},
  ): Promise<boolean> {
    const job = this.leased(lease);
    if (!job) return false;
    const t = now();
    this.put({
      ...job,
      ...(opts.notAnAttempt ? { attempt: job.attempt - 1 } : {}),
      status: "PENDING",
      error,
      locked_by: null,
      lease_expires_at: null,
      available_at: t + delaySeconds,
      updated_at: t,
    });
    return true;
  }

  async cancelJob(id: string): Promise<"cancelled" | "running" | "finished"> {
    validateId(id, "job_id");
    const job = this.t.jobs.get(id);
    if (!job) throw new NotFoundError(`job ${id} not found`);
    const t = now();
    const outcome = job.status === "PENDING" ? "cancelled" : job.status === "RUNNING" ? "running" : "finished";
    if (outcome === "cancelled") this.put({ ...job, status: "CANCELLED", completed_at: t, updated_at: t });
    // Its run is cancelled with it: a queued one never starts, a running one stops at its next check.
    if (outcome !== "finished") this.setRunStatus(runOf(job), "CANCELLED", ["PENDING", "RUNNING"]);
    return outcome;
  }

  async requeueJob(id: string): Promise<JobRecord> {
    validateId(id, "job_id");
    const job = this.t.jobs.get(id);
    if (!job) throw new NotFoundError(`job ${id} not found`);
    if (job.status !== "FAILED" && job.status !== "CANCELLED")
      throw new StatusConflictError(
        `job ${id} is ${job.status}: only FAILED or CANCELLED jobs are requeued`,
        job.status,
      );
    const t = now();
    const requeued = this.put({
      ...job,
      status: "PENDING",
      max_attempts: job.attempt + 1,
      available_at: t,
      error: null,
      completed_at: null,
      updated_at: t,
    });
    // Its run goes back to waiting too, so the next attempt may start it.
    this.setRunStatus(runOf(job), "PENDING");
    return copy(requeued);
  }

  async getJob(id: string): Promise<JobRecord | null> {
    validateId(id, "job_id");
    const job = this.t.jobs.get(id);
    return job ? copy(job) : null;
  }

  async listJobs(opts: JobListOptions): Promise<{ data: JobRecord[]; total_count: number }> {
    const { limit, page, statuses } = opts;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new ValidationError("limit must be 1..1000", "limit");
    if (!Number.isInteger(page) || page < 1) throw new ValidationError("page must be 1 or more", "page");
    const order = jobOrder(opts);
    const matching = [...this.t.jobs.values()]
      .filter((j) => !statuses || statuses.includes(j.status))
      .sort((a, b) => order(a, b) || compareIds(a.id, b.id));
    return { data: matching.slice((page - 1) * limit, page * limit).map(copy), total_count: matching.length };
  }

  async queueStats(): Promise<QueueStats> {
    const t = now();
    const jobs = [...this.t.jobs.values()];
    const count = (s: JobStatus) => jobs.filter((j) => j.status === s).length;
    const waited = jobs.filter((j) => j.status === "PENDING" && j.available_at <= t).map((j) => j.available_at);
    return {
      pending: count("PENDING"),
      running: count("RUNNING"),
      completed: count("COMPLETED"),
      failed: count("FAILED"),
      cancelled: count("CANCELLED"),
      oldest_pending_age_seconds: waited.length === 0 ? 0 : Math.max(0, t - Math.min(...waited)),
    };
  }

  async nextDueAt(): Promise<number | null> {
    const due = [...this.t.jobs.values()]
      .map((j) =>
        j.status === "PENDING"
          ? j.available_at
          : j.status === "RUNNING" && j.lease_expires_at !== null
            ? j.lease_expires_at + 1
            : null,
      )
      .filter((at): at is number => at !== null);
    return due.length === 0 ? null : Math.min(...due);
  }

  async jobForRun(runId: string): Promise<JobRecord | null> {
    validateId(runId, "run_id");
    let latest: JobRecord | undefined;
    for (const j of this.t.jobs.values())
      if (j.payload.run_id === runId && (!latest || j.created_at >= latest.created_at)) latest = j;
    return latest ? copy(latest) : null;
  }

  /** Whether the queue still holds this run (a PENDING or RUNNING job): the stale-run sweep leaves it. */
  holdsRun(runId: string): boolean {
    for (const j of this.t.jobs.values()) if (isActive(j) && j.payload.run_id === runId) return true;
    return false;
  }

  /** The job under this lease (its attempt, its worker, still RUNNING), if it still is. */
  private leased(lease: Lease): JobRecord | undefined {
    const job = this.t.jobs.get(lease.id);
    return job && job.status === "RUNNING" && job.attempt === lease.attempt && job.locked_by === lease.workerId
      ? job
      : undefined;
  }

  private put(job: JobRecord): JobRecord {
    this.t.jobs.set(job.id, job);
    return job;
  }

  /** Moves runs to `status` (column and stored RunOutput alike), only from `from` when given. */
  private setRunStatus(runIds: string[], status: string, from?: string[]): void {
    const t = now();
    for (const id of runIds) {
      const row = this.t.runs.get(id);
      if (!row || (from && !from.includes(row.status as string))) continue;
      this.t.runs.set(id, {
        ...row,
        status,
        run_data: { ...row.run_data, status: status as RunRow["run_data"]["status"] },
        updated_at: t,
      });
    }
  }
}

/** The run a job runs, as a list: none for a job that runs no component (a knowledge ingestion). */
const runOf = (job: JobRecord): string[] => (job.payload.run_id ? [job.payload.run_id] : []);

/** The fields a job's end sets: its status and error, its lease released. */
function ended(status: "COMPLETED" | "FAILED" | "CANCELLED", error: string | null, t: number): Partial<JobRecord> {
  return { status, error, locked_by: null, lease_expires_at: null, completed_at: t, updated_at: t };
}

/** Due time, then age; a stable sort keeps enqueue order among equals. */
const byDueTime = (a: JobRecord, b: JobRecord) => a.available_at - b.available_at || a.created_at - b.created_at;

/** Postgres's order of a listing's field (see JobListOptions): nulls sort as larger than any value. */
function jobOrder(opts: JobListOptions): (a: JobRecord, b: JobRecord) => number {
  const field = jobSortField(opts.sortBy);
  if (!field) return () => 0;
  const sign = opts.sortOrder === "asc" ? 1 : -1;
  const valueOf = (j: JobRecord) => (field === "updated_at" ? (j.updated_at ?? j.created_at) : j[field]);
  return (a, b) => {
    const x = valueOf(a);
    const y = valueOf(b);
    if (x === y) return 0;
    if (x === null) return sign;
    if (y === null) return -sign;
    return (x < y ? -1 : 1) * sign;
  };
}
