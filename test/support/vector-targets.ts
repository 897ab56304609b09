import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import { InMemoryVectorDb } from "../../src/knowledge/vectordb/in-memory-vector-db.js";
import { PgVector, type PgVectorOptions } from "../../src/knowledge/vectordb/pgvector/pg-vector.js";
import { pgliteExecutor } from "../../src/knowledge/vectordb/pgvector/pglite-executor.js";
import type { SqlExecutor } from "../../src/knowledge/vectordb/pgvector/sql-executor.js";
import { CONTRACT_DIMENSIONS, type VectorTarget } from "./vector-contract.js";

let tables = 0;
const nextTable = () => `vec_${process.pid}_${tables++}`;

export const memoryVectorTarget = (): VectorTarget => ({ open: async () => new InMemoryVectorDb() });

/** PGlite in this process with pgvector loaded through its `extensions` option. */
export async function openPgliteWithVector(): Promise<{ pg: PGlite; executor: SqlExecutor }> {
  const pg = await PGlite.create({ extensions: { vector } });
  return { pg, executor: pgliteExecutor(pg, "public") };
}

export function pgVectorTarget(executor: () => SqlExecutor, opts: Partial<PgVectorOptions> = {}): VectorTarget {
  return {
    open: async () =>
      new PgVector({ tableName: nextTable(), dimensions: CONTRACT_DIMENSIONS, ...opts, executor: executor() }),
  };
}

/** Whether a server offers the `vector` extension (installed, or installable). */
export async function vectorAvailable(executor: SqlExecutor): Promise<boolean> {
  const rows = await executor.exec(sql`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  return rows.length > 0;
}
