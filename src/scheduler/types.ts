import type { Page } from "../db/types.js";

/** How one attempt of a schedule ended (agno's values); `running` until its job ends. */
export type ScheduleRunStatus = "running" | "success" | "failed" | "paused" | "timeout" | "cancelled";

/** A row of `agno_schedules` (agno's columns; timestamps in epoch seconds). */
export interface Schedule {
  id: string;
  name: string;
  description: string | null;
  method: string;
  /** a path of this AgentOS, e.g. `/agents/assistant/runs` */
  endpoint: string;
  payload: Record<string, unknown> | null;
  cron_expr: string;
  timezone: string;
  timeout_seconds: number;
  max_retries: number;
  retry_delay_seconds: number;
  enabled: boolean;
  next_run_at: number | null;
  locked_by: string | null;
  locked_at: number | null;
  user_id: string | null;
  managed_by: string | null;
  target_type: string | null;
  target_id: string | null;
  created_by_run_id: string | null;
  created_by_session_id: string | null;
  updated_by_run_id: string | null;
  updated_by_session_id: string | null;
  /** why the system disabled it (a cron that no longer computes, …); cleared by enable */
  disabled_reason: string | null;
  created_at: number;
  updated_at: number | null;
}

/** A row of `agno_schedule_runs`: one attempt at one occurrence (or one manual trigger). */
export interface ScheduleRun {
  id: string;
  schedule_id: string;
  /** 1 for the first try, then one more per retry */
  attempt: number;
  triggered_at: number | null;
  completed_at: number | null;
  status: ScheduleRunStatus;
  status_code: number | null;
  run_id: string | null;
  session_id: string | null;
  error: string | null;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
  requirements: unknown[] | null;
  user_id: string | null;
  created_at: number;
  /** the cron occurrence this attempt serves (epoch seconds); null for a manual trigger */
  scheduled_for: number | null;
  /** the durable job that runs it */
  job_id: string | null;
  /** when the next retry falls due, while one is owed */
  next_attempt_at: number | null;
}

/** What `createSchedule` takes (agno's ScheduleCreate); unset fields get agno's defaults. */
export interface ScheduleInput {
  name: string;
  endpoint: string;
  cron_expr: string;
  method?: string;
  description?: string | null;
  payload?: Record<string, unknown> | null;
  timezone?: string;
  timeout_seconds?: number;
  max_retries?: number;
  retry_delay_seconds?: number;
  enabled?: boolean;
}

/** SPEC SC2: the only fields `updateSchedule` may change; ownership, origin and locks never move through it. */
export const SCHEDULE_MUTABLE_FIELDS = [
  "name",
  "description",
  "method",
  "endpoint",
  "payload",
  "cron_expr",
  "timezone",
  "timeout_seconds",
  "max_retries",
  "retry_delay_seconds",
  "enabled",
  "next_run_at",
  "disabled_reason",
] as const;
export type ScheduleUpdate = Partial<Pick<Schedule, (typeof SCHEDULE_MUTABLE_FIELDS)[number]>>;

/**
 * Whose schedules a call may touch: `userId` set means only that user's rows; `includeShared`
 * (reads only) adds the rows that belong to no user. Unset means every row (admins, no isolation).
 */
export interface ScheduleScope {
  userId?: string;
  includeShared?: boolean;
}

/** An attempt about to be recorded: the dispatcher fills it in, the store writes it. */
export type NewScheduleRun = Omit<ScheduleRun, "created_at" | "output" | "requirements"> & {
  /** `schedule:<id>:<occurrence>` or `schedule:<id>:manual:<uuid>`; with `attempt`, unique */
  occurrence_key: string;
};

/** Where a claimed schedule goes next: `next` null disables it with `disabled_reason`. */
export interface ScheduleAdvance {
  id: string;
  /** the next_run_at the claim saw: the advance applies only if it is still the stored one */
  claimed: number;
  next: number | null;
  disabled_reason: string | null;
}

/** A failed or timed-out attempt whose retry is due, with its schedule. */
export interface DueRetry {
  parent: ScheduleRun & { occurrence_key: string };
  schedule: Schedule;
}

/**
 * What one cron tick does to the tables, each call one statement (SPEC SC1). Claims lock rows
 * for `lockSeconds` so overlapping ticks split the work; every write is conditional, so a
 * duplicate, late or crashed tick leaves the same state as one clean tick.
 */
export interface ScheduleTicks {
  /** enabled schedules due by `dueBy`, not locked by a live tick, locked now for this worker */
  claimDueSchedules(opts: {
    workerId: string;
    dueBy: number;
    now: number;
    limit: number;
    lockSeconds: number;
  }): Promise<Schedule[]>;
  /** moves each claimed schedule on (if still at its claimed next_run_at), releases this worker's locks, and records the attempts */
  settleClaims(
    workerId: string,
    advances: ScheduleAdvance[],
    runs: NewScheduleRun[],
    now: number,
  ): Promise<{ advanced: number; recorded: number }>;
  /** attempts whose job ended get their final status from their run; failures owe a retry while retries remain */
  reconcileScheduleRuns(now: number): Promise<number>;
  /**
   * As reconcileScheduleRuns, for the attempts these jobs run only: called as a job ends, so an
   * attempt's status settles then instead of at the next tick. Attempts whose job has not ended
   * are left as they are; returns how many settled.
   */
  settleJobScheduleRuns(jobIds: string[], now: number): Promise<number>;
  /** attempts running longer than their schedule's timeout become `timeout`; returns their job ids to cancel */
  expireScheduleRuns(now: number): Promise<string[]>;
  dueScheduleRetries(now: number, limit: number): Promise<DueRetry[]>;
  /** records attempts (once per occurrence and attempt) and clears the retry owed by `retried` */
  recordScheduleRuns(runs: NewScheduleRun[], now: number, retried?: string[]): Promise<ScheduleRun[]>;
}

/** The schedules' storage port, scoped per call (SPEC U1). Validation happens here too, so SDK callers cannot skip it. */
export interface ScheduleStore {
  /** `maxPerUser`: the owner (no owner: one shared principal) may hold this many schedules; one more is a QuotaExceededError */
  createSchedule(
    input: ScheduleInput,
    owner: { userId: string | null },
    limits?: { maxPerUser?: number },
  ): Promise<Schedule>;
  getSchedule(id: string, scope?: ScheduleScope): Promise<Schedule | null>;
  listSchedules(
    opts?: { enabled?: boolean; limit?: number; page?: number },
    scope?: ScheduleScope,
  ): Promise<Page<Schedule>>;
  /** only SCHEDULE_MUTABLE_FIELDS; anything else is a ValidationError naming it. NotFoundError outside the scope. */
  updateSchedule(id: string, changes: Record<string, unknown>, scope?: ScheduleScope): Promise<Schedule>;
  /** the schedule and its run history; NotFoundError outside the scope */
  deleteSchedule(id: string, scope?: ScheduleScope): Promise<void>;
  /** enabled again with a fresh next_run_at and no disabled_reason */
  enableSchedule(id: string, scope?: ScheduleScope): Promise<Schedule>;
  disableSchedule(id: string, scope?: ScheduleScope, reason?: string | null): Promise<Schedule>;
  listScheduleRuns(
    scheduleId: string,
    opts?: { limit?: number; page?: number },
    scope?: ScheduleScope,
  ): Promise<Page<ScheduleRun>>;
  getScheduleRun(scheduleId: string, runId: string, scope?: ScheduleScope): Promise<ScheduleRun | null>;
}
