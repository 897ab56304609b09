/**
 * Observability (issue 23): agno 3.0's metrics, eval and trace tables, column for column
 * (METRICS_TABLE_SCHEMA, EVAL_TABLE_SCHEMA, TRACE_TABLE_SCHEMA and the span table).
 * Metrics rows are one bucket per (user, day, period); the owner is '' rather than NULL, as in
 * agno, so the unique constraint holds for the deployment-wide bucket too. Evals are keyed by
 * their own run_id, so running the same eval twice keeps two records. Times in the trace tables
 * are ISO 8601 strings, as agno stores them.
 */
export const version = "3.0.9";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {metrics} (
    id VARCHAR NOT NULL PRIMARY KEY,
    agent_runs_count BIGINT NOT NULL DEFAULT 0,
    team_runs_count BIGINT NOT NULL DEFAULT 0,
    workflow_runs_count BIGINT NOT NULL DEFAULT 0,
    agent_sessions_count BIGINT NOT NULL DEFAULT 0,
    team_sessions_count BIGINT NOT NULL DEFAULT 0,
    workflow_sessions_count BIGINT NOT NULL DEFAULT 0,
    users_count BIGINT NOT NULL DEFAULT 0,
    token_metrics JSONB NOT NULL DEFAULT '{}'::jsonb,
    model_metrics JSONB NOT NULL DEFAULT '{}'::jsonb,
    date DATE NOT NULL,
    aggregation_period VARCHAR NOT NULL,
    user_id VARCHAR NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    completed BOOLEAN NOT NULL DEFAULT FALSE,
    CONSTRAINT {metrics_idx}_uq_user_date_period UNIQUE (user_id, date, aggregation_period)
  )`,
  `CREATE INDEX IF NOT EXISTS {metrics_idx}_date ON {metrics} (date)`,
  `CREATE INDEX IF NOT EXISTS {metrics_idx}_user_id ON {metrics} (user_id)`,
  `CREATE TABLE IF NOT EXISTS {evals} (
    run_id VARCHAR NOT NULL PRIMARY KEY,
    eval_type VARCHAR NOT NULL,
    eval_data JSONB NOT NULL,
    eval_input JSONB NOT NULL,
    name VARCHAR,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    model_id VARCHAR,
    model_provider VARCHAR,
    evaluated_component_name VARCHAR,
    user_id VARCHAR,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {evals_idx}_user_id ON {evals} (user_id)`,
  `CREATE INDEX IF NOT EXISTS {evals_idx}_created_at ON {evals} (created_at)`,
  `CREATE TABLE IF NOT EXISTS {traces} (
    trace_id VARCHAR NOT NULL PRIMARY KEY,
    name VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    start_time VARCHAR NOT NULL,
    end_time VARCHAR NOT NULL,
    duration_ms BIGINT NOT NULL,
    run_id VARCHAR,
    session_id VARCHAR,
    user_id VARCHAR,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    created_at VARCHAR NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_status ON {traces} (status)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_start_time ON {traces} (start_time)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_run_id ON {traces} (run_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_session_id ON {traces} (session_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_user_id ON {traces} (user_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_agent_id ON {traces} (agent_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_team_id ON {traces} (team_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_workflow_id ON {traces} (workflow_id)`,
  `CREATE INDEX IF NOT EXISTS {traces_idx}_created_at ON {traces} (created_at)`,
  `CREATE TABLE IF NOT EXISTS {spans} (
    span_id VARCHAR NOT NULL PRIMARY KEY,
    trace_id VARCHAR NOT NULL REFERENCES {traces} (trace_id) ON DELETE CASCADE,
    parent_span_id VARCHAR,
    name VARCHAR NOT NULL,
    span_kind VARCHAR NOT NULL,
    status_code VARCHAR NOT NULL,
    status_message TEXT,
    start_time VARCHAR NOT NULL,
    end_time VARCHAR NOT NULL,
    duration_ms BIGINT NOT NULL,
    attributes JSONB,
    created_at VARCHAR NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS {spans_idx}_trace_id ON {spans} (trace_id)`,
  `CREATE INDEX IF NOT EXISTS {spans_idx}_parent_span_id ON {spans} (parent_span_id)`,
  `CREATE INDEX IF NOT EXISTS {spans_idx}_start_time ON {spans} (start_time)`,
  `CREATE INDEX IF NOT EXISTS {spans_idx}_created_at ON {spans} (created_at)`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["metrics", "evals", "traces", "spans"] as const;
