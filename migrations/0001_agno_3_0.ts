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
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_session_type ON {sessions} (session_type)`,
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_user_id ON {sessions} (user_id)`,
  `CREATE INDEX IF NOT EXISTS {sessions_idx}_created_at ON {sessions} (created_at)`,
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
  // agno 3.0's index set and names, so a database made by either looks the same.
  `CREATE INDEX IF NOT EXISTS {runs_idx}_session_id_run_index ON {runs} (session_id, run_index)`,
  ...["session_id", "run_type", "agent_id", "team_id", "workflow_id", "user_id", "status", "created_at"].map(
    (column) => `CREATE INDEX IF NOT EXISTS {runs_idx}_${column} ON {runs} (${column})`,
  ),
  // Durable background jobs (agno 3.0's columns; the lease expiry and request hash are ours).
  `CREATE TABLE IF NOT EXISTS {jobs} (
    id VARCHAR NOT NULL PRIMARY KEY,
    component_type VARCHAR NOT NULL,
    job_type VARCHAR NOT NULL DEFAULT 'run',
    deployment_id VARCHAR,
    component_id VARCHAR NOT NULL,
    session_id VARCHAR,
    user_id VARCHAR,
    payload JSONB NOT NULL,
    status VARCHAR NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 3,
    idempotency_key VARCHAR,
    request_hash VARCHAR,
    available_at BIGINT NOT NULL,
    locked_by VARCHAR,
    locked_at BIGINT,
    lease_expires_at BIGINT,
    error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    completed_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {jobs_idx}_status_available_at ON {jobs} (status, available_at)`,
  `CREATE UNIQUE INDEX IF NOT EXISTS {jobs_idx}_user_id_idempotency_key ON {jobs} (COALESCE(user_id, ''), idempotency_key) WHERE idempotency_key IS NOT NULL`,
  // Offloaded tool results: the bytes live in R2/S3 at (namespace, path); this is the index.
  `CREATE TABLE IF NOT EXISTS {tool_results} (
    result_id VARCHAR NOT NULL PRIMARY KEY,
    namespace VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    session_id VARCHAR,
    run_id VARCHAR,
    tool_call_id VARCHAR,
    tool_name VARCHAR,
    args_hash VARCHAR,
    content_type VARCHAR NOT NULL,
    size_bytes BIGINT NOT NULL,
    size_chars BIGINT NOT NULL,
    line_count BIGINT NOT NULL,
    preview TEXT,
    user_id VARCHAR,
    created_at BIGINT NOT NULL,
    expires_at BIGINT
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS {tool_results_idx}_namespace_path ON {tool_results} (namespace, path)`,
  `CREATE INDEX IF NOT EXISTS {tool_results_idx}_session_id_created_at ON {tool_results} (session_id, created_at)`,
  `CREATE INDEX IF NOT EXISTS {tool_results_idx}_expires_at ON {tool_results} (expires_at)`,
  // User memories (agno's UserMemory): facts about a user that agents carry across sessions.
  `CREATE TABLE IF NOT EXISTS {memories} (
    memory_id VARCHAR NOT NULL PRIMARY KEY,
    memory JSONB NOT NULL,
    input TEXT,
    agent_id VARCHAR,
    team_id VARCHAR,
    user_id VARCHAR,
    topics JSONB,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  `CREATE INDEX IF NOT EXISTS {memories_idx}_user_id ON {memories} (user_id)`,
  // A streamed run's events, by position, so a client can re-attach from any isolate (ours).
  `CREATE TABLE IF NOT EXISTS {run_events} (
    run_id VARCHAR NOT NULL REFERENCES {runs} (run_id) ON DELETE CASCADE,
    event_index INTEGER NOT NULL,
    event JSONB NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (run_id, event_index)
  )`,
  `CREATE INDEX IF NOT EXISTS {run_events_idx}_created_at ON {run_events} (created_at)`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["sessions", "runs", "jobs", "toolResults", "memories", "runEvents"] as const;
