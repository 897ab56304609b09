/**
 * agno 3.0's learnings (`agno_learnings`, LEARNINGS_TABLE_SCHEMA): what the learning stores keep
 * (user profile, user memory, entity memory, decision log, …), one row per deterministic id.
 * The columns and indexes are agno's, so agno and agno-edge read each other's rows.
 */
export const version = "3.0.5";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {learnings} (
    learning_id VARCHAR NOT NULL PRIMARY KEY,
    learning_type VARCHAR NOT NULL,
    namespace VARCHAR,
    user_id VARCHAR,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    session_id VARCHAR,
    entity_id VARCHAR,
    entity_type VARCHAR,
    content JSONB NOT NULL,
    metadata JSONB,
    created_at BIGINT NOT NULL,
    updated_at BIGINT
  )`,
  ...[
    "learning_type",
    "namespace",
    "user_id",
    "agent_id",
    "team_id",
    "workflow_id",
    "session_id",
    "entity_id",
    "entity_type",
    "created_at",
  ].map((c) => `CREATE INDEX IF NOT EXISTS {learnings_idx}_${c} ON {learnings} (${c})`),
];

/** The tables this migration stamps in the versions table. */
export const tables = ["learnings"] as const;
