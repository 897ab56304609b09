import { Pool } from "@neondatabase/serverless";
import { inject } from "vitest";
import ws from "ws";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import type { Db } from "../../src/db/port.js";
import pg from "pg";
import { nodePostgresDb } from "../../src/db/postgres/node-postgres-db.js";
import { PostgresDb, type PostgresDbOptions } from "../../src/db/postgres/postgres-db.js";
import { memoryTestDb } from "./agent-kit.js";

export interface DbTarget {
  name: string;
  url: string;
  /** the driver PostgresDb talks through: Neon's over the WebSocket proxy (default), or node-postgres over TCP */
  driver?: "neon" | "node-postgres";
}

/** Every Postgres the storage suites run against: PGlite always, the real server when configured. */
export function dbTargets(): DbTarget[] {
  const targets = [{ name: "pglite", url: inject("pgliteUrl") }];
  const real = inject("realPgUrl");
  if (real) targets.push({ name: "postgresql", url: real });
  return targets;
}

/** dbTargets() and the real server again through node-postgres over TCP (`agno-edge/pg`), when configured. */
export function dbTargetsWithTcp(): DbTarget[] {
  const targets = dbTargets();
  const real = targets.find((t) => t.name === "postgresql");
  return real ? [...targets, { name: "postgresql over TCP", url: real.url, driver: "node-postgres" }] : targets;
}

let configured = false;

export interface TestDb {
  db: PostgresDb;
  /** a Neon Pool; on a node-postgres target, a `pg` Pool (their query and end are alike) */
  pool: Pool;
  schema: string;
  /** runs raw SQL against the same database (fixtures, assertions on the stored bytes) */
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

let counter = 0;

/** A PostgresDb in a schema of its own, so test files never see each other's rows. */
export function openTestDb(target: DbTarget, opts: Partial<PostgresDbOptions> = {}): TestDb {
  if (!configured) {
    useLocalWsProxy(inject("wsProxy"), ws);
    configured = true;
  }
  const schema = opts.schema ?? `t_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const { db, pool } =
    target.driver === "node-postgres"
      ? tcpDb(target.url, { ...opts, schema })
      : (() => {
          const pool = new Pool({ connectionString: target.url, max: 8 });
          return { pool, db: new PostgresDb({ ...opts, pool, schema }) };
        })();
  return {
    db,
    pool,
    schema,
    query: async (text, values) => (await pool.query(text, values as unknown[])).rows,
    close: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

function tcpDb(url: string, opts: Partial<PostgresDbOptions> & { schema: string }) {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  const { pool: _neonPool, driver: _driver, ...rest } = opts;
  return { pool: pool as unknown as Pool, db: nodePostgresDb({ ...rest, pool }) };
}

/** A store a domain suite runs on: its name and how to open it. */
export type TestStore = [string, () => { db: Db; close(): Promise<void> }];

/**
 * The stores a domain suite runs on (`describe.each`): the in-memory Db and PGlite, or with
 * `everyPostgres` each Postgres of dbTargets().
 */
export function testStores(opts: { everyPostgres?: boolean } = {}): TestStore[] {
  const targets = dbTargets().filter((t) => opts.everyPostgres || t.name === "pglite");
  return [["memory", memoryTestDb], ...targets.map((t): TestStore => [t.name, () => openTestDb(t)])];
}
