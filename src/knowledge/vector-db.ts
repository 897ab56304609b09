import type { KnowledgeDocument } from "./document.js";
import type { Embedder } from "./embedder.js";
import type { FilterExpr } from "./filters.js";
import type { Reranker } from "./reranker.js";

export type SearchType = "vector" | "keyword" | "hybrid";

/** One chunk as stored: its embedding, the content it came from, and its owner (null = shared). */
export interface VectorRecord {
  id: string;
  name?: string;
  content: string;
  meta_data: Record<string, unknown>;
  embedding: number[];
  usage?: Record<string, unknown>;
  content_id?: string;
  content_hash?: string;
  /** null: shared with every user (agno 3.0's NULL user_id) */
  user_id: string | null;
}

export interface VectorSearchOptions {
  /** the query text (keyword and hybrid search) */
  query: string;
  /** the query's embedding (vector and hybrid search) */
  embedding?: number[];
  limit: number;
  filters?: FilterExpr;
  /**
   * whose rows: undefined searches every row (an admin, or a knowledge base without isolation);
   * a string sees that user's rows and the shared ones; null only the shared ones
   */
  userId?: string | null;
  searchType?: SearchType;
}

/**
 * agno's VectorDb (vectordb/base.py) for what Knowledge needs: documents arrive embedded; the
 * store keeps them with their content id, hash and owner, and searches by vector, keyword, or both.
 */
export interface VectorDb {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** the embedder this store's vectors were made with, when it carries one (as agno's do) */
  readonly embedder?: Embedder;
  /** the search type used when a search does not name one */
  readonly searchType: SearchType;
  readonly searchTypes: readonly SearchType[];
  readonly reranker?: Reranker;
  /** makes the table (and its indexes) if it is not there */
  create(): Promise<void>;
  exists(): Promise<boolean>;
  /** drops the table */
  drop(): Promise<void>;
  /** appends; ids already present are an error of the adapter's choosing (agno: ignored) */
  insert(records: VectorRecord[]): Promise<void>;
  /** writes, replacing rows with the same id */
  upsert(records: VectorRecord[]): Promise<void>;
  /** whether rows of this hash exist; with `userId` (null: shared) only that owner's */
  contentHashExists(contentHash: string, userId?: string | null): Promise<boolean>;
  search(opts: VectorSearchOptions): Promise<KnowledgeDocument[]>;
  /** how many rows were deleted */
  deleteByContentId(contentId: string): Promise<number>;
  deleteByMetadata(filter: FilterExpr): Promise<number>;
  /**
   * merges `metadata` into the meta_data of every row of a content (agno's update_metadata),
   * first dropping `removeKeys` (what the content's previous metadata put there); how many rows
   */
  updateMetadata(
    contentId: string,
    metadata: Record<string, unknown>,
    opts?: { removeKeys?: string[] },
  ): Promise<number>;
  /** every row, keeping the table */
  deleteAll(): Promise<void>;
  /**
   * the same store bound to a database's connection (PgVector over a PostgresDb); adapters that
   * keep their own storage return themselves
   */
  withDb?(db: unknown): VectorDb;
}
