import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { SchemaMismatchError } from "../../src/errors.js";
import { VectorTableMigrationRequiredError } from "../../src/knowledge/errors.js";
import { PgVector } from "../../src/knowledge/vectordb/pgvector/pg-vector.js";
import type { SqlExecutor } from "../../src/knowledge/vectordb/pgvector/sql-executor.js";
import type { VectorRecord } from "../../src/knowledge/vector-db.js";
import { openPgliteWithVector } from "../support/vector-targets.js";

const DIMS = 16;

/** A seeded PRNG (mulberry32): the same rows on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("PgVector on PGlite + pgvector", () => {
  let pg: PGlite;
  let executor: SqlExecutor;
  beforeAll(async () => {
    ({ pg, executor } = await openPgliteWithVector());
  }, 60_000);
  afterAll(() => pg?.close());

  it("a filtered HNSW search (one user's 1% of 5,000 rows) returns a full top 10 of theirs", async () => {
    const random = rng(42);
    const query = Array.from({ length: DIMS }, () => random() - 0.5);
    const near = () => query.map((x) => x + (random() - 0.5) * 0.3);
    const far = () => Array.from({ length: DIMS }, () => random() - 0.5);
    const rows: VectorRecord[] = [];
    for (let i = 0; i < 5000; i++) {
      const mine = i % 100 === 7;
      // everyone else's rows crowd the query's neighbourhood; the user's are scattered
      rows.push({
        id: `r${i}`,
        content: `row ${i}`,
        meta_data: {},
        embedding: mine ? far() : near(),
        content_id: `c${i % 10}`,
        user_id: mine ? "u-one" : `u-other-${i % 7}`,
      });
    }
    const store = new PgVector({ tableName: "iterative", dimensions: DIMS, executor });
    await store.insert(rows);
    // Only the HNSW index may serve the query (no sort, no bitmap or sequential scan), as on a
    // table too large for the planner to prefer anything else.
    await pg.exec("SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off");
    try {
      const plan = await pg.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT id FROM public.iterative WHERE (user_id = 'u-one' OR user_id IS NULL) ORDER BY embedding <=> $1::vector LIMIT 10`,
        [`[${query.join(",")}]`],
      );
      expect(plan.rows.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/idx_iterative_embedding/);

      // the control: the same scan without iterative scanning stops after ef_search candidates
      const control = await executor.transaction(async (tx) => {
        await tx(sql`SELECT set_config('hnsw.iterative_scan', 'off', true), set_config('hnsw.ef_search', '40', true)`);
        return tx(
          sql`SELECT id FROM public.iterative WHERE (user_id = 'u-one' OR user_id IS NULL) ORDER BY embedding <=> ${`[${query.join(",")}]`}::vector LIMIT 10`,
        );
      });
      expect(control.length).toBeLessThan(10);

      const docs = await store.search({ query: "", embedding: query, limit: 10, userId: "u-one" });
      expect(docs).toHaveLength(10);
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(docs.every((d) => byId.get(d.id!)!.user_id === "u-one")).toBe(true);
      // and they are the user's ten nearest, in order (exact, as a brute-force ranking says)
      const cos = (a: number[], b: number[]) => {
        const dot = a.reduce((s, x, i) => s + x * b[i]!, 0);
        return dot / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
      };
      const exact = rows
        .filter((r) => r.user_id === "u-one")
        .sort((a, b) => cos(b.embedding, query) - cos(a.embedding, query))
        .slice(0, 10)
        .map((r) => r.id);
      expect(docs.map((d) => d.id)).toEqual(exact);
    } finally {
      await pg.exec("RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort");
    }
  }, 120_000);

  it("a table made before per-user isolation: a user id is a typed error saying how to migrate; shared use still works", async () => {
    await pg.exec(`CREATE TABLE public.legacy_vectors (id VARCHAR PRIMARY KEY, name VARCHAR, meta_data JSONB DEFAULT '{}'::jsonb,
      filters JSONB, content TEXT, embedding vector(${DIMS}), usage JSONB, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ,
      content_hash VARCHAR, content_id VARCHAR)`);
    const store = new PgVector({ tableName: "legacy_vectors", dimensions: DIMS, executor });
    const e = new Array(DIMS).fill(0.2);
    await store.insert([{ id: "a", content: "shared", meta_data: {}, embedding: e, user_id: null }]);
    expect((await store.search({ query: "", embedding: e, limit: 5 })).map((d) => d.id)).toEqual(["a"]);
    const err = await store.search({ query: "", embedding: e, limit: 5, userId: "alice" }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(VectorTableMigrationRequiredError);
    expect((err as Error).message).toMatch(
      /ALTER TABLE "public"\."legacy_vectors" ADD COLUMN IF NOT EXISTS user_id VARCHAR/,
    );
    await expect(
      store.insert([{ id: "b", content: "x", meta_data: {}, embedding: e, user_id: "alice" }]),
    ).rejects.toBeInstanceOf(VectorTableMigrationRequiredError);
  });

  it("a table of other dimensions is a SchemaMismatchError, not a failed insert later", async () => {
    await new PgVector({ tableName: "dims", dimensions: 4, executor }).create();
    await expect(new PgVector({ tableName: "dims", dimensions: 8, executor }).create()).rejects.toBeInstanceOf(
      SchemaMismatchError,
    );
  });

  it("writes all rows or none: a bad row rolls the whole insert back", async () => {
    const store = new PgVector({ tableName: "atomic", dimensions: 2, executor, batchSize: 2 });
    const ok = (id: string) => ({ id, content: id, meta_data: {}, embedding: [1, 0], user_id: null });
    await expect(store.insert([ok("a"), ok("b"), ok("c"), { ...ok("d"), embedding: [Number.NaN, 1] }])).rejects.toThrow(
      /non-finite/,
    );
    await store.insert([ok("a"), ok("b"), ok("c")]);
    // a failure in the database (not in our checks) after two batches went in
    await expect(
      store.insert([ok("x"), ok("y"), ok("z"), { ...ok("w"), meta_data: { bad: "\u0000" } }]),
    ).rejects.toThrow();
    const ids = (await store.search({ query: "", embedding: [1, 0], limit: 10 })).map((d) => d.id).sort();
    expect(ids).toEqual(["a", "b", "c"]);
  });
});
