import { Pool } from "@neondatabase/serverless";
import { useLocalWsProxy } from "../db/postgres/local-proxy.js";
import { PostgresDb } from "../db/postgres/postgres-db.js";
import type { WorkerConfig } from "./env-config.js";

/**
 * The database adapter over a Pool made on its first query: a request that never queries (an
 * enqueue, a 401) opens none. On Workers a Pool lives within one request (or one Durable Object).
 */
export function openDb(config: WorkerConfig & { databaseUrl: string }, connections = 10) {
  let pool: Pool | undefined;
  const connect = () => (pool = newPool(config, connections));
  return {
    db: new PostgresDb({ pool: connect, schema: config.dbSchema, cacheKey: config.databaseUrl }),
    end: async () => pool?.end(),
  };
}

/**
 * A Pool on DATABASE_URL with the deployment's bounded waits: a database that refuses fails at
 * once, one that never answers (a dead host, a frozen server) fails after these instead of holding
 * the request. The statement bound is the driver's client-side query_timeout: it needs no startup
 * parameter, which poolers may refuse.
 */
export function newPool(config: WorkerConfig & { databaseUrl: string }, connections: number): Pool {
  if (config.dbWsProxy) useLocalWsProxy(config.dbWsProxy);
  const pool = new Pool({
    connectionString: config.databaseUrl,
    max: connections,
    connectionTimeoutMillis: config.db.connectTimeoutMs,
    query_timeout: config.db.statementTimeoutMs,
  });
  // An idle connection that drops (a restarted database, an aborted object) is not a crash.
  pool.on("error", (error: Error) => console.error(`database connection lost: ${error.message}`));
  return pool;
}

/** The config with its database, or null when DATABASE_URL is not set. */
export function withDatabase(config: WorkerConfig): (WorkerConfig & { databaseUrl: string }) | null {
  return config.databaseUrl ? (config as WorkerConfig & { databaseUrl: string }) : null;
}
