import { sql, type SQL } from "drizzle-orm";
import type { Schedule, ScheduleRun, ScheduleRunStatus, ScheduleScope } from "../../scheduler/types.js";
import { num, numOrNull, str } from "./rows.js";
import type { Exec } from "./schema-state.js";

/** What the schedule tables borrow from their PostgresDb. */
export interface ScheduleDeps {
  exec: Exec;
  /** resolves once the database holds the current layout */
  ready: () => Promise<void>;
  schedules: SQL;
  scheduleRuns: SQL;
  jobs: SQL;
  runs: SQL;
}

export const SCHEDULE_COLUMNS = [
  "id",
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
  "locked_by",
  "locked_at",
  "user_id",
  "managed_by",
  "target_type",
  "target_id",
  "created_by_run_id",
  "created_by_session_id",
  "updated_by_run_id",
  "updated_by_session_id",
  "disabled_reason",
  "created_at",
  "updated_at",
] as const;

export const RUN_COLUMNS = [
  "id",
  "schedule_id",
  "attempt",
  "triggered_at",
  "completed_at",
  "status",
  "status_code",
  "run_id",
  "session_id",
  "error",
  "input",
  "output",
  "requirements",
  "user_id",
  "created_at",
  "scheduled_for",
  "job_id",
  "next_attempt_at",
] as const;

/** `alias.col, …` for a SELECT or RETURNING list. */
export const columns = (list: readonly string[], alias: string): SQL =>
  sql.raw(list.map((c) => `${alias}.${c}`).join(", "));

const json = <T>(value: unknown): T | null =>
  value === null || value === undefined ? null : ((typeof value === "string" ? JSON.parse(value) : value) as T);

export function toSchedule(row: Record<string, unknown>): Schedule {
  const text = (k: string) => str(row[k]);
  return {
    id: String(row.id),
    name: String(row.name),
    description: text("description"),
    method: String(row.method),
    endpoint: String(row.endpoint),
    payload: json(row.payload),
    cron_expr: String(row.cron_expr),
    timezone: String(row.timezone),
    timeout_seconds: num(row.timeout_seconds),
    max_retries: num(row.max_retries),
    retry_delay_seconds: num(row.retry_delay_seconds),
    enabled: row.enabled === true || row.enabled === "t",
    next_run_at: numOrNull(row.next_run_at),
    locked_by: text("locked_by"),
    locked_at: numOrNull(row.locked_at),
    user_id: text("user_id"),
    managed_by: text("managed_by"),
    target_type: text("target_type"),
    target_id: text("target_id"),
    created_by_run_id: text("created_by_run_id"),
    created_by_session_id: text("created_by_session_id"),
    updated_by_run_id: text("updated_by_run_id"),
    updated_by_session_id: text("updated_by_session_id"),
    disabled_reason: text("disabled_reason"),
    created_at: num(row.created_at),
    updated_at: numOrNull(row.updated_at),
  };
}

export function toScheduleRun(row: Record<string, unknown>): ScheduleRun {
  return {
    id: String(row.id),
    schedule_id: String(row.schedule_id),
    attempt: num(row.attempt),
    triggered_at: numOrNull(row.triggered_at),
    completed_at: numOrNull(row.completed_at),
    status: String(row.status) as ScheduleRunStatus,
    status_code: numOrNull(row.status_code),
    run_id: str(row.run_id),
    session_id: str(row.session_id),
    error: str(row.error),
    input: json(row.input),
    output: json(row.output),
    requirements: json(row.requirements),
    user_id: str(row.user_id),
    created_at: num(row.created_at),
    scheduled_for: numOrNull(row.scheduled_for),
    job_id: str(row.job_id),
    next_attempt_at: numOrNull(row.next_attempt_at),
  };
}

/** The owner filter of a call (SPEC U1); `alias` is the schedules table's. */
export function scopeFilter(scope: ScheduleScope, alias: string): SQL {
  const column = sql.raw(`${alias}.user_id`);
  if (scope.userId === undefined) return sql`TRUE`;
  return scope.includeShared
    ? sql`(${column} = ${scope.userId} OR ${column} IS NULL)`
    : sql`${column} = ${scope.userId}`;
}
