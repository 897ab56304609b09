import type { GetRunsOptions, Page, RunRecord, RunRow } from "../types.js";

export interface UpsertRunOptions {
  /**
   * compare-and-set: update an existing run only while its stored status is one of these,
   * else StatusConflictError (a run cancelled elsewhere is never overwritten as COMPLETED)
   */
  expectStatus?: string[];
  /**
   * The commit need not wait for the database's log to reach disk (Postgres: `synchronous_commit`
   * off for this write's transaction only): a crash of the database server a moment later may
   * undo it; nothing else changes (it is seen at once, and in order). For the write that marks a
   * run RUNNING: the run's next write waits for the log, which makes this one durable with it.
   */
  deferFlush?: boolean;
}

export interface InterruptOptions {
  /** epoch seconds: a heartbeat older than this is stale */
  staleBefore: number;
  /** the error's text and type, as the run's `error` and its RunError event carry them */
  message: string;
  errorType: string;
  limit?: number;
  /** only this run (a re-attaching client that found it stale) */
  runId?: string;
}

/** A paused run whose pending review's deadline passed (see RunStore.listTimedOutReviews). */
export interface TimedOutReview {
  run_id: string;
  session_id: string;
  workflow_id: string | null;
  /** the deadline, ISO-8601 */
  timeout_at: string;
}

export interface InterruptedRun {
  run_id: string;
  session_id: string;
}

/** Runs, one row each, and the liveness of the interactive ones. */
export interface RunStore {
  /** writes this run's row only; a new run gets the next `run_index` of its session */
  upsertRun(run: RunRecord, opts?: UpsertRunOptions): Promise<RunRow>;
  getRun(
    runId: string,
    opts?: { userId?: string; sessionId?: string; includeShared?: boolean },
  ): Promise<RunRow | null>;
  getRuns(opts?: GetRunsOptions): Promise<Page<RunRow>>;
  deleteRun(runId: string, opts?: { userId?: string }): Promise<void>;
  deleteRuns(runIds: string[], opts?: { userId?: string }): Promise<number>;

  /** a RUNNING run's heartbeat (its row's `updated_at` becomes now); false once it is no longer RUNNING */
  heartbeatRun(runId: string): Promise<boolean>;
  /**
   * RUNNING runs whose heartbeat stopped before `staleBefore` and whose job (if queued) is no
   * longer PENDING or RUNNING become ERROR (`interrupted`), each with a RunError closing its event
   * log; one statement, at most `limit` runs (default 100). Returns the runs it ended.
   */
  interruptStaleRuns(opts: InterruptOptions): Promise<InterruptedRun[]>;
  /**
   * PAUSED runs whose pending review (the last of `run_data.step_requirements`) has a
   * `timeout_at` at or before `now` (ISO-8601), earliest deadline first, at most `limit`
   * (default 100): what the cron tick resolves with each review's `on_timeout`. Read only.
   */
  listTimedOutReviews(opts: { now: string; limit?: number }): Promise<TimedOutReview[]>;
}
