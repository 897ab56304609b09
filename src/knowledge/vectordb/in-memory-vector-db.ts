import { ValidationError } from "../../errors.js";
import type { KnowledgeDocument } from "../document.js";
import type { Embedder } from "../embedder.js";
import { matchesFilter, type FilterExpr } from "../filters.js";
import type { Reranker } from "../reranker.js";
import type { SearchType, VectorDb, VectorRecord, VectorSearchOptions } from "../vector-db.js";
import { hybridCandidates, queryTerms, reciprocalRankFusion } from "./fusion.js";

function cosineSimilarity(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function visibleTo(row: { user_id: string | null }, userId: string | null | undefined): boolean {
  if (userId === undefined) return true;
  return row.user_id === null || row.user_id === userId;
}

export function toDocument(r: VectorRecord, extraMeta?: Record<string, unknown>): KnowledgeDocument {
  return {
    id: r.id,
    ...(r.name !== undefined ? { name: r.name } : {}),
    content: r.content,
    meta_data: { ...structuredClone(r.meta_data), ...extraMeta },
    ...(r.usage ? { usage: structuredClone(r.usage) } : {}),
    ...(r.content_id !== undefined ? { content_id: r.content_id } : {}),
    size: new TextEncoder().encode(r.content).length,
  };
}

/**
 * The VectorDb in memory: exact cosine search over every row, keyword search by the share of the
 * query's words a chunk holds, hybrid by reciprocal rank fusion, filters and user scoping as
 * PgVector applies them. For tests and small local knowledge bases.
 */
export class InMemoryVectorDb implements VectorDb {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly embedder?: Embedder;
  readonly searchType: SearchType;
  readonly searchTypes: readonly SearchType[] = ["vector", "keyword", "hybrid"];
  readonly reranker?: Reranker;
  private rows = new Map<string, VectorRecord>();
  private created = false;

  constructor(
    opts: {
      id?: string;
      name?: string;
      description?: string;
      embedder?: Embedder;
      searchType?: SearchType;
      reranker?: Reranker;
    } = {},
  ) {
    this.name = opts.name ?? "in-memory";
    this.id = opts.id ?? this.name;
    this.description = opts.description;
    this.embedder = opts.embedder;
    this.searchType = opts.searchType ?? "vector";
    this.reranker = opts.reranker;
  }

  async create(): Promise<void> {
    this.created = true;
  }

  async exists(): Promise<boolean> {
    return this.created;
  }

  async drop(): Promise<void> {
    this.rows.clear();
    this.created = false;
  }

  async insert(records: VectorRecord[]): Promise<void> {
    this.created = true;
    for (const r of records) if (!this.rows.has(r.id)) this.rows.set(r.id, structuredClone(r));
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    this.created = true;
    for (const r of records) this.rows.set(r.id, structuredClone(r));
  }

  async contentHashExists(contentHash: string, userId?: string | null): Promise<boolean> {
    for (const r of this.rows.values())
      if (r.content_hash === contentHash && (userId === undefined || r.user_id === userId)) return true;
    return false;
  }

  private candidates(opts: VectorSearchOptions): VectorRecord[] {
    return [...this.rows.values()].filter((r) => visibleTo(r, opts.userId) && matchesFilter(r.meta_data, opts.filters));
  }

  private vectorSearch(opts: VectorSearchOptions, limit: number): KnowledgeDocument[] {
    const q = opts.embedding;
    if (!q) throw new ValidationError("a vector search needs the query's embedding", "query");
    return this.candidates(opts)
      .map((r) => ({ r, score: cosineSimilarity(q, r.embedding) }))
      .sort((a, b) => b.score - a.score || (a.r.id < b.r.id ? -1 : 1))
      .slice(0, limit)
      .map(({ r, score }) => toDocument(r, { similarity_score: score }));
  }

  private keywordSearch(opts: VectorSearchOptions, limit: number): KnowledgeDocument[] {
    const terms = queryTerms(opts.query);
    if (!terms.length) return [];
    return this.candidates(opts)
      .map((r) => {
        const words = new Set(r.content.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
        return { r, score: terms.filter((t) => words.has(t)).length };
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || (a.r.id < b.r.id ? -1 : 1))
      .slice(0, limit)
      .map(({ r }) => toDocument(r));
  }

  async search(opts: VectorSearchOptions): Promise<KnowledgeDocument[]> {
    const type = opts.searchType ?? this.searchType;
    if (type === "vector") return this.vectorSearch(opts, opts.limit);
    if (type === "keyword") return this.keywordSearch(opts, opts.limit);
    const n = hybridCandidates(opts.limit);
    return reciprocalRankFusion([this.vectorSearch(opts, n), this.keywordSearch(opts, n)], opts.limit);
  }

  async deleteByContentId(contentId: string): Promise<number> {
    let n = 0;
    for (const [id, r] of this.rows) if (r.content_id === contentId && this.rows.delete(id)) n++;
    return n;
  }

  async deleteByMetadata(filter: FilterExpr): Promise<number> {
    let n = 0;
    for (const [id, r] of this.rows) if (matchesFilter(r.meta_data, filter) && this.rows.delete(id)) n++;
    return n;
  }

  async updateMetadata(
    contentId: string,
    metadata: Record<string, unknown>,
    opts: { removeKeys?: string[] } = {},
  ): Promise<number> {
    let n = 0;
    for (const r of this.rows.values())
      if (r.content_id === contentId) {
        const kept = { ...r.meta_data };
        for (const k of opts.removeKeys ?? []) delete kept[k];
        r.meta_data = { ...kept, ...structuredClone(metadata) };
        n++;
      }
    return n;
  }

  async deleteAll(): Promise<void> {
    this.rows.clear();
  }

  /** how many rows it holds (tests) */
  get size(): number {
    return this.rows.size;
  }
}
