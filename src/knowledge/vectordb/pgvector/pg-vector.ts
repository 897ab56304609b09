import { sql, type SQL } from "drizzle-orm";
import { SchemaMismatchError, ValidationError } from "../../../errors.js";
import { checkIdentifier } from "../../../db/postgres/names.js";
import type { KnowledgeDocument } from "../../document.js";
import type { Embedder } from "../../embedder.js";
import { VectorExtensionUnavailableError, VectorTableMigrationRequiredError } from "../../errors.js";
import type { FilterExpr } from "../../filters.js";
import type { Reranker } from "../../reranker.js";
import type { SearchType, VectorDb, VectorRecord, VectorSearchOptions } from "../../vector-db.js";
import { hybridCandidates, queryTerms, reciprocalRankFusion } from "../fusion.js";
import { filterSql } from "./sql-filters.js";
import type { SqlExec, SqlExecutor } from "./sql-executor.js";

export interface PgVectorOptions {
  /** the vector table, agno's `table_name` */
  tableName: string;
  /** default: the bound database's schema */
  schema?: string;
  /** vector length; default the embedder's */
  dimensions?: number;
  embedder?: Embedder;
  /** the connection; or bind one later with withDb(postgresDb) */
  executor?: SqlExecutor;
  id?: string;
  name?: string;
  description?: string;
  searchType?: SearchType;
  reranker?: Reranker;
  /** text search configuration of the full-text index; default "english" */
  contentLanguage?: string;
  /** HNSW build parameters (pgvector's defaults: m 16, ef_construction 64) */
  hnsw?: { m?: number; efConstruction?: number };
  /** candidates an HNSW scan keeps; raised over pgvector's 40 so filtered searches fill their limit */
  efSearch?: number;
  /** rows per INSERT statement; default 100 */
  batchSize?: number;
}

/** What a table has, as found once per instance (and per isolate when the executor names its database). */
interface TableState {
  /** agno's owner column; tables made before per-user isolation lack it */
  hasUserId: boolean;
  /** the stored tsvector column, generated with this store's language; tables made before it lack it */
  storedTsv: boolean;
}

/** Tables this isolate has already checked (or made), by database, schema and table. */
const ready = new Map<string, TableState>();

/** The stored full-text column: to_tsvector once per write, not once per matching row per search. */
const TSV_COLUMN = "content_tsv";

const num = (v: unknown) => (typeof v === "number" ? v : Number(v));

function vectorLiteral(e: number[], dims: number): string {
  if (e.length !== dims)
    throw new ValidationError(`an embedding of ${e.length} dimensions for a vector(${dims}) table`, "embedding");
  for (const x of e)
    if (!Number.isFinite(x)) throw new ValidationError("an embedding holds a non-finite number", "embedding");
  return `[${e.join(",")}]`;
}

/**
 * agno's PgVector on pgvector: one table of chunks (agno's columns: id, name, meta_data, filters,
 * content, embedding, usage, created_at, updated_at, content_hash, content_id, user_id), an HNSW
 * index with cosine distance, a GIN full-text index and a GIN index on meta_data for filters.
 *
 * A table this makes also has `content_tsv`, a stored generated tsvector of `content` in the
 * store's language, and the GIN index is on it: a keyword search ranks the rows it matches with
 * ts_rank_cd, which on an expression would parse every matching row's content again (the price:
 * the tsvector is stored beside the text, so the table takes more disk). The column is
 * generated, so agno's own PgVector (which names its columns on insert and select) reads and writes
 * such a table unchanged. A table without the column (made by agno, or by an earlier version of
 * this) is searched on the expression, as before: adding a stored column rewrites the whole table
 * under an exclusive lock, which no request should set off. To move such a table over, once, off the
 * request path (the ALTER takes time in proportion to the table and blocks its readers and writers):
 *
 *   ALTER TABLE ai.docs ADD COLUMN content_tsv tsvector
 *     GENERATED ALWAYS AS (to_tsvector('english'::regconfig, content)) STORED;
 *   CREATE INDEX idx_docs_content_tsv ON ai.docs USING gin (content_tsv);
 *   DROP INDEX ai.idx_docs_content_fts;
 *
 * then redeploy or restart (what a table has is checked once per isolate). A column generated in
 * another language than the store's is left unused: it would match and rank other words.
 *
 * The table is made lazily, on first use, outside the migrations: a server without the `vector`
 * extension still runs everything else, and the knowledge calls fail with
 * VectorExtensionUnavailableError (503) naming the extension. A filtered search sets
 * `hnsw.iterative_scan = strict_order` and a raised `hnsw.ef_search` in its transaction, so the
 * index keeps scanning until the filter has let through `limit` rows.
 *
 * @example
 * const vectorDb = new PgVector({ tableName: "docs", embedder }).withDb(postgresDb);
 */
export class PgVector implements VectorDb {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly embedder?: Embedder;
  readonly searchType: SearchType;
  readonly searchTypes: readonly SearchType[] = ["vector", "keyword", "hybrid"];
  readonly reranker?: Reranker;
  readonly dimensions: number;
  private readonly table: SQL;
  private readonly tableText: string;
  private readonly language: string;
  private state: Promise<TableState> | undefined;

  constructor(private readonly opts: PgVectorOptions) {
    checkIdentifier(opts.tableName, "tableName");
    this.name = opts.name ?? opts.tableName;
    this.id = opts.id ?? this.name;
    this.description = opts.description;
    this.embedder = opts.embedder;
    this.searchType = opts.searchType ?? "vector";
    this.reranker = opts.reranker;
    const dims = opts.dimensions ?? opts.embedder?.dimensions;
    if (!dims || !Number.isInteger(dims) || dims < 1 || dims > 16000)
      throw new ValidationError("PgVector needs dimensions (or an embedder that has them), 1 to 16000", "dimensions");
    this.dimensions = dims;
    this.language = opts.contentLanguage ?? "english";
    if (!/^[a-z_]{1,63}$/.test(this.language))
      throw new ValidationError("contentLanguage must be a text search configuration name", "contentLanguage");
    const schema = checkIdentifier(opts.schema ?? opts.executor?.schema ?? "ai", "schema");
    this.tableText = `"${schema}"."${opts.tableName}"`;
    this.table = sql.raw(this.tableText);
  }

  /**
   * The same store on a database's connection: a PostgresDb (its sqlExecutor()) or an executor.
   * A database without SQL (MemoryDb) leaves the store on the connection it has.
   */
  withDb(db: unknown): PgVector {
    const executor =
      db && typeof (db as { sqlExecutor?: unknown }).sqlExecutor === "function"
        ? (db as { sqlExecutor(): SqlExecutor }).sqlExecutor()
        : (db as SqlExecutor | undefined);
    if (!executor || typeof executor.exec !== "function" || typeof executor.transaction !== "function") return this;
    return new PgVector({ ...this.opts, executor });
  }

  private get executor(): SqlExecutor {
    if (!this.opts.executor)
      throw new ValidationError(`PgVector ${this.name} has no database: bind one with withDb(postgresDb)`, "vectorDb");
    return this.opts.executor;
  }

  private get cacheKey(): string | undefined {
    return this.executor.cacheKey && `${this.executor.cacheKey}|${this.tableText}|${this.dimensions}`;
  }

  /** Makes sure the extension, the table and its indexes exist; what the table has. Once per isolate per table. */
  private ensure(): Promise<TableState> {
    const key = this.cacheKey;
    const known = key ? ready.get(key) : undefined;
    if (known) return Promise.resolve(known);
    if (!this.state) {
      const pending = this.setUp().then((s) => {
        if (key) ready.set(key, s);
        return s;
      });
      pending.catch(() => {
        if (this.state === pending) this.state = undefined;
      });
      this.state = pending;
    }
    return this.state;
  }

  private async ensureExtension(exec: SqlExec): Promise<void> {
    const installed = await exec(sql`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
    if (installed.length) return;
    const available = await exec(sql`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (!available.length)
      throw new VectorExtensionUnavailableError(
        "the server does not offer it (pg_available_extensions has no row for it)",
      );
    try {
      await exec(sql`CREATE EXTENSION IF NOT EXISTS vector`);
    } catch (err) {
      throw new VectorExtensionUnavailableError(`CREATE EXTENSION vector failed (${(err as Error).message})`, {
        cause: err,
      });
    }
  }

  private async setUp(): Promise<TableState> {
    const exec = this.executor.exec;
    await this.ensureExtension(exec);
    const [schema, table] = [this.opts.schema ?? this.executor.schema ?? "ai", this.opts.tableName];
    const columns = async () =>
      new Map(
        (
          await exec(sql`SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            CASE WHEN a.attgenerated = 's' THEN pg_get_expr(d.adbin, d.adrelid) END AS generated FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE n.nspname = ${schema} AND c.relname = ${table} AND a.attnum > 0 AND NOT a.attisdropped`)
        ).map((r) => [String(r.name), { type: String(r.type), generated: r.generated as string | null }]),
      );
    let cols = await columns();
    if (cols.size === 0) {
      await this.executor.transaction(async (tx) => {
        // one creator at a time: concurrent first requests would race on CREATE INDEX
        await tx(sql`SELECT pg_advisory_xact_lock(hashtext(${`agno:vector:${this.tableText}`}))`);
        await tx(sql.raw(`CREATE SCHEMA IF NOT EXISTS "${checkIdentifier(schema, "schema")}"`));
        await tx(
          sql.raw(`CREATE TABLE IF NOT EXISTS ${this.tableText} (
          id VARCHAR PRIMARY KEY,
          name VARCHAR,
          meta_data JSONB DEFAULT '{}'::jsonb,
          filters JSONB DEFAULT '{}'::jsonb,
          content TEXT,
          embedding vector(${this.dimensions}),
          usage JSONB,
          created_at TIMESTAMPTZ DEFAULT now(),
          updated_at TIMESTAMPTZ,
          content_hash VARCHAR,
          content_id VARCHAR,
          user_id VARCHAR,
          ${TSV_COLUMN} tsvector GENERATED ALWAYS AS (${this.tsvExpression}) STORED
        )`),
        );
        const idx = (suffix: string) => `"idx_${table}_${suffix}"`;
        const m = this.opts.hnsw?.m ?? 16;
        const efc = this.opts.hnsw?.efConstruction ?? 64;
        if (!Number.isInteger(m) || !Number.isInteger(efc))
          throw new ValidationError("hnsw m and efConstruction must be whole numbers", "hnsw");
        await tx(
          sql.raw(
            `CREATE INDEX IF NOT EXISTS ${idx("embedding")} ON ${this.tableText} USING hnsw (embedding vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efc})`,
          ),
        );
        await tx(
          sql.raw(`CREATE INDEX IF NOT EXISTS ${idx(TSV_COLUMN)} ON ${this.tableText} USING gin (${TSV_COLUMN})`),
        );
        await tx(
          sql.raw(
            `CREATE INDEX IF NOT EXISTS ${idx("meta_data")} ON ${this.tableText} USING gin (meta_data jsonb_path_ops)`,
          ),
        );
        await tx(sql.raw(`CREATE INDEX IF NOT EXISTS ${idx("content_id")} ON ${this.tableText} (content_id)`));
        await tx(sql.raw(`CREATE INDEX IF NOT EXISTS ${idx("content_hash")} ON ${this.tableText} (content_hash)`));
        await tx(sql.raw(`CREATE INDEX IF NOT EXISTS ${idx("user_id")} ON ${this.tableText} (user_id)`));
      });
      cols = await columns();
    }
    const type = cols.get("embedding")?.type;
    if (type !== `vector(${this.dimensions})`)
      throw new SchemaMismatchError(
        `vector table ${this.tableText} has embedding ${type ?? "missing"}, this knowledge base embeds vector(${this.dimensions}): use another table or the same embedder`,
      );
    // the column counts only when it holds what the expression would compute (PostgreSQL prints a
    // generation expression back the way it is written here), else ranks would change silently
    const tsv = cols.get(TSV_COLUMN);
    return {
      hasUserId: cols.has("user_id"),
      storedTsv: tsv?.type === "tsvector" && tsv.generated === this.tsvExpression,
    };
  }

  /** Refuses a user id on a table made before per-user isolation (agno's _require_owner_column). */
  private requireOwnerColumn(state: TableState, userId: string | null | undefined): void {
    if (!state.hasUserId && userId !== undefined && userId !== null)
      throw new VectorTableMigrationRequiredError(this.tableText);
  }

  async create(): Promise<void> {
    await this.ensure();
  }

  async exists(): Promise<boolean> {
    const rows = await this.executor.exec(sql`SELECT to_regclass(${this.tableText}) IS NOT NULL AS present`);
    return rows[0]?.present === true;
  }

  async drop(): Promise<void> {
    await this.executor.exec(sql.raw(`DROP TABLE IF EXISTS ${this.tableText}`));
    this.state = undefined;
    if (this.cacheKey) ready.delete(this.cacheKey);
  }

  async insert(records: VectorRecord[]): Promise<void> {
    await this.write(records, false);
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    await this.write(records, true);
  }

  /** Every batch in one transaction: a failure leaves none of the records written. */
  private async write(records: VectorRecord[], replace: boolean): Promise<void> {
    if (!records.length) return;
    const state = await this.ensure();
    for (const r of records) this.requireOwnerColumn(state, r.user_id);
    const size = this.opts.batchSize ?? 100;
    const ownerCol = state.hasUserId ? sql`, user_id` : sql``;
    await this.executor.transaction(async (tx) => {
      for (let i = 0; i < records.length; i += size) {
        const rows = records.slice(i, i + size).map(
          (r) =>
            sql`(${r.id}, ${r.name ?? null}, ${JSON.stringify(r.meta_data)}::jsonb, ${r.content}, ${vectorLiteral(r.embedding, this.dimensions)}::vector,
              ${r.usage ? JSON.stringify(r.usage) : null}::jsonb, ${r.content_hash ?? null}, ${r.content_id ?? null}${state.hasUserId ? sql`, ${r.user_id}` : sql``})`,
        );
        const conflict = replace
          ? sql`ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, meta_data = EXCLUDED.meta_data, content = EXCLUDED.content,
              embedding = EXCLUDED.embedding, usage = EXCLUDED.usage, content_hash = EXCLUDED.content_hash,
              content_id = EXCLUDED.content_id, updated_at = now()${state.hasUserId ? sql`, user_id = EXCLUDED.user_id` : sql``}`
          : sql`ON CONFLICT (id) DO NOTHING`;
        await tx(sql`INSERT INTO ${this.table} (id, name, meta_data, content, embedding, usage, content_hash, content_id${ownerCol})
          VALUES ${sql.join(rows, sql`, `)} ${conflict}`);
      }
    });
  }

  async contentHashExists(contentHash: string, userId?: string | null): Promise<boolean> {
    const state = await this.ensure();
    this.requireOwnerColumn(state, userId);
    const owner =
      userId === undefined || !state.hasUserId
        ? sql`TRUE`
        : userId === null
          ? sql`user_id IS NULL`
          : sql`user_id = ${userId}`;
    const rows = await this.executor.exec(
      sql`SELECT 1 FROM ${this.table} WHERE content_hash = ${contentHash} AND ${owner} LIMIT 1`,
    );
    return rows.length > 0;
  }

  private where(opts: VectorSearchOptions, state: TableState): SQL {
    this.requireOwnerColumn(state, opts.userId);
    const owner =
      opts.userId === undefined
        ? sql`TRUE`
        : opts.userId === null
          ? state.hasUserId
            ? sql`user_id IS NULL`
            : sql`TRUE`
          : sql`(user_id = ${opts.userId} OR user_id IS NULL)`;
    return sql`${owner} AND ${filterSql(sql`meta_data`, opts.filters)}`;
  }

  private toDoc(r: Record<string, unknown>, extraMeta?: Record<string, unknown>): KnowledgeDocument {
    const meta = (typeof r.meta_data === "string" ? JSON.parse(r.meta_data) : (r.meta_data ?? {})) as Record<
      string,
      unknown
    >;
    const usage = typeof r.usage === "string" ? JSON.parse(r.usage) : r.usage;
    return {
      id: String(r.id),
      ...(r.name !== null && r.name !== undefined ? { name: String(r.name) } : {}),
      content: String(r.content ?? ""),
      meta_data: { ...meta, ...extraMeta },
      ...(usage ? { usage: usage as Record<string, unknown> } : {}),
      ...(r.content_id !== null && r.content_id !== undefined ? { content_id: String(r.content_id) } : {}),
      size: new TextEncoder().encode(String(r.content ?? "")).length,
    };
  }

  private async vectorSearch(
    tx: SqlExec,
    opts: VectorSearchOptions,
    where: SQL,
    limit: number,
  ): Promise<KnowledgeDocument[]> {
    if (!opts.embedding) throw new ValidationError("a vector search needs the query's embedding", "query");
    const q = vectorLiteral(opts.embedding, this.dimensions);
    const rows =
      await tx(sql`SELECT id, name, meta_data, content, usage, content_id, embedding <=> ${q}::vector AS distance
      FROM ${this.table} WHERE ${where} ORDER BY embedding <=> ${q}::vector LIMIT ${limit}`);
    return rows.map((r) => this.toDoc(r, { similarity_score: 1 - num(r.distance) }));
  }

  /** The full-text document of a row, as the stored column is generated and the old index is built. */
  private get tsvExpression(): string {
    return `to_tsvector('${this.language}'::regconfig, content)`;
  }

  private async keywordSearch(
    tx: SqlExec,
    opts: VectorSearchOptions,
    where: SQL,
    limit: number,
    state: TableState,
  ): Promise<KnowledgeDocument[]> {
    const terms = queryTerms(opts.query);
    if (!terms.length) return [];
    // any of the words (websearch_to_tsquery would need all of them); terms hold letters and digits only
    const tsq = sql`to_tsquery(${sql.raw(`'${this.language}'`)}::regconfig, ${terms.join(" | ")})`;
    const tsv = sql.raw(state.storedTsv ? TSV_COLUMN : this.tsvExpression);
    const rows = await tx(sql`SELECT id, name, meta_data, content, usage, content_id FROM ${this.table}
      WHERE ${tsv} @@ ${tsq} AND ${where} ORDER BY ts_rank_cd(${tsv}, ${tsq}) DESC, id LIMIT ${limit}`);
    return rows.map((r) => this.toDoc(r));
  }

  async search(opts: VectorSearchOptions): Promise<KnowledgeDocument[]> {
    if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1000)
      throw new ValidationError("limit must be a whole number from 1 to 1000", "limit");
    const state = await this.ensure();
    const where = this.where(opts, state);
    const type = opts.searchType ?? this.searchType;
    if (type === "keyword") return this.keywordSearch(this.executor.exec, opts, where, opts.limit, state);
    const candidates = type === "hybrid" ? hybridCandidates(opts.limit) : opts.limit;
    const efSearch = Math.min(1000, Math.max(this.opts.efSearch ?? 200, candidates));
    return this.executor.transaction(async (tx) => {
      // without these, an HNSW scan stops after ef_search candidates and a selective filter
      // (one user's rows among many) leaves fewer than `limit` of them
      await tx(
        sql`SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', ${String(efSearch)}, true)`,
      );
      const vector = await this.vectorSearch(tx, opts, where, candidates);
      if (type === "vector") return vector;
      return reciprocalRankFusion([vector, await this.keywordSearch(tx, opts, where, candidates, state)], opts.limit);
    });
  }

  async deleteByContentId(contentId: string): Promise<number> {
    await this.ensure();
    return (await this.executor.exec(sql`DELETE FROM ${this.table} WHERE content_id = ${contentId} RETURNING id`))
      .length;
  }

  async deleteByMetadata(filter: FilterExpr): Promise<number> {
    await this.ensure();
    return (
      await this.executor.exec(sql`DELETE FROM ${this.table} WHERE ${filterSql(sql`meta_data`, filter)} RETURNING id`)
    ).length;
  }

  async updateMetadata(
    contentId: string,
    metadata: Record<string, unknown>,
    opts: { removeKeys?: string[] } = {},
  ): Promise<number> {
    await this.ensure();
    const remove = JSON.stringify(opts.removeKeys ?? []);
    const rows = await this.executor.exec(sql`UPDATE ${this.table}
      SET meta_data = (COALESCE(meta_data, '{}'::jsonb) - ARRAY(SELECT jsonb_array_elements_text(${remove}::jsonb)))
        || ${JSON.stringify(metadata)}::jsonb,
      updated_at = now() WHERE content_id = ${contentId} RETURNING id`);
    return rows.length;
  }

  async deleteAll(): Promise<void> {
    await this.ensure();
    await this.executor.exec(sql`DELETE FROM ${this.table}`);
  }
}
