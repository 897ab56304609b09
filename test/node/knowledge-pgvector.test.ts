import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PGlite } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { MemoryDb } from "../../src/db/memory/memory-db.js";
import { SchemaMismatchError } from "../../src/errors.js";
import { VectorTableMigrationRequiredError } from "../../src/knowledge/errors.js";
import { hybridCandidates, reciprocalRankFusion } from "../../src/knowledge/vectordb/fusion.js";
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

const dialect = new PgDialect();

/** An executor that keeps the text and parameters of every statement it runs. */
function recording(executor: SqlExecutor): { executor: SqlExecutor; statements: { sql: string; params: unknown[] }[] } {
  const statements: { sql: string; params: unknown[] }[] = [];
  const keep = (q: SQL) => statements.push(dialect.sqlToQuery(q));
  return {
    statements,
    executor: {
      ...executor,
      exec: (q) => (keep(q), executor.exec(q)),
      transaction: (fn) => executor.transaction((tx) => fn((q) => (keep(q), tx(q)))),
    },
  };
}

const WORDS = ["refund", "invoice", "billing", "annual", "plan", "cancel", "payment", "card", "receipt", "support"];
const FILLER = ["the", "a", "was", "when", "then", "office", "team", "week", "note", "call", "about", "after"];

/**
 * A fixed corpus whose rows rank apart under ts_rank_cd: the query words come back a varying
 * number of times, near to or far from one another, among filler words.
 */
function ftsCorpus(): VectorRecord[] {
  const random = rng(7);
  return Array.from({ length: 80 }, (_, i) => {
    const words: string[] = [];
    const length = 8 + Math.floor(random() * 30);
    for (let w = 0; w < length; w++) {
      const pool = random() < 0.3 ? WORDS : FILLER;
      words.push(pool[Math.floor(random() * pool.length)]!);
    }
    return {
      id: `d${String(i).padStart(2, "0")}`,
      content: words.join(" "),
      meta_data: { n: i },
      embedding: Array.from({ length: DIMS }, () => random() - 0.5),
      user_id: i % 5 === 0 ? "alice" : null,
    };
  });
}

const FTS_QUERIES = ["refund", "annual plan", "cancel card payment", "billing receipt support", "invoice refunds"];

/** The old table: what PgVector made before the stored column (the GIN index on the expression). */
async function createOldLayout(pg: PGlite, table: string): Promise<void> {
  await pg.exec(`CREATE TABLE public.${table} (id VARCHAR PRIMARY KEY, name VARCHAR, meta_data JSONB DEFAULT '{}'::jsonb,
    filters JSONB DEFAULT '{}'::jsonb, content TEXT, embedding vector(${DIMS}), usage JSONB, created_at TIMESTAMPTZ DEFAULT now(),
    updated_at TIMESTAMPTZ, content_hash VARCHAR, content_id VARCHAR, user_id VARCHAR);
    CREATE INDEX idx_${table}_embedding ON public.${table} USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX idx_${table}_content_fts ON public.${table} USING gin (to_tsvector('english'::regconfig, content));`);
}

/** The keyword statement a search ran, and its plan with sequential scans off (as on a large table). */
async function keywordStatement(pg: PGlite, statements: { sql: string; params: unknown[] }[]) {
  const stmt = statements.findLast((s) => s.sql.includes("ts_rank_cd"));
  if (!stmt) throw new Error("no keyword statement ran");
  await pg.exec("SET enable_seqscan = off");
  try {
    const plan = await pg.query<{ "QUERY PLAN": string }>(`EXPLAIN ${stmt.sql}`, stmt.params);
    return { sql: stmt.sql, plan: plan.rows.map((r) => r["QUERY PLAN"]).join("\n") };
  } finally {
    await pg.exec("RESET enable_seqscan");
  }
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

  it("withDb: a PostgresDb-like db rebinds the connection; a db without SQL keeps the store's own", async () => {
    const store = new PgVector({ tableName: "bound", dimensions: 2, executor });
    expect(store.withDb(new MemoryDb())).toBe(store);
    const rebound = store.withDb({ sqlExecutor: () => executor });
    expect(rebound).not.toBe(store);
    await rebound.insert([{ id: "a", content: "a", meta_data: {}, embedding: [1, 0], user_id: null }]);
    expect((await store.search({ query: "", embedding: [1, 0], limit: 1 })).map((d) => d.id)).toEqual(["a"]);
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

  describe("keyword search on the stored tsvector", () => {
    const corpus = ftsCorpus();
    /** The ranking the expression gives, computed here in SQL: what keyword search returned before. */
    const reference = async (table: string, query: string, language = "english", userId?: string) => {
      const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu))].join(" | ");
      const owner = userId ? `AND (user_id = '${userId}' OR user_id IS NULL)` : "";
      const rows = await pg.query<{ id: string; rank: number }>(
        `SELECT id, ts_rank_cd(to_tsvector($1::regconfig, content), to_tsquery($1::regconfig, $2)) AS rank
         FROM public.${table} WHERE to_tsvector($1::regconfig, content) @@ to_tsquery($1::regconfig, $2) ${owner}
         ORDER BY rank DESC, id LIMIT 10`,
        [language, terms],
      );
      return rows.rows;
    };

    it("a table it makes has a generated content_tsv with the GIN index on it, and keyword search matches and ranks on the column", async () => {
      const { executor: rec, statements } = recording(executor);
      const store = new PgVector({ tableName: "fts_new", dimensions: DIMS, executor: rec });
      await store.insert(corpus);
      const column = await pg.query<{ attgenerated: string; expr: string }>(
        `SELECT a.attgenerated, pg_get_expr(d.adbin, d.adrelid) AS expr FROM pg_attribute a
         JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = 'public.fts_new'::regclass AND a.attname = 'content_tsv'`,
      );
      expect(column.rows).toEqual([{ attgenerated: "s", expr: "to_tsvector('english'::regconfig, content)" }]);
      const indexes = await pg.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes WHERE tablename = 'fts_new' AND indexdef ILIKE '%gin%tsv%'`,
      );
      expect(indexes.rows.map((r) => r.indexdef)).toEqual([
        "CREATE INDEX idx_fts_new_content_tsv ON public.fts_new USING gin (content_tsv)",
      ]);

      await store.search({ query: "annual plan", limit: 10, searchType: "keyword" });
      const { sql: text, plan } = await keywordStatement(pg, statements);
      expect(text).toMatch(/WHERE content_tsv @@ to_tsquery/);
      expect(text).toMatch(/ts_rank_cd\(content_tsv, /);
      expect(text).not.toMatch(/to_tsvector/);
      expect(plan).toMatch(/idx_fts_new_content_tsv/);

      // an upsert that changes the content changes what the row matches
      await store.upsert([{ ...corpus[1]!, content: "zebra crossing" }]);
      const zebra = await store.search({ query: "zebra", limit: 10, searchType: "keyword" });
      expect(zebra.map((d) => d.id)).toEqual([corpus[1]!.id]);
    });

    it("ranks a fixed corpus exactly as the expression did: the same rows in the same order, filtered or not", async () => {
      const store = new PgVector({ tableName: "fts_rank", dimensions: DIMS, executor });
      await store.insert(corpus);
      await createOldLayout(pg, "fts_rank_old");
      const old = new PgVector({ tableName: "fts_rank_old", dimensions: DIMS, executor });
      await old.insert(corpus);
      for (const query of FTS_QUERIES) {
        for (const userId of [undefined, "alice"]) {
          const want = await reference("fts_rank_old", query, "english", userId);
          // the corpus is one where ranks differ, so an order that ignored them would fail
          expect(want).toHaveLength(10);
          expect(new Set(want.map((r) => r.rank)).size).toBeGreaterThan(1);
          const ids = want.map((r) => r.id);
          const now = await store.search({ query, limit: 10, searchType: "keyword", userId });
          const before = await old.search({ query, limit: 10, searchType: "keyword", userId });
          expect(now.map((d) => d.id)).toEqual(ids);
          expect(before.map((d) => d.id)).toEqual(ids);
        }
      }
      // hybrid fuses the same vector and keyword lists on both tables, so it answers the same
      for (const [i, query] of FTS_QUERIES.entries()) {
        const embedding = corpus[i * 7]!.embedding;
        const now = await store.search({ query, embedding, limit: 10, searchType: "hybrid" });
        const before = await old.search({ query, embedding, limit: 10, searchType: "hybrid" });
        expect(now.map((d) => d.id)).toEqual(before.map((d) => d.id));
        expect(now).toHaveLength(10);
      }
    });

    it("a table made the old way keeps answering keyword and hybrid searches on the expression index, and is not altered", async () => {
      await createOldLayout(pg, "fts_old");
      const { executor: rec, statements } = recording(executor);
      const store = new PgVector({ tableName: "fts_old", dimensions: DIMS, executor: rec });
      await store.insert(corpus);
      const keyword = await store.search({ query: "cancel card payment", limit: 10, searchType: "keyword" });
      expect(keyword.map((d) => d.id)).toEqual((await reference("fts_old", "cancel card payment")).map((r) => r.id));
      const { sql: text, plan } = await keywordStatement(pg, statements);
      expect(text).toMatch(/WHERE to_tsvector\('english'::regconfig, content\) @@/);
      expect(text).not.toMatch(/content_tsv/);
      expect(plan).toMatch(/idx_fts_old_content_fts/);

      // hybrid: the fusion of the vector list and the keyword list, both of this table
      const search = { query: "cancel card payment", embedding: corpus[3]!.embedding };
      const hybrid = await store.search({ ...search, limit: 5, searchType: "hybrid" });
      const lists = await Promise.all(
        (["vector", "keyword"] as const).map((searchType) =>
          store.search({ ...search, limit: hybridCandidates(5), searchType }),
        ),
      );
      expect(lists[1]!.length).toBeGreaterThan(5);
      expect(hybrid.map((d) => d.id)).toEqual(reciprocalRankFusion(lists, 5).map((d) => d.id));
      // and the keyword list counted: rows in both lists rank first
      const keywordIds = new Set(lists[1]!.map((d) => d.id));
      expect(hybrid.filter((d) => keywordIds.has(d.id)).length).toBeGreaterThan(0);

      // nothing was added to the table on the way (no rewrite on a request)
      expect(statements.some((s) => /ALTER TABLE|CREATE INDEX/i.test(s.sql))).toBe(false);
      const columns = await pg.query(
        `SELECT 1 FROM pg_attribute WHERE attrelid = 'public.fts_old'::regclass AND attname = 'content_tsv'`,
      );
      expect(columns.rows).toEqual([]);
    });

    it("a content_tsv generated in another language is not used: a store of another language ranks on its own expression", async () => {
      await new PgVector({ tableName: "fts_lang", dimensions: DIMS, executor }).insert(corpus);
      const { executor: rec, statements } = recording(executor);
      const simple = new PgVector({
        tableName: "fts_lang",
        dimensions: DIMS,
        executor: rec,
        contentLanguage: "simple",
      });
      // "refunds" is stemmed to "refund" in english, not in simple: the two configurations match different rows
      const english = (await reference("fts_lang", "refunds")).map((r) => r.id);
      const want = (await reference("fts_lang", "refunds", "simple")).map((r) => r.id);
      expect(english.length).toBeGreaterThan(0);
      expect(want).toEqual([]);
      const docs = await simple.search({ query: "refunds", limit: 10, searchType: "keyword" });
      expect(docs.map((d) => d.id)).toEqual(want);
      expect((await keywordStatement(pg, statements)).sql).toMatch(/to_tsvector\('simple'::regconfig, content\)/);
    });
  });
});
