import type { SchemaState } from "../types.js";

export interface MigrationProgress {
  sessionsDone: number;
  sessionsTotal: number;
  runsCopied: number;
}

export interface MigrateOptions {
  /** sessions per transaction */
  batchSize?: number;
  onProgress?: (p: MigrationProgress) => void;
  /** stops between batches; what was committed stays, and a later `up()` resumes */
  signal?: AbortSignal;
}

export interface MigrationResult {
  fromVersion: string | null;
  toVersion: string;
  sessionsScanned: number;
  runsCopied: number;
}

/** What a database as a whole answers: its id, its schema, its reachability, its migration from 2.x. */
export interface DbAdmin {
  /** a stable id, listed by `GET /config` and used by `POST /databases/{db_id}/migrate` */
  readonly id: string;

  /** checks (and on a fresh database creates) the tables; throws SchemaMismatchError */
  init(): Promise<SchemaState>;
  schemaVersion(): Promise<string | null>;
  /** one round trip to the database, for `/health`; rejects (DatabaseUnavailableError) when it cannot be reached */
  ping?(): Promise<void>;

  /** copies legacy (2.x) session blobs into run rows; see MigrationManager */
  migrate(opts?: MigrateOptions): Promise<MigrationResult>;
  /** drops the legacy runs column; refuses without `force: true` or before migration */
  cleanupLegacyRunsColumn(opts: { force: boolean }): Promise<void>;
}
