import { PgDialect } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import type { SqlExec, SqlExecutor } from "./sql-executor.js";

/** The part of a PGlite instance (or its transaction) this uses. */
interface PgliteLike {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

const dialect = new PgDialect();

/**
 * A SqlExecutor over an in-process PGlite (with `@electric-sql/pglite-pgvector` loaded through its
 * `extensions` option), for a local knowledge base without a wire server.
 */
export function pgliteExecutor(
  db: PgliteLike & { transaction<T>(fn: (tx: PgliteLike) => Promise<T>): Promise<T> },
  schema = "public",
): SqlExecutor {
  const on =
    (target: PgliteLike): SqlExec =>
    async (query: SQL) => {
      const { sql, params } = dialect.sqlToQuery(query);
      return (await target.query<Record<string, unknown>>(sql, params)).rows;
    };
  return { exec: on(db), transaction: (fn) => db.transaction((tx) => fn(on(tx))), schema };
}
