/**
 * PgVector's keyword search on the stored tsvector column against the expression it replaced, on
 * the same rows: `npx tsx scripts/bench/knowledge-fts.ts` (BENCH_KNOWLEDGE_CHUNKS,
 * BENCH_KNOWLEDGE_DIMENSIONS and BENCH_KNOWLEDGE_QUERIES as for the knowledge group).
 * On PGlite in this process with pgvector. Two tables hold the same chunks of knowledge.ts's search
 * figure: one made by PgVector (content_tsv, the GIN index on it), one laid out as PgVector made
 * tables before (no column, the GIN index on to_tsvector(...)), which PgVector searches on the
 * expression. The searches of both alternate query by query, so a busy machine slows both alike.
 * Then the old table is given the column in place, timed: what moving a table over costs.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import { PgVector } from "../../src/knowledge/vectordb/pgvector/pg-vector.js";
import { pgliteExecutor } from "../../src/knowledge/vectordb/pgvector/pglite-executor.js";
import { Dataset, envInt } from "./knowledge.js";
import { emit, log, mean, percentile, round, secondsSince } from "./util.js";

const CHUNKS = Math.round(envInt("BENCH_KNOWLEDGE_CHUNKS", 20_000));
const DIMENSIONS = Math.round(envInt("BENCH_KNOWLEDGE_DIMENSIONS", 256));
const QUERIES = Math.round(envInt("BENCH_KNOWLEDGE_QUERIES", 50));
const ROUNDS = 3;
const TOP_K = 10;
const BUILD_MEMORY = process.env.BENCH_KNOWLEDGE_BUILD_MEMORY || "1GB";
const COLUMNS =
  "id, name, meta_data, filters, content, embedding, usage, created_at, updated_at, content_hash, content_id, user_id";

/** The table and indexes PgVector made before the stored column (indexes left to build after the load). */
const oldLayout = (table: string) => ({
  table: `CREATE TABLE public.${table} (id VARCHAR PRIMARY KEY, name VARCHAR, meta_data JSONB DEFAULT '{}'::jsonb,
    filters JSONB DEFAULT '{}'::jsonb, content TEXT, embedding vector(${DIMENSIONS}), usage JSONB,
    created_at TIMESTAMPTZ DEFAULT now(), updated_at TIMESTAMPTZ, content_hash VARCHAR, content_id VARCHAR, user_id VARCHAR)`,
  indexes: [
    `CREATE INDEX idx_${table}_embedding ON public.${table} USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)`,
    `CREATE INDEX idx_${table}_content_fts ON public.${table} USING gin (to_tsvector('english'::regconfig, content))`,
    `CREATE INDEX idx_${table}_meta_data ON public.${table} USING gin (meta_data jsonb_path_ops)`,
    `CREATE INDEX idx_${table}_content_id ON public.${table} (content_id)`,
    `CREATE INDEX idx_${table}_content_hash ON public.${table} (content_hash)`,
    `CREATE INDEX idx_${table}_user_id ON public.${table} (user_id)`,
  ],
});

async function main(): Promise<void> {
  const pg = await PGlite.create({ extensions: { vector } });
  const version = String(
    ((await pg.query("SHOW server_version")).rows[0] as { server_version: string }).server_version,
  );
  const executor = pgliteExecutor(pg, "public");
  const data = new Dataset(CHUNKS, DIMENSIONS);
  const queries = Array.from({ length: QUERIES }, (_, q) => data.query(q));
  const stored = new PgVector({ tableName: "fts_stored", dimensions: DIMENSIONS, executor, batchSize: 200 });
  await stored.create();
  const indexes = (await executor.exec(
    sql`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'fts_stored' AND indexname LIKE 'idx_%'`,
  )) as { indexname: string; indexdef: string }[];
  for (const i of indexes) await pg.exec(`DROP INDEX public."${i.indexname}"`);
  log(`loading ${CHUNKS} chunks of ${DIMENSIONS} dimensions into both tables`);
  let started = performance.now();
  for (let i = 0; i < CHUNKS; i += 1000)
    await stored.insert(Array.from({ length: Math.min(1000, CHUNKS - i) }, (_, j) => data.record(i + j)));
  const storedLoad = secondsSince(started);
  const old = oldLayout("fts_expression");
  await pg.exec(old.table);
  started = performance.now();
  await pg.exec(`INSERT INTO public.fts_expression (${COLUMNS}) SELECT ${COLUMNS} FROM public.fts_stored`);
  const copySeconds = secondsSince(started);
  const build: Record<string, number> = {};
  for (const def of [...indexes.map((i) => i.indexdef), ...old.indexes]) {
    const name = /INDEX (\S+)/.exec(def)![1]!;
    log(`  building ${name}`);
    const t = performance.now();
    await pg.transaction(async (tx) => {
      await tx.query(`SELECT set_config('maintenance_work_mem', $1, true)`, [BUILD_MEMORY]);
      await tx.exec(def);
    });
    build[name] = round(secondsSince(t), 2);
  }
  await pg.exec("ANALYZE public.fts_stored; ANALYZE public.fts_expression");
  const size = async (t: string) =>
    Number(((await pg.query(`SELECT pg_total_relation_size('public.${t}') AS b`)).rows[0] as { b: number }).b);
  emit({
    bench: "knowledge_fts_load",
    target: "pglite",
    server_version: version,
    chunks: CHUNKS,
    dimensions: DIMENSIONS,
    stored_column_insert_seconds: round(storedLoad, 2),
    copy_into_expression_table_seconds: round(copySeconds, 2),
    index_build_seconds: build,
    total_bytes: { stored_column: await size("fts_stored"), expression: await size("fts_expression") },
  });

  const expression = new PgVector({ tableName: "fts_expression", dimensions: DIMENSIONS, executor });
  const arms = { stored_column: stored, expression } as const;
  const types = ["keyword", "hybrid"] as const;
  const latencies = new Map<string, number[]>();
  const differing = { keyword: 0, hybrid: 0 };
  log(`${ROUNDS} rounds of ${QUERIES} queries, both tables alternating (after one warm-up round)`);
  for (let r = 0; r <= ROUNDS; r++) {
    for (const q of queries) {
      for (const searchType of types) {
        const ids: string[][] = [];
        for (const [arm, store] of Object.entries(arms)) {
          const t = performance.now();
          const docs = await store.search({ query: q.text, embedding: q.embedding, limit: TOP_K, searchType });
          const ms = performance.now() - t;
          ids.push(docs.map((d) => d.id!));
          if (r > 0) latencies.set(`${searchType}|${arm}`, [...(latencies.get(`${searchType}|${arm}`) ?? []), ms]);
        }
        if (r === 0 && ids[0]!.join() !== ids[1]!.join()) differing[searchType]++;
      }
    }
    log(`  round ${r}${r === 0 ? " (warm-up)" : ""} done`);
  }
  for (const searchType of types)
    for (const arm of Object.keys(arms)) {
      const xs = latencies.get(`${searchType}|${arm}`)!;
      emit({
        bench: "knowledge_fts_latency",
        target: "pglite",
        search_type: searchType,
        full_text: arm,
        chunks: CHUNKS,
        dimensions: DIMENSIONS,
        top_k: TOP_K,
        samples: xs.length,
        p50_ms: round(percentile(xs, 50), 3),
        p99_ms: round(percentile(xs, 99), 3),
        mean_ms: round(mean(xs), 3),
      });
    }
  // keyword lists must agree; hybrid ones may not, as two HNSW indexes built apart are not alike
  emit({ bench: "knowledge_fts_same_results", searches_per_type: QUERIES, differing });

  log("adding the column to the old table in place");
  started = performance.now();
  await pg.exec(`ALTER TABLE public.fts_expression ADD COLUMN content_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, content)) STORED`);
  const alter = secondsSince(started);
  started = performance.now();
  await pg.exec(`CREATE INDEX idx_fts_expression_content_tsv ON public.fts_expression USING gin (content_tsv)`);
  emit({
    bench: "knowledge_fts_migrate_in_place",
    chunks: CHUNKS,
    add_column_seconds: round(alter, 2),
    create_gin_index_seconds: round(secondsSince(started), 2),
  });
  await pg.close();
}

await main();
