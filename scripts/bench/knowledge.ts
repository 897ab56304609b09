/**
 * The knowledge figures of BENCHMARKS.md ("Knowledge"):
 * - ingestion: chunks per second for a generated Markdown corpus through Knowledge.insert into
 *   PgVector, with a zero-cost in-process embedder (the embedder's time excluded) and with the
 *   scripted embedding server over HTTP through the OpenAI embedder adapter (included);
 * - search latency p50/p99 of PgVector's vector, full-text and hybrid searches over clustered
 *   vectors, and recall@10 of its HNSW search against exact search (index scans off) on the
 *   same queries;
 * - prompt size: what search_knowledge_base hands the model (top 10 chunks) versus the whole
 *   document in context, for one question.
 * On PGlite in this process with pgvector loaded (the embedded wire server has no pgvector), and
 * on a BENCH_DATABASE_URL server when it offers the `vector` extension; otherwise a row says
 * why that server was not measured. Every measurement has a schema of its own, dropped after.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { Pool } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { knowledgeSearchTool } from "../../src/knowledge/agent-knowledge.js";
import type { Embedder } from "../../src/knowledge/embedder.js";
import { openAIEmbedder } from "../../src/knowledge/embedders/openai-embedder.js";
import { Knowledge } from "../../src/knowledge/knowledge.js";
import type { VectorRecord } from "../../src/knowledge/vector-db.js";
import { PgVector } from "../../src/knowledge/vectordb/pgvector/pg-vector.js";
import { pgliteExecutor } from "../../src/knowledge/vectordb/pgvector/pglite-executor.js";
import type { SqlExecutor } from "../../src/knowledge/vectordb/pgvector/sql-executor.js";
import type { ToolContext } from "../../src/tools/tool.js";
import { startEmbeddingServer } from "../../test/support/embedding-server.js";
import { emit, inFreshSchema, log, mean, percentile, round, secondsSince } from "./util.js";

/** The issue's sizes by default; the env lowers them to try the script quickly. */
export const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name] || fallback);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name}=${process.env[name]}: a positive number`);
  return v;
};
const CORPUS_MB = envInt("BENCH_KNOWLEDGE_MB", 10);
const CHUNKS = Math.round(envInt("BENCH_KNOWLEDGE_CHUNKS", 100_000));
const DIMENSIONS = Math.round(envInt("BENCH_KNOWLEDGE_DIMENSIONS", 1536));
const QUERIES = Math.round(envInt("BENCH_KNOWLEDGE_QUERIES", 100));
/** Each search type runs every query this many times (interleaved with the other types). */
const ROUNDS = 2;
const TOP_K = 10;
/** The corpus is split into documents of this size: one Knowledge.insert each. */
const DOCUMENT_BYTES = 100_000;
/** Words of generated text per stored chunk of the search figure. */
const WORDS_PER_CHUNK = 150;
const LOAD_CALL_ROWS = 1000;
const LOAD_STATEMENT_ROWS = 200;
/** Lets the HNSW build keep its graph in memory (pgvector warns and slows down when it cannot). */
const BUILD_MEMORY = process.env.BENCH_KNOWLEDGE_BUILD_MEMORY || "1GB";

interface VectorTarget {
  name: "pglite" | "postgresql";
  version: string;
  /** runs fn on a fresh schema of the target, dropped afterwards */
  withSchema<T>(fn: (executor: SqlExecutor, schema: string) => Promise<T>): Promise<T>;
}

// -- deterministic data -----------------------------------------------------------------------

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (...xs: number[]) => xs.reduce((h, x) => Math.imul(h ^ x, 0x01000193) >>> 0, 0x811c9dc5);

function gaussian(rand: () => number): number {
  const u = rand() || Number.EPSILON;
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const SYLLABLES =
  "ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu".split(
    " ",
  );

/** Word number n: three or more syllables, so never an English stop word. */
function word(n: number): string {
  let w = "";
  let x = n + SYLLABLES.length * SYLLABLES.length;
  while (x > 0) {
    w += SYLLABLES[x % SYLLABLES.length];
    x = Math.floor(x / SYLLABLES.length);
  }
  return w;
}

const GLOBAL_WORDS = 50_000;
const TOPIC_WORDS = 500;
const SUBTOPICS = 10;

/**
 * The search figure's chunks: CLUSTERS topics with SUBTOPICS each; a chunk's vector is its
 * topic's centroid plus its subtopic's direction plus noise, normalised, so near neighbours exist
 * and recall means something; half its words come from its topic's vocabulary.
 */
export class Dataset {
  readonly clusters: number;
  private readonly centroids: Float64Array[];
  private readonly subtopics: Float64Array[];

  constructor(
    readonly rows: number,
    readonly dims: number,
  ) {
    this.clusters = Math.max(1, Math.round(rows / 1000));
    const unit = (seed: number) => {
      const rand = prng(seed);
      const v = new Float64Array(dims);
      for (let i = 0; i < dims; i++) v[i] = gaussian(rand);
      return normalise(v);
    };
    this.centroids = Array.from({ length: this.clusters }, (_, k) => unit(seedOf(1, k)));
    this.subtopics = Array.from({ length: this.clusters * SUBTOPICS }, (_, j) => unit(seedOf(2, j)));
  }

  /** Chunk i's topic and vector, drawn from `rand` (seeded by i). */
  private vector(rand: () => number): { cluster: number; embedding: number[] } {
    const k = Math.floor(rand() * this.clusters);
    const s = Math.floor(rand() * SUBTOPICS);
    const c = this.centroids[k]!;
    const sub = this.subtopics[k * SUBTOPICS + s]!;
    const noise = 0.6 / Math.sqrt(this.dims);
    const v = new Float64Array(this.dims);
    for (let d = 0; d < this.dims; d++) v[d] = c[d]! + 0.6 * sub[d]! + noise * gaussian(rand);
    return { cluster: k, embedding: rounded(normalise(v)) };
  }

  embedding(i: number): number[] {
    return this.vector(prng(seedOf(3, i))).embedding;
  }

  row(i: number): { id: string; cluster: number; embedding: number[]; words: string[] } {
    const rand = prng(seedOf(3, i));
    const { cluster: k, embedding } = this.vector(rand);
    const words = Array.from({ length: WORDS_PER_CHUNK }, () =>
      rand() < 0.5
        ? word(GLOBAL_WORDS + k * TOPIC_WORDS + Math.floor(rand() * TOPIC_WORDS))
        : word(Math.floor(rand() * GLOBAL_WORDS)),
    );
    return { id: `chunk_${i}`, cluster: k, embedding, words };
  }

  record(i: number): VectorRecord {
    const r = this.row(i);
    return {
      id: r.id,
      name: `doc_${Math.floor(i / 50)}`,
      content: r.words.join(" "),
      meta_data: { topic: r.cluster },
      embedding: r.embedding,
      content_id: `doc_${Math.floor(i / 50)}`,
      content_hash: `hash_${Math.floor(i / 50)}`,
      user_id: null,
    };
  }

  /** Query q: near a stored chunk (its vector plus a little noise), with four of its words. */
  query(q: number): { target: string; text: string; embedding: number[] } {
    const rand = prng(seedOf(4, q));
    const t = Math.floor(rand() * this.rows);
    const r = this.row(t);
    const noise = 0.3 / Math.sqrt(this.dims);
    const v = Float64Array.from(r.embedding, (x) => x + noise * gaussian(rand));
    const text = Array.from({ length: 4 }, () => r.words[Math.floor(rand() * r.words.length)]!).join(" ");
    return { target: r.id, text, embedding: rounded(normalise(v)) };
  }
}

function normalise(v: Float64Array): Float64Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Five decimals: shorter vector literals, and far below the spread of the data. */
const rounded = (v: Float64Array) => Array.from(v, (x) => Math.round(x * 1e5) / 1e5);

/**
 * A Markdown corpus of about `bytes` bytes in documents of DOCUMENT_BYTES: headings, paragraphs,
 * lists and code fences from a seeded generator. Document 0 holds the prompt-size figure's fact.
 */
function markdownCorpus(bytes: number): { name: string; text: string }[] {
  const docs: { name: string; text: string }[] = [];
  const rand = prng(7);
  const w = () => word(Math.floor(rand() * GLOBAL_WORDS));
  const sentence = () => {
    const s = Array.from({ length: 8 + Math.floor(rand() * 12) }, w).join(" ");
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  };
  let total = 0;
  for (let d = 0; total < bytes; d++) {
    const parts: string[] = [`# Handbook ${d}: ${w()} ${w()}`];
    const budget = Math.min(DOCUMENT_BYTES, bytes - total);
    let size = parts[0]!.length;
    for (let s = 1; size < budget; s++) {
      const section: string[] = [`## Section ${s}: ${w()} ${w()}`];
      if (d === 0 && s === 7)
        section.push(
          "Refunds for annual plans are paid back to the original card within 14 days of the cancellation request.",
        );
      for (let p = 0; p < 2 + Math.floor(rand() * 3); p++)
        section.push(Array.from({ length: 3 + Math.floor(rand() * 4) }, sentence).join(" "));
      if (rand() < 0.5)
        section.push(Array.from({ length: 3 + Math.floor(rand() * 4) }, () => `- ${sentence()}`).join("\n"));
      if (rand() < 0.3) section.push(`### ${w()} ${w()}\n\n${sentence()} ${sentence()}`);
      if (rand() < 0.3)
        section.push(`\`\`\`ts\nconst ${w()} = await ${w()}(${JSON.stringify(w())});\nreturn ${w()}.${w()};\n\`\`\``);
      const text = section.join("\n\n");
      parts.push(text);
      size += text.length + 2;
    }
    const text = parts.join("\n\n");
    docs.push({ name: `handbook-${d}.md`, text });
    total += text.length;
  }
  return docs;
}

// -- embedders ----------------------------------------------------------------------------------

/** Distinct vectors the zero-cost embedder hands out before it repeats one. */
const POOL = 4096;

/**
 * The embedder whose time is excluded: it hands out clustered vectors made before the clock
 * starts (one-hot or uniform random vectors would give the HNSW graph a shape no real embedder does).
 */
function zeroCostEmbedder(dimensions: number): Embedder {
  const data = new Dataset(POOL, dimensions);
  const pool = Array.from({ length: POOL }, (_, i) => data.embedding(i));
  let n = 0;
  return {
    id: "bench:zero-cost",
    dimensions,
    embed: async (texts) => ({ embeddings: texts.map(() => pool[n++ % POOL]!) }),
  };
}

// -- figure 1: ingestion ----------------------------------------------------------------------

async function benchIngestion(target: VectorTarget, embedderUrl: string): Promise<void> {
  const corpus = markdownCorpus(CORPUS_MB * 1024 * 1024);
  const bytes = corpus.reduce((sum, d) => sum + Buffer.byteLength(d.text), 0);
  const embedders: [string, () => Embedder][] = [
    ["excluded", () => zeroCostEmbedder(DIMENSIONS)],
    [
      "included",
      () =>
        openAIEmbedder({
          apiKey: "bench",
          baseURL: embedderUrl,
          dimensions: DIMENSIONS,
          model: "text-embedding-3-small",
        }),
    ],
  ];
  for (const [embedderTime, makeEmbedder] of embedders) {
    log(
      `${target.name}: ingesting ${corpus.length} Markdown documents (${bytes} bytes), embedder time ${embedderTime}`,
    );
    const result = await target.withSchema(async (executor, schema) => {
      const embedder = makeEmbedder();
      const vectorDb = new PgVector({ tableName: "bench_ingest", embedder, executor });
      await vectorDb.create();
      const kb = new Knowledge({ name: "bench", vectorDb });
      const started = performance.now();
      let failed = 0;
      for (const doc of corpus) {
        const row = await kb.insert({ name: doc.name, textContent: doc.text, contentType: "text/markdown" });
        if (row.status !== "completed") failed++;
      }
      const seconds = secondsSince(started);
      const [{ n }] = (await executor.exec(sql.raw(`SELECT count(*)::int AS n FROM "${schema}".bench_ingest`))) as [
        { n: number },
      ];
      if (failed) throw new Error(`${failed} documents failed to ingest`);
      return { seconds, chunks: Number(n) };
    });
    log(`  ${result.chunks} chunks in ${result.seconds.toFixed(2)} s`);
    emit({
      bench: "knowledge_ingestion",
      target: target.name,
      server_version: target.version,
      embedder_time: embedderTime,
      embedder:
        embedderTime === "excluded"
          ? "in-process, vectors made beforehand"
          : "scripted OpenAI embeddings server over HTTP",
      documents: corpus.length,
      bytes,
      chunks: result.chunks,
      dimensions: DIMENSIONS,
      seconds: round(result.seconds, 3),
      chunks_per_second: round(result.chunks / result.seconds, 1),
    });
  }
}

// -- figure 2: search latency and recall ------------------------------------------------------

async function benchSearch(target: VectorTarget): Promise<void> {
  const data = new Dataset(CHUNKS, DIMENSIONS);
  const queries = Array.from({ length: QUERIES }, (_, q) => data.query(q));
  await target.withSchema(async (executor, schema) => {
    const vectorDb = new PgVector({
      tableName: "bench_search",
      dimensions: DIMENSIONS,
      executor,
      batchSize: LOAD_STATEMENT_ROWS,
    });
    await vectorDb.create();
    const table = sql.raw(`"${schema}".bench_search`);
    // The load goes through PgVector.insert with the table's secondary indexes set aside; each is
    // then re-created from its own definition (pg_indexes), the HNSW index as PgVector made it.
    const indexes = (await executor.exec(
      sql`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${schema} AND tablename = 'bench_search' AND indexname LIKE 'idx_%'`,
    )) as { indexname: string; indexdef: string }[];
    for (const i of indexes) await executor.exec(sql.raw(`DROP INDEX "${schema}"."${i.indexname}"`));
    log(`${target.name}: loading ${CHUNKS} chunks of ${DIMENSIONS} dimensions (${data.clusters} topics)`);
    let started = performance.now();
    let generateSeconds = 0;
    for (let i = 0; i < CHUNKS; i += LOAD_CALL_ROWS) {
      const t = performance.now();
      const records = Array.from({ length: Math.min(LOAD_CALL_ROWS, CHUNKS - i) }, (_, j) => data.record(i + j));
      generateSeconds += secondsSince(t);
      await vectorDb.insert(records);
      if ((i / LOAD_CALL_ROWS) % 10 === 9) log(`  ${i + records.length} rows, ${secondsSince(started).toFixed(0)} s`);
    }
    const loadSeconds = secondsSince(started);
    log(`  loaded in ${loadSeconds.toFixed(1)} s; building ${indexes.length} indexes`);
    started = performance.now();
    const buildSeconds: Record<string, number> = {};
    for (const i of indexes) {
      const t = performance.now();
      await executor.transaction(async (tx) => {
        await tx(sql`SELECT set_config('maintenance_work_mem', ${BUILD_MEMORY}, true)`);
        await tx(sql.raw(i.indexdef));
      });
      buildSeconds[i.indexname] = round(secondsSince(t), 2);
    }
    await executor.exec(sql.raw(`ANALYZE "${schema}".bench_search`));
    log(`  indexes built in ${secondsSince(started).toFixed(1)} s`);
    emit({
      bench: "knowledge_search_load",
      target: target.name,
      server_version: target.version,
      chunks: CHUNKS,
      dimensions: DIMENSIONS,
      load: "PgVector.insert (1,000 records a call, 200 rows a statement) with the secondary indexes dropped, then each re-created from its pg_indexes definition",
      load_seconds: round(loadSeconds, 2),
      of_which_generating_rows_seconds: round(generateSeconds, 2),
      index_build_seconds: buildSeconds,
      maintenance_work_mem: BUILD_MEMORY,
    });

    const hnsw = indexes.find((i) => /USING hnsw/i.test(i.indexdef))?.indexname;
    log(`${target.name}: exact top ${TOP_K} of ${QUERIES} queries (index scans off)`);
    started = performance.now();
    const exact: string[][] = [];
    for (const q of queries) {
      const lit = `[${q.embedding.join(",")}]`;
      exact.push(
        await executor.transaction(async (tx) => {
          await tx(
            sql`SELECT set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
          );
          const rows = await tx(sql`SELECT id FROM ${table} ORDER BY embedding <=> ${lit}::vector, id LIMIT ${TOP_K}`);
          return rows.map((r) => String(r.id));
        }),
      );
    }
    log(`  exact search done in ${secondsSince(started).toFixed(1)} s`);
    // PgVector's search settings; the planner may still prefer a sequential scan on a small
    // table, so the adapter's plan is reported, and recall is taken with the index forced.
    const searchSettings = sql`SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', '200', true)`;
    const vectorQuery = (lit: string) =>
      sql`SELECT id FROM ${table} ORDER BY embedding <=> ${lit}::vector LIMIT ${TOP_K}`;
    const planOf = (forceIndex: boolean) =>
      executor.transaction(async (tx) => {
        await tx(searchSettings);
        if (forceIndex) await tx(sql`SELECT set_config('enable_seqscan', 'off', true)`);
        const rows = await tx(sql`EXPLAIN ${vectorQuery(`[${queries[0]!.embedding.join(",")}]`)}`);
        return rows.map((r) => String(Object.values(r)[0]).replace(/'\[[^\]]*\]'/g, "'[…]'")).join("\n");
      });
    const adapterPlan = await planOf(false);
    const adapterUsesHnsw = hnsw !== undefined && adapterPlan.includes(hnsw);
    if (!adapterUsesHnsw) log(`  the adapter's vector search is planned without the HNSW index:\n${adapterPlan}`);
    const forcedPlan = await planOf(true);
    if (hnsw === undefined || !forcedPlan.includes(hnsw))
      throw new Error(`the HNSW index cannot be used even with enable_seqscan off:\n${forcedPlan}`);
    let hits = 0;
    for (const [qi, q] of queries.entries()) {
      const ids = await executor.transaction(async (tx) => {
        await tx(searchSettings);
        await tx(sql`SELECT set_config('enable_seqscan', 'off', true)`);
        return (await tx(vectorQuery(`[${q.embedding.join(",")}]`))).map((r) => String(r.id));
      });
      const truth = new Set(exact[qi]);
      hits += ids.filter((id) => truth.has(id)).length;
    }

    const types = ["vector", "keyword", "hybrid"] as const;
    const latencies = new Map<string, number[]>(types.map((t) => [t, []]));
    let found = 0;
    let keywordEmpty = 0;
    log(`${target.name}: ${ROUNDS} rounds of ${QUERIES} queries per search type (after one warm-up round)`);
    started = performance.now();
    for (let round_ = 0; round_ <= ROUNDS; round_++) {
      for (const q of queries) {
        for (const searchType of types) {
          const t = performance.now();
          const docs = await vectorDb.search({
            query: q.text,
            embedding: q.embedding,
            limit: TOP_K,
            searchType,
          });
          const ms = performance.now() - t;
          if (round_ === 0) {
            if (searchType === "vector") found += docs.some((d) => d.id === q.target) ? 1 : 0;
            if (searchType === "keyword" && docs.length === 0) keywordEmpty++;
            continue;
          }
          latencies.get(searchType)!.push(ms);
        }
      }
      log(`  round ${round_}${round_ === 0 ? " (warm-up)" : ""} done, ${secondsSince(started).toFixed(1)} s`);
    }
    for (const searchType of types) {
      const xs = latencies.get(searchType)!;
      emit({
        bench: "knowledge_search_latency",
        target: target.name,
        server_version: target.version,
        search_type: searchType,
        chunks: CHUNKS,
        dimensions: DIMENSIONS,
        top_k: TOP_K,
        samples: xs.length,
        p50_ms: round(percentile(xs, 50), 3),
        p99_ms: round(percentile(xs, 99), 3),
        mean_ms: round(mean(xs), 3),
        ...(searchType === "keyword" ? { queries_with_no_match: keywordEmpty } : {}),
      });
    }
    emit({
      bench: "knowledge_recall_at_10",
      target: target.name,
      server_version: target.version,
      chunks: CHUNKS,
      dimensions: DIMENSIONS,
      queries: QUERIES,
      recall_at_10: round(hits / (QUERIES * TOP_K), 4),
      adapter_vector_search_found_query_source_row: round(found / QUERIES, 4),
      adapter_plan_uses_hnsw: adapterUsesHnsw,
      hnsw: "m 16, ef_construction 64 (PgVector's defaults); the same top-10 query with ef_search 200 and iterative_scan strict_order, as PgVector sets them, and enable_seqscan off so the index is used",
      exact: "the same ORDER BY embedding <=> q LIMIT 10 with enable_indexscan and enable_bitmapscan off",
    });
  });
}

// -- figure 3: prompt size --------------------------------------------------------------------

const QUESTION = "How long do refunds for annual plans take?";
const estimatedTokens = (chars: number) => Math.ceil(chars / 4);

async function benchPromptSize(target: VectorTarget, embedderUrl: string): Promise<void> {
  const doc = markdownCorpus(DOCUMENT_BYTES)[0]!;
  await target.withSchema(async (executor, schema) => {
    const embedder = openAIEmbedder({
      apiKey: "bench",
      baseURL: embedderUrl,
      dimensions: DIMENSIONS,
      model: "text-embedding-3-small",
    });
    const kb = new Knowledge({
      name: "bench",
      vectorDb: new PgVector({ tableName: "bench_prompt", embedder, executor }),
    });
    const row = await kb.insert({ name: doc.name, textContent: doc.text, contentType: "text/markdown" });
    if (row.status !== "completed") throw new Error(`prompt-size document failed: ${row.status_message}`);
    const chunks = Number(
      ((await executor.exec(sql.raw(`SELECT count(*)::int AS n FROM "${schema}".bench_prompt`))) as [{ n: number }])[0]
        .n,
    );
    const tool = knowledgeSearchTool(kb);
    const ctx = {
      runId: "bench",
      sessionId: "bench",
      userId: null,
      sessionState: {},
      dependencies: {},
      signal: new AbortController().signal,
    } satisfies ToolContext;
    const result = String(await tool.execute!({ query: QUESTION }, ctx));
    const returned = (JSON.parse(result) as unknown[]).length;
    const withSearch = QUESTION.length + JSON.stringify({ query: QUESTION }).length + result.length;
    const wholeDocument = QUESTION.length + doc.text.length;
    emit({
      bench: "knowledge_prompt_size",
      target: target.name,
      question: QUESTION,
      document_chars: doc.text.length,
      document_chunks: chunks,
      search_results: returned,
      answer_in_results: result.includes("within 14 days"),
      with_search_knowledge_base: { chars: withSearch, estimated_tokens: estimatedTokens(withSearch) },
      whole_document: { chars: wholeDocument, estimated_tokens: estimatedTokens(wholeDocument) },
      ratio: round(wholeDocument / withSearch, 2),
      counted:
        "question + the tool call's arguments + the tool result (JSON of the chunks) vs question + document; system prompt and tool schema left out (the same few hundred characters either way); tokens estimated as chars / 4",
    });
  });
}

// -- targets and main -------------------------------------------------------------------------

let schemas = 0;

async function pgliteTarget(): Promise<{ target: VectorTarget; close(): Promise<void> }> {
  const pg = await PGlite.create({ extensions: { vector } });
  const version = String(
    ((await pg.query("SHOW server_version")).rows[0] as { server_version: string }).server_version,
  );
  await pg.query("CREATE EXTENSION IF NOT EXISTS vector");
  return {
    target: {
      name: "pglite",
      version,
      withSchema: async (fn) => {
        const schema = `bench_knowledge_${process.pid}_${schemas++}`;
        await pg.query(`CREATE SCHEMA "${schema}"`);
        try {
          return await fn(pgliteExecutor(pg, schema), schema);
        } finally {
          await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        }
      },
    },
    close: () => pg.close(),
  };
}

/** A server target when it offers pgvector; else why not. */
async function serverTarget(url: string): Promise<VectorTarget | { skipped: string; version: string }> {
  const pool = new Pool({ connectionString: url, max: 1 });
  let version: string;
  let available: boolean;
  try {
    version = String((await pool.query("SHOW server_version")).rows[0].server_version);
    available = (await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).rows.length > 0;
  } finally {
    await pool.end();
  }
  if (!available)
    return { version, skipped: "the server does not offer the vector extension (no row in pg_available_extensions)" };
  return {
    name: "postgresql",
    version,
    withSchema: (fn) =>
      inFreshSchema(
        url,
        async (p, schema) => {
          await p.query(`CREATE SCHEMA "${schema}"`);
          const db = new PostgresDb({ pool: p, schema, id: `bench-knowledge-${schema}` });
          return fn(db.sqlExecutor(), schema);
        },
        "bench_knowledge",
      ),
  };
}

export async function benchKnowledge(opts: { servers: { name: string; url: string }[] }): Promise<void> {
  const embeddings = await startEmbeddingServer({ defaultDimensions: DIMENSIONS });
  const pglite = await pgliteTarget();
  const targets: VectorTarget[] = [pglite.target];
  for (const s of opts.servers) {
    const t = await serverTarget(s.url);
    if ("skipped" in t) {
      log(`${s.name}: knowledge figures not measured: ${t.skipped}`);
      for (const bench of ["knowledge_ingestion", "knowledge_search_latency", "knowledge_recall_at_10"])
        emit({ bench, target: "postgresql", server_version: t.version, skipped: t.skipped });
    } else targets.push(t);
  }
  try {
    log(`pglite: PostgreSQL ${pglite.target.version} in this process, with @electric-sql/pglite-pgvector`);
    for (const target of targets) await benchIngestion(target, embeddings.baseURL);
    for (const target of targets) await benchSearch(target);
    await benchPromptSize(pglite.target, embeddings.baseURL);
  } finally {
    await pglite.close();
    await embeddings.stop();
  }
}
