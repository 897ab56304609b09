/**
 * Knowledge contents: agno 3.0's `agno_knowledge` (db/postgres/schemas.py KNOWLEDGE_TABLE_SCHEMA),
 * one row per content a knowledge base ingested, with its status. `user_id` NULL is shared with
 * every user. A table an earlier agno made gets the columns agno added later. The vectors live
 * elsewhere (PgVector's own table, made lazily, since a server may lack the extension).
 */
export const version = "3.0.4";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {knowledge} (
    id VARCHAR NOT NULL PRIMARY KEY,
    name VARCHAR NOT NULL,
    description TEXT NOT NULL,
    metadata JSONB,
    type VARCHAR,
    size BIGINT,
    linked_to VARCHAR,
    access_count BIGINT,
    status VARCHAR,
    status_message TEXT,
    created_at BIGINT,
    updated_at BIGINT,
    external_id VARCHAR
  )`,
  `ALTER TABLE {knowledge} ADD COLUMN IF NOT EXISTS user_id VARCHAR`,
  `CREATE INDEX IF NOT EXISTS {knowledge_idx}_user_id ON {knowledge} (user_id)`,
  // agno's composite index: the list query filters by owner (or shared) and knowledge base
  `CREATE INDEX IF NOT EXISTS {knowledge_idx}_user_linked_to ON {knowledge} (user_id, linked_to)`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["knowledge"] as const;
