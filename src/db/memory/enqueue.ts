import { asError, ConflictError, NotFoundError } from "../../errors.js";
import type { EnqueueJobInput, EnqueueOutcome, EnqueueRunInput, JobRecord } from "../../queue/types.js";
import {
  checkEnqueueIds,
  jobComponentColumns,
  keyReused,
  pendingRunOf,
  queueFull,
  userQueueFull,
} from "../enqueue-rules.js";
import { sessionColumns } from "../session-columns.js";
import type { MemoryRunStore } from "./run-store.js";
import { copy, now, stored, type MemoryTables } from "./tables.js";

/** Whose share of the queue a job takes: its user, or the one principal every caller without a user shares. */
export const ownerOf = (job: { user_id: string | null }): string => job.user_id ?? "";

/** Whether a job still holds a place in the queue (waiting or leased). */
export const isActive = (job: JobRecord): boolean => job.status === "PENDING" || job.status === "RUNNING";

/**
 * Enqueues in memory, with the Postgres adapter's outcomes: the job, its PENDING run and (if new)
 * its session together or nothing; a repeat of a key answers the first job; another owner's
 * session, a reused key with another body, a full queue or a user at their cap writes nothing.
 * Each enqueue is synchronous, so concurrent callers are served one after another.
 */
export class MemoryEnqueue {
  constructor(
    private readonly t: MemoryTables,
    private readonly runs: MemoryRunStore,
  ) {}

  async enqueueRun(input: EnqueueRunInput): Promise<{ job: JobRecord; created: boolean }> {
    checkEnqueueIds(input);
    return copy(this.t.transaction(() => this.enqueue(input, now())));
  }

  /** One after another in input order, each as `enqueueRun` would: a user's inputs fill their share only. */
  async enqueueRuns(inputs: EnqueueRunInput[]): Promise<EnqueueOutcome[]> {
    const ts = now();
    return inputs.map((input): EnqueueOutcome => {
      try {
        checkEnqueueIds(input);
        return copy(this.t.transaction(() => this.enqueue(input, ts)));
      } catch (error) {
        return { error: asError(error) };
      }
    });
  }

  /** Checks first (nothing is written for a refusal or a repeat), then the session, the job and its run. */
  private enqueue(input: EnqueueRunInput, ts: number): { job: JobRecord; created: boolean } {
    const run = pendingRunOf(input, ts);
    const session = this.t.sessions.get(input.session_id);
    if (session && (session.user_id ?? null) !== input.user_id)
      throw new NotFoundError(`session ${input.session_id} not found`);
    const earlier = this.earlier(input);
    if (earlier) {
      if (earlier.request_hash !== (input.request_hash ?? null)) throw keyReused();
      return { job: earlier, created: false };
    }
    const active = [...this.t.jobs.values()].filter(isActive);
    if (active.length >= input.max_depth) throw queueFull(active.length);
    if (
      input.max_user_depth !== undefined &&
      active.filter((j) => ownerOf(j) === ownerOf(input)).length >= input.max_user_depth
    )
      throw userQueueFull(input.user_id, input.max_user_depth);
    if (this.t.runs.has(run.run_id)) throw new ConflictError(`run ${run.run_id} already exists`);

    if (!session) {
      const { type, agent_id, team_id, workflow_id } = jobComponentColumns(input);
      const record = {
        session_id: input.session_id,
        session_type: type,
        agent_id,
        team_id,
        workflow_id,
        user_id: input.user_id,
        session_data: { session_name: input.session_name, session_state: {} },
      };
      this.t.sessions.set(input.session_id, sessionColumns(record, ts, stored));
    }
    const job = pendingJob(ts, {
      // The run's id, as Postgres stores it: the run id a client holds names the job too.
      id: input.payload.run_id,
      component_type: input.component_type,
      job_type: "run",
      component_id: input.component_id,
      session_id: input.session_id,
      user_id: input.user_id,
      payload: stored(input.payload),
      max_attempts: input.max_attempts,
      idempotency_key: input.idempotency_key ?? null,
      request_hash: input.request_hash ?? null,
    });
    this.t.jobs.set(job.id, job);
    this.runs.write(run);
    return { job, created: true };
  }

  /** A job that runs no component: the same key, depth and per-user rules, no run and no session. */
  enqueueJob(input: EnqueueJobInput): { job: JobRecord; created: boolean } {
    return copy(
      this.t.transaction(() => {
        const earlier = this.earlier(input);
        if (earlier) return { job: earlier, created: false };
        const active = [...this.t.jobs.values()].filter(isActive);
        if (active.length >= input.max_depth) throw queueFull(active.length);
        if (
          input.max_user_depth !== undefined &&
          active.filter((j) => ownerOf(j) === ownerOf(input)).length >= input.max_user_depth
        )
          throw userQueueFull(input.user_id, input.max_user_depth);
        if (this.t.jobs.has(input.id)) throw new ConflictError(`job ${input.id} already exists`);
        const ts = now();
        const job = pendingJob(ts, {
          id: input.id,
          component_type: input.component_type,
          job_type: input.job_type,
          component_id: input.component_id,
          session_id: null,
          user_id: input.user_id,
          payload: stored(input.payload) as unknown as JobRecord["payload"],
          max_attempts: input.max_attempts,
          idempotency_key: input.idempotency_key ?? null,
          request_hash: null,
        });
        this.t.jobs.set(job.id, job);
        return { job, created: true };
      }),
    );
  }

  /** The job an Idempotency-Key already names for this user, if any. */
  private earlier(input: Pick<EnqueueRunInput, "idempotency_key" | "user_id">): JobRecord | undefined {
    const key = input.idempotency_key;
    if (!key) return undefined;
    return [...this.t.jobs.values()].find((j) => j.idempotency_key === key && ownerOf(j) === ownerOf(input));
  }
}

/** A new job as enqueued: PENDING, due now, never claimed. */
function pendingJob(
  ts: number,
  fields: Pick<
    JobRecord,
    | "id"
    | "component_type"
    | "job_type"
    | "component_id"
    | "session_id"
    | "user_id"
    | "payload"
    | "max_attempts"
    | "idempotency_key"
    | "request_hash"
  >,
): JobRecord {
  return {
    ...fields,
    status: "PENDING",
    attempt: 0,
    available_at: ts,
    locked_by: null,
    locked_at: null,
    lease_expires_at: null,
    error: null,
    created_at: ts,
    updated_at: ts,
    completed_at: null,
  };
}
