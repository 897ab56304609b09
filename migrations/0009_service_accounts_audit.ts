/**
 * Service accounts and the audit trail (issue 22). `agno_service_accounts` is agno 3.0's table
 * (SERVICE_ACCOUNT_TABLE_SCHEMA): a machine principal `sa:<name>` whose key is stored only as its
 * SHA-256, with one active account per name (a revoked name may be minted again, as agno rotates).
 * `agno_audit_log` is agno-edge's own (agno has no audit table): one row per write to a
 * configuration resource, naming who made it, what it was, and the version before and after.
 */
export const version = "3.0.8";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {service_accounts} (
    id VARCHAR NOT NULL PRIMARY KEY,
    name VARCHAR NOT NULL,
    user_id VARCHAR,
    token_hash VARCHAR NOT NULL UNIQUE,
    token_prefix VARCHAR NOT NULL,
    scopes JSONB NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    last_used_at BIGINT,
    revoked_at BIGINT,
    created_by VARCHAR
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS {service_accounts_idx}_uq_active_name ON {service_accounts} (name) WHERE revoked_at IS NULL`,
  `CREATE INDEX IF NOT EXISTS {service_accounts_idx}_created_at ON {service_accounts} (created_at)`,
  `CREATE INDEX IF NOT EXISTS {service_accounts_idx}_user_id ON {service_accounts} (user_id)`,
  `CREATE TABLE IF NOT EXISTS {audit_log} (
    id VARCHAR NOT NULL PRIMARY KEY,
    principal VARCHAR,
    action VARCHAR NOT NULL,
    resource_type VARCHAR NOT NULL,
    resource_id VARCHAR NOT NULL,
    before_version VARCHAR,
    after_version VARCHAR,
    details JSONB,
    created_at BIGINT NOT NULL,
    seq BIGSERIAL NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS {audit_log_idx}_seq ON {audit_log} (seq)`,
  `CREATE INDEX IF NOT EXISTS {audit_log_idx}_resource ON {audit_log} (resource_type, resource_id)`,
  `CREATE INDEX IF NOT EXISTS {audit_log_idx}_principal ON {audit_log} (principal)`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["serviceAccounts", "auditLog"] as const;
