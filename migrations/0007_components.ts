/**
 * agno 3.0's component catalog (COMPONENT_TABLE_SCHEMA, COMPONENT_CONFIGS_TABLE_SCHEMA,
 * COMPONENT_LINKS_TABLE_SCHEMA): agents, teams and workflows stored as data, each with numbered
 * config versions (draft or published; a deleted version keeps its number as a `_deleted`
 * tombstone) and the links a version pins to other components. The columns, keys and indexes
 * are agno's, so agno and agno-edge read each other's catalog.
 */
export const version = "3.0.6";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {components} (
    component_id VARCHAR NOT NULL PRIMARY KEY,
    component_type VARCHAR NOT NULL,
    name VARCHAR,
    user_id VARCHAR,
    description TEXT,
    current_version INTEGER,
    metadata JSONB,
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    deleted_at BIGINT
  )`,
  ...["component_type", "name", "user_id", "current_version", "created_at"].map(
    (c) => `CREATE INDEX IF NOT EXISTS {components_idx}_${c} ON {components} (${c})`,
  ),
  `CREATE TABLE IF NOT EXISTS {component_configs} (
    component_id VARCHAR NOT NULL REFERENCES {components} (component_id),
    version INTEGER NOT NULL,
    label VARCHAR,
    stage VARCHAR NOT NULL DEFAULT 'draft',
    config JSONB NOT NULL,
    notes TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    deleted_at BIGINT,
    PRIMARY KEY (component_id, version)
  )`,
  ...["stage", "created_at"].map(
    (c) => `CREATE INDEX IF NOT EXISTS {component_configs_idx}_${c} ON {component_configs} (${c})`,
  ),
  `CREATE TABLE IF NOT EXISTS {component_links} (
    parent_component_id VARCHAR NOT NULL,
    parent_version INTEGER NOT NULL,
    link_kind VARCHAR NOT NULL,
    link_key VARCHAR NOT NULL,
    child_component_id VARCHAR NOT NULL REFERENCES {components} (component_id),
    child_version INTEGER,
    position INTEGER NOT NULL,
    meta JSONB,
    created_at BIGINT,
    updated_at BIGINT,
    PRIMARY KEY (parent_component_id, parent_version, link_kind, link_key),
    FOREIGN KEY (parent_component_id, parent_version) REFERENCES {component_configs} (component_id, version)
  )`,
  ...["link_kind", "created_at", "child_component_id"].map(
    (c) => `CREATE INDEX IF NOT EXISTS {component_links_idx}_${c} ON {component_links} (${c})`,
  ),
];

/** The tables this migration stamps in the versions table. */
export const tables = ["components", "componentConfigs", "componentLinks"] as const;
