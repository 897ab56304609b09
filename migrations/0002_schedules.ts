/**
 * Schedules (SPEC SC1-SC2, M5): agno's `agno_schedules` and `agno_schedule_runs` columns, plus
 * four of ours on the runs (the occurrence an attempt serves, its job, when a retry falls due).
 * Tables an earlier agno made are kept and given the columns agno added later.
 * The unique key `(user_id, name)` is added by a statement that first looks for names a user
 * holds twice and, if there are any, stops the whole migration naming them: nothing of it is
 * applied (the DDL runs in one transaction), and the duplicates are the operator's to resolve.
 */
export const version = "3.0.1";

const laterScheduleColumns = [
  "user_id VARCHAR",
  "managed_by VARCHAR",
  "target_type VARCHAR",
  "target_id VARCHAR",
  "created_by_run_id VARCHAR",
  "created_by_session_id VARCHAR",
  "updated_by_run_id VARCHAR",
  "updated_by_session_id VARCHAR",
  "disabled_reason TEXT",
];
const laterRunColumns = [
  "user_id VARCHAR",
  "scheduled_for BIGINT",
  "occurrence_key VARCHAR",
  "job_id VARCHAR",
  "next_attempt_at BIGINT",
];

export const statements = [
  `CREATE TABLE IF NOT EXISTS {schedules} (
    id VARCHAR NOT NULL PRIMARY KEY,
    name VARCHAR NOT NULL,
    description TEXT,
    method VARCHAR NOT NULL DEFAULT 'POST',
    endpoint VARCHAR NOT NULL,
    payload JSONB,
    cron_expr VARCHAR NOT NULL,
    timezone VARCHAR NOT NULL DEFAULT 'UTC',
    timeout_seconds BIGINT NOT NULL DEFAULT 3600,
    max_retries BIGINT NOT NULL DEFAULT 0,
    retry_delay_seconds BIGINT NOT NULL DEFAULT 60,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    next_run_at BIGINT,
    locked_by VARCHAR,
    locked_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  ...laterScheduleColumns.map((c) => `ALTER TABLE {schedules} ADD COLUMN IF NOT EXISTS ${c}`),
  // The claim's scan: enabled schedules by due time.
  `CREATE INDEX IF NOT EXISTS {schedules_idx}_due ON {schedules} (next_run_at) WHERE enabled`,
  `CREATE INDEX IF NOT EXISTS {schedules_idx}_user_id ON {schedules} (user_id)`,
  `CREATE TABLE IF NOT EXISTS {schedule_runs} (
    id VARCHAR NOT NULL PRIMARY KEY,
    schedule_id VARCHAR NOT NULL,
    attempt BIGINT NOT NULL,
    triggered_at BIGINT,
    completed_at BIGINT,
    status VARCHAR NOT NULL,
    status_code BIGINT,
    run_id VARCHAR,
    session_id VARCHAR,
    error TEXT,
    input JSONB,
    output JSONB,
    requirements JSONB,
    created_at BIGINT NOT NULL
  )`,
  ...laterRunColumns.map((c) => `ALTER TABLE {schedule_runs} ADD COLUMN IF NOT EXISTS ${c}`),
  `CREATE INDEX IF NOT EXISTS {schedule_runs_idx}_schedule_id_created_at ON {schedule_runs} (schedule_id, created_at)`,
  // The per-tick reconcile and retry scans touch only open attempts, so they stay small.
  `CREATE INDEX IF NOT EXISTS {schedule_runs_idx}_running ON {schedule_runs} (triggered_at) WHERE status = 'running'`,
  `CREATE INDEX IF NOT EXISTS {schedule_runs_idx}_next_attempt_at ON {schedule_runs} (next_attempt_at) WHERE next_attempt_at IS NOT NULL`,
  // One row per attempt of an occurrence: a duplicate or late tick records nothing twice.
  `CREATE UNIQUE INDEX IF NOT EXISTS {schedule_runs_idx}_occurrence_attempt ON {schedule_runs} (occurrence_key, attempt) WHERE occurrence_key IS NOT NULL`,
  // SPEC M5. COALESCE: schedules without an owner share one namespace too.
  `DO $m5$
  DECLARE duplicates TEXT;
  BEGIN
    IF to_regclass('{schema}.{schedules_idx}_user_id_name') IS NULL THEN
      SELECT string_agg(format('user %s: %s (%s schedules)', COALESCE(quote_literal(owner), 'none'), quote_literal(name), n), '; ' ORDER BY owner, name)
        INTO duplicates
        FROM (SELECT MIN(user_id) AS owner, name, COUNT(*) AS n FROM {schedules} GROUP BY COALESCE(user_id, ''), name HAVING COUNT(*) > 1) d;
      IF duplicates IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'unique_violation',
          MESSAGE = 'cannot add the unique key (user_id, name) to {schedules}: one user holds several schedules of the same name: '
            || duplicates || '. Rename or delete the duplicates, then migrate again (nothing was changed)';
      END IF;
      CREATE UNIQUE INDEX {schedules_idx}_user_id_name ON {schedules} (COALESCE(user_id, ''), name);
    END IF;
  END
  $m5$`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["schedules", "scheduleRuns"] as const;
