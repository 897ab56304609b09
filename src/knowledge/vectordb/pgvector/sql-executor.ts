import type { SQL } from "drizzle-orm";

/** Rows of one statement. */
export type SqlExec = (query: SQL) => Promise<Record<string, unknown>[]>;

/**
 * Raw SQL on one Postgres database: what PgVector needs of a connection. PostgresDb.sqlExecutor()
 * gives one over the database's own pool; pgliteExecutor() one over an in-process PGlite.
 */
export interface SqlExecutor {
  exec: SqlExec;
  /** statements on one connection, committed together (SET LOCAL lasts until its end) */
  transaction<T>(fn: (exec: SqlExec) => Promise<T>): Promise<T>;
  /** the schema the database's tables live in, the vector table's default */
  schema: string;
  /** identifies the database across instances in one isolate, so the table check runs once */
  cacheKey?: string;
}
