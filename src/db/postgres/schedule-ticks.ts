import { sql, type SQL } from "drizzle-orm";
import type {
  DueRetry,
  NewScheduleRun,
  Schedule,
  ScheduleAdvance,
  ScheduleRun,
  ScheduleTicks,
} from "../../scheduler/types.js";
import {
  columns,
  RUN_COLUMNS,
  SCHEDULE_COLUMNS,
  toSchedule,
  toScheduleRun,
  type ScheduleDeps,
} from "./schedule-rows.js";
import { pgJson } from "../../json-limits.js";
import { rethrowUnavailable } from "./unavailable.js";

/** The attempt fields a tick writes (a NewScheduleRun's), with the types `jsonb_to_recordset` reads them as: one parameter for any number of rows. */
const NEW_RUN_FIELDS: Array<[keyof NewScheduleRun, string]> = [
  ["id", "text"],
  ["schedule_id", "text"],
  ["attempt", "bigint"],
  ["triggered_at", "bigint"],
  ["completed_at", "bigint"],
  ["status", "text"],
  ["status_code", "bigint"],
  ["run_id", "text"],
  ["session_id", "text"],
  ["error", "text"],
  ["input", "jsonb"],
  ["user_id", "text"],
  ["scheduled_for", "bigint"],
  ["occurrence_key", "text"],
  ["job_id", "text"],
  ["next_attempt_at", "bigint"],
];
const NEW_RUN_COLUMNS = sql.raw(NEW_RUN_FIELDS.map(([c]) => c).join(", "));
const NEW_RUN_RECORD = sql.raw(NEW_RUN_FIELDS.map(([c, type]) => `${c} ${type}`).join(", "));

/**
 * The cron tick's statements on `agno_schedules` / `agno_schedule_runs` (see ScheduleTicks).
 * Batches travel as one JSON parameter, so 10,000 claimed schedules settle in one statement
 * without meeting Postgres's 65,535-parameter limit.
 */
export class PostgresScheduleTicks implements ScheduleTicks {
  constructor(protected readonly d: ScheduleDeps) {}

  async claimDueSchedules(o: {
    workerId: string;
    dueBy: number;
    now: number;
    limit: number;
    lockSeconds: number;
  }): Promise<Schedule[]> {
    await this.d.ready();
    const rows = await this.d.exec(sql`
      UPDATE ${this.d.schedules} AS s SET locked_by = ${o.workerId}, locked_at = ${o.now}
      WHERE s.id IN (
        SELECT id FROM ${this.d.schedules}
        WHERE enabled AND next_run_at <= ${o.dueBy} AND (locked_at IS NULL OR locked_at <= ${o.now - o.lockSeconds})
        ORDER BY next_run_at, id LIMIT ${o.limit} FOR UPDATE SKIP LOCKED)
      RETURNING ${columns(SCHEDULE_COLUMNS, "s")}`);
    return rows.map(toSchedule);
  }

  async settleClaims(
    workerId: string,
    advances: ScheduleAdvance[],
    runs: NewScheduleRun[],
    now: number,
  ): Promise<{ advanced: number; recorded: number }> {
    if (advances.length === 0 && runs.length === 0) return { advanced: 0, recorded: 0 };
    // Moves only a schedule still at its claimed next_run_at (compared on the row as it is when
    // updated, not on the statement's snapshot): an edit made meanwhile, or a tick that got there
    // first, wins. This worker's lock is released either way. `moving` only feeds the count.
    const [row] = await this.d.exec(sql`
      WITH m AS (
        SELECT v.*, s0.next_run_at = v.claimed AS moving
        FROM jsonb_to_recordset(${JSON.stringify(advances)}::jsonb) AS v(id text, claimed bigint, next bigint, disabled_reason text)
        JOIN ${this.d.schedules} s0 ON s0.id = v.id),
      settled AS (
        UPDATE ${this.d.schedules} AS s SET
          next_run_at = CASE WHEN s.next_run_at = m.claimed THEN m.next ELSE s.next_run_at END,
          enabled = CASE WHEN s.next_run_at = m.claimed THEN s.enabled AND m.next IS NOT NULL ELSE s.enabled END,
          disabled_reason = CASE WHEN s.next_run_at = m.claimed THEN COALESCE(m.disabled_reason, s.disabled_reason) ELSE s.disabled_reason END,
          locked_by = NULL, locked_at = NULL, updated_at = ${now}
        FROM m WHERE s.id = m.id AND (s.next_run_at = m.claimed OR s.locked_by = ${workerId}) RETURNING m.moving),
      recorded AS (${this.insertRuns(runs, now)})
      SELECT (SELECT COUNT(*) FROM settled WHERE moving) AS advanced, (SELECT COUNT(*) FROM recorded) AS recorded`);
    return { advanced: Number(row?.advanced ?? 0), recorded: Number(row?.recorded ?? 0) };
  }

  async reconcileScheduleRuns(now: number): Promise<number> {
    return this.settleEnded(now, sql``);
  }

  async settleJobScheduleRuns(jobIds: string[], now: number): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.settleEnded(
      now,
      sql`AND x.job_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb))`,
    );
  }

  /** Gives running attempts whose job ended (those `only` narrows it to) their final status. */
  private async settleEnded(now: number, only: SQL): Promise<number> {
    await this.d.ready();
    // The run's status decides (a job ends COMPLETED for a paused run too); the job's, when the
    // run is gone, never started (an agent this deployment no longer serves), or the job runs no
    // run (an eval): a job that completed then succeeded, with no error.
    const rows = await this.d.exec(sql`
      UPDATE ${this.d.scheduleRuns} AS sr SET status = d.outcome, completed_at = ${now}, error = d.error, output = d.output, requirements = d.requirements,
        next_attempt_at = CASE WHEN d.outcome = 'failed' AND d.enabled AND sr.attempt <= d.max_retries THEN ${now} + d.retry_delay_seconds END
      FROM (
        SELECT x.id, COALESCE(s.enabled, FALSE) AS enabled, s.max_retries, s.retry_delay_seconds, r.run_data,
          CASE WHEN r.status = 'COMPLETED' OR (r.status IS NULL AND j.status = 'COMPLETED') THEN 'success'
            WHEN r.status = 'PAUSED' THEN 'paused'
            WHEN r.status = 'CANCELLED' OR j.status = 'CANCELLED' THEN 'cancelled' ELSE 'failed' END AS outcome,
          CASE WHEN r.status IN ('COMPLETED', 'PAUSED') OR (r.status IS NULL AND j.status = 'COMPLETED') THEN NULL ELSE COALESCE(j.error, r.run_data->>'content', 'the run ended ' || COALESCE(r.status, j.status)) END AS error,
          CASE WHEN r.status = 'COMPLETED' THEN jsonb_build_object('content', r.run_data->'content', 'content_type', r.run_data->'content_type') END AS output,
          CASE WHEN r.status = 'PAUSED' THEN r.run_data->'requirements' END AS requirements
        FROM ${this.d.scheduleRuns} x JOIN ${this.d.jobs} j ON j.id = x.job_id
          LEFT JOIN ${this.d.schedules} s ON s.id = x.schedule_id LEFT JOIN ${this.d.runs} r ON r.run_id = x.run_id
        WHERE x.status = 'running' AND j.status IN ('COMPLETED', 'FAILED', 'CANCELLED') ${only}
        FOR UPDATE OF x SKIP LOCKED) d
      WHERE sr.id = d.id AND sr.status = 'running'
      RETURNING sr.id`);
    return rows.length;
  }

  async expireScheduleRuns(now: number): Promise<string[]> {
    await this.d.ready();
    const rows = await this.d.exec(sql`
      UPDATE ${this.d.scheduleRuns} AS sr SET status = 'timeout', completed_at = ${now}, error = 'no result within timeout_seconds (' || s.timeout_seconds || ' s): the run was cancelled',
        next_attempt_at = CASE WHEN s.enabled AND sr.attempt <= s.max_retries THEN ${now} + s.retry_delay_seconds END
      FROM ${this.d.schedules} s
      WHERE s.id = sr.schedule_id AND sr.status = 'running' AND sr.triggered_at + s.timeout_seconds <= ${now}
      RETURNING sr.job_id`);
    return rows.map((r) => r.job_id).filter((id): id is string => typeof id === "string");
  }

  async dueScheduleRetries(now: number, limit: number): Promise<DueRetry[]> {
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT ${columns(RUN_COLUMNS, "sr")}, sr.occurrence_key, to_jsonb(s) AS schedule
      FROM ${this.d.scheduleRuns} sr JOIN ${this.d.schedules} s ON s.id = sr.schedule_id
      WHERE sr.next_attempt_at <= ${now} AND s.enabled AND sr.occurrence_key IS NOT NULL
      ORDER BY sr.next_attempt_at, sr.id LIMIT ${limit}`);
    return rows.map((r) => ({
      parent: { ...toScheduleRun(r), occurrence_key: String(r.occurrence_key) },
      schedule: toSchedule(r.schedule as Record<string, unknown>),
    }));
  }

  async recordScheduleRuns(runs: NewScheduleRun[], now: number, retried: string[] = []): Promise<ScheduleRun[]> {
    if (runs.length === 0 && retried.length === 0) return [];
    await this.d.ready();
    const rows = await this.d.exec(sql`
      WITH cleared AS (UPDATE ${this.d.scheduleRuns} SET next_attempt_at = NULL WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(retried)}::jsonb)) RETURNING id),
      recorded AS (${this.insertRuns(runs, now, columns(RUN_COLUMNS, "r"))})
      SELECT * FROM recorded`);
    return rows.map(toScheduleRun);
  }

  /** Records attempts once per (occurrence, attempt): a repeated tick's insert is a no-op. */
  protected insertRuns(runs: NewScheduleRun[], now: number, returning: SQL = sql`id`): SQL {
    return sql`INSERT INTO ${this.d.scheduleRuns} AS r (${NEW_RUN_COLUMNS}, created_at)
      SELECT ${NEW_RUN_COLUMNS}, ${now} FROM jsonb_to_recordset(${pgJson(runs)}::jsonb) AS x(${NEW_RUN_RECORD})
      ON CONFLICT (occurrence_key, attempt) WHERE occurrence_key IS NOT NULL DO NOTHING
      RETURNING ${returning}`;
  }
}

// A database that cannot be reached is a DatabaseUnavailableError from every method, wherever it failed.
rethrowUnavailable(PostgresScheduleTicks);
