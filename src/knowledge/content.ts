/** agno's ContentStatus. */
export type ContentStatus = "processing" | "completed" | "failed";

/**
 * agno's knowledge row (db/postgres/schemas.py KNOWLEDGE_TABLE_SCHEMA), as stored in
 * `agno_knowledge`: one per content inserted. `user_id` null means shared with every user.
 */
export interface ContentRecord {
  id: string;
  name: string;
  description: string;
  metadata: Record<string, unknown> | null;
  /** MIME type or reader type */
  type: string | null;
  size: number | null;
  /** the knowledge base (its name) the content belongs to */
  linked_to: string | null;
  access_count: number | null;
  status: ContentStatus | null;
  status_message: string | null;
  /** epoch seconds */
  created_at: number | null;
  updated_at: number | null;
  external_id: string | null;
  user_id: string | null;
}

/** One content to ingest: text, or bytes with a type, or a URL fetched by the knowledge's fetcher. */
export interface ContentInput {
  /** a given id (the route's); default a fresh uuid */
  id?: string;
  name?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  /** the uploader; null or absent: shared with every user */
  userId?: string | null;
  textContent?: string;
  bytes?: Uint8Array;
  contentType?: string;
  fileName?: string;
  url?: string;
  /** a reader key of Knowledge.config().readers */
  readerId?: string;
  /** a chunker key ("FixedSizeChunker", "RecursiveChunker", "MarkdownChunker", "DocumentChunker") */
  chunker?: string;
  chunkSize?: number;
  chunkOverlap?: number;
  /** replace the vectors of an already ingested content with the same hash (agno's upsert) */
  upsert?: boolean;
  /** record it completed without ingesting when the same content (hash) is already there */
  skipIfExists?: boolean;
  externalId?: string;
  signal?: AbortSignal;
}

/** One page of contents. */
export interface ContentPage {
  items: ContentRecord[];
  total: number;
}

export interface ListContentsOptions {
  limit: number;
  page: number;
  sortBy?: "created_at" | "updated_at" | "name";
  sortOrder?: "asc" | "desc";
  /** undefined: every row (admin); a string: that user's and the shared; null: shared only */
  userId?: string | null;
  /**
   * with a string userId: that user's rows only, not the shared ones (what "delete all my
   * contents" pages through; a page of shared rows must not end the walk early)
   */
  ownOnly?: boolean;
  /** only contents linked to this knowledge (its name) */
  linkedTo?: string;
}
