/**
 * The public SDK surface: `import { PostgresDb, MigrationManager, AgentOS } from "agno-edge"`.
 * Exports are listed one by one so that what is public is a decision, not an accident.
 */
export {
  AgnoError,
  ConfirmationRequiredError,
  ConflictError,
  MigrationRequiredError,
  NotConfiguredError,
  NotFoundError,
  SchemaMismatchError,
  ValidationError,
} from "./errors.js";
export type { Db, MigrateOptions, MigrationProgress, MigrationResult } from "./db/port.js";
export type {
  GetRunsOptions,
  GetSessionOptions,
  GetSessionsOptions,
  MessageRecord,
  Page,
  RunRecord,
  RunRow,
  RunStatus,
  RunType,
  SessionRecord,
  SessionType,
} from "./db/types.js";
export { Session, runTypeOf } from "./db/session.js";
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "./db/pagination.js";
export { MigrationManager } from "./db/migration-manager.js";
export { PostgresDb, type PostgresDbOptions } from "./db/postgres/postgres-db.js";
export { DEFAULT_TABLE_NAMES, type TableNames } from "./db/postgres/names.js";
export { CURRENT_SCHEMA_VERSION } from "../migrations/index.js";
export { AgentOS, type AgentOSOptions } from "./os/agent-os.js";
export type { AuthConfig } from "./os/auth.js";
export type { RequestServices } from "./os/context.js";
