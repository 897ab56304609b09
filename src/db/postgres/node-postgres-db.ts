import { drizzle } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import { PostgresDb, type PostgresDbOptions, type PostgresDriver } from "./postgres-db.js";

const nodePostgres: PostgresDriver = (client: Pool) => drizzle({ client }) as unknown as ReturnType<PostgresDriver>;

/**
 * The Postgres adapter over a node-postgres (`pg`) Pool: plain TCP, so each statement is one
 * round trip to the server with no WebSocket hop: the fastest path from Node.
 *
 * @example
 * import pg from "pg";
 * const db = nodePostgresDb({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 */
export function nodePostgresDb(
  opts: Omit<PostgresDbOptions, "pool" | "driver"> & { pool: Pool | (() => Pool) },
): PostgresDb {
  return new PostgresDb({
    preparedStatements: true,
    ...opts,
    pool: opts.pool as unknown as PostgresDbOptions["pool"],
    driver: nodePostgres,
  });
}
