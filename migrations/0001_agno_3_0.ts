/**
 * Fresh install of the agno 3.0 layout. Runs live in their own table (`agno_runs`); sessions
 * carry no runs blob. The versions table keeps agno's layout (ISO-8601 strings for its
 * timestamps), so a 2.3+ database's existing table is reused as it is.
 * `{schema}` and `{table}` placeholders are filled from the adapter's
 * configured names, which are checked identifiers. Timestamps are epoch seconds, as in agno.
 */
export const version = "3.0.0";

export const statements = [
  `CREATE SCHEMA IF NOT EXISTS {schema}`,
  `CREATE TABLE IF NOT EXISTS {versions} (
    table_name VARCHAR NOT NULL PRIMARY KEY,
    version VARCHAR NOT NULL,
    created_at VARCHAR NOT NULL,
    updated_at VARCHAR
  )`,
  `CREATE TABLE IF NOT EXISTS {sessions} (
    session_id VARCHAR NOT NULL PRIMARY KEY,
    session_type VARCHAR NOT NULL,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    user_id VARCHAR,
    session_data JSONB,
    agent_data JSONB,
    team_data JSONB,
    workflow_data JSONB,
    metadata JSONB,
    summary JSONB,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_type ON {sessions} (session_type)`,
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_user ON {sessions} (user_id)`,
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_created ON {sessions} (created_at)`,
  `CREATE TABLE IF NOT EXISTS {runs} (
    run_id VARCHAR NOT NULL PRIMARY KEY,
    session_id VARCHAR NOT NULL REFERENCES {sessions} (session_id) ON DELETE CASCADE,
    run_type VARCHAR NOT NULL,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    user_id VARCHAR,
    parent_run_id VARCHAR,
    status VARCHAR,
    run_index BIGINT,
    run_data JSONB NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {runs_idx}_session_index ON {runs} (session_id, run_index)`,
  `CREATE INDEX IF NOT EXISTS {runs_idx}_user ON {runs} (user_id)`,
  `CREATE INDEX IF NOT EXISTS {runs_idx}_status ON {runs} (status)`,
  `CREATE INDEX IF NOT EXISTS {runs_idx}_created ON {runs} (created_at)`,
  `CREATE INDEX IF NOT EXISTS {runs_idx}_parent ON {runs} (parent_run_id)`,
  `CREATE TABLE IF NOT EXISTS {jobs} (
    job_id VARCHAR NOT NULL PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    session_id VARCHAR,
    user_id VARCHAR,
    component_type VARCHAR NOT NULL,
    component_id VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    payload JSONB NOT NULL,
    idempotency_key VARCHAR,
    request_hash VARCHAR,
    attempt INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 3,
    lease_owner VARCHAR,
    lease_expires_at BIGINT,
    available_at BIGINT NOT NULL,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    completed_at BIGINT
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS {jobs_idx}_idempotency ON {jobs} (COALESCE(user_id, ''), idempotency_key) WHERE idempotency_key IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS {jobs_idx}_status_available ON {jobs} (status, available_at)`,
  `CREATE TABLE IF NOT EXISTS {tool_results} (
    result_id VARCHAR NOT NULL PRIMARY KEY,
    session_id VARCHAR,
    run_id VARCHAR,
    tool_call_id VARCHAR,
    tool_name VARCHAR,
    args_hash VARCHAR,
    content_type VARCHAR NOT NULL,
    size_chars BIGINT NOT NULL,
    size_bytes BIGINT NOT NULL,
    line_count BIGINT NOT NULL,
    preview TEXT,
    storage_key VARCHAR NOT NULL,
    user_id VARCHAR,
    created_at BIGINT NOT NULL,
    expires_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {tool_results_idx}_session ON {tool_results} (session_id)`,
  `CREATE INDEX IF NOT EXISTS {tool_results_idx}_expires ON {tool_results} (expires_at)`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["sessions", "runs", "jobs", "toolResults"] as const;
