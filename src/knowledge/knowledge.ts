import type { Db } from "../db/port.js";
import type { KnowledgeContentStore } from "../db/ports/knowledge-content-store.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import type { ChunkingStrategy } from "./chunking.js";
import type { ContentInput, ContentPage, ContentRecord, ListContentsOptions } from "./content.js";
import type { KnowledgeDocument } from "./document.js";
import type { Embedder } from "./embedder.js";
import type { KnowledgeFilters } from "./filters.js";
import type { Reader } from "./reader.js";
import type { SearchType, VectorDb } from "./vector-db.js";

/** Fetches a URL content for ingestion (kroutes' safe fetch: size cap, type check, timeout, no private addresses). */
export type ContentFetcher = (
  url: string,
  opts?: { signal?: AbortSignal },
) => Promise<{ bytes: Uint8Array; contentType?: string; fileName?: string }>;

export interface KnowledgeOptions {
  /** default: derived from the name, as agno does */
  id?: string;
  name?: string;
  description?: string;
  vectorDb: VectorDb;
  /** default: the vectorDb's own embedder */
  embedder?: Embedder;
  /** default: each reader's agno default */
  chunking?: ChunkingStrategy;
  /** by reader key; defaults: text, markdown, html, json, csv, pdf */
  readers?: Record<string, Reader>;
  /** default 10 */
  maxResults?: number;
  /**
   * a search with a user id sees that user's contents and the shared ones only (agno 3.0);
   * default true
   */
  isolateVectorSearch?: boolean;
  /** where uploaded files are kept */
  objectStorage?: ObjectStorage;
  /** where content rows live when no Db is bound (default: an in-memory store) */
  contentsDb?: KnowledgeContentStore;
  /** fetches `url` contents; without one a url content is a BadRequestError */
  fetcher?: ContentFetcher;
  /** how many chunks go to the embedder per call; default 100 */
  embedBatchSize?: number;
}

export interface KnowledgeSearchOptions {
  maxResults?: number;
  filters?: KnowledgeFilters;
  /** undefined: no user scoping; a string: own + shared; null: shared only */
  userId?: string | null;
  searchType?: SearchType;
  runContext?: { userId?: string | null; sessionId?: string | null };
}

export interface KnowledgeConfigInfo {
  readers: Record<string, { id: string; name: string; description: string; chunkers: string[] }>;
  readersForType: Record<string, string[]>;
  chunkers: Record<string, { key: string; name: string; description: string; metadata?: Record<string, unknown> }>;
  filters: string[];
  vector_dbs: Array<{ id: string; name: string; description?: string; search_types: string[] }>;
}

/** Scope of a content read or write: see KnowledgeContentStore. */
export interface ContentScope {
  userId?: string | null;
}

/**
 * agno 3.0's Knowledge (knowledge/knowledge.py): contents in (read, chunked, embedded, stored in
 * the vector db, recorded with a status), documents out (search). Attach it to an agent or team
 * with `knowledge` to give the model `search_knowledge_base`.
 *
 * @example
 * const kb = new Knowledge({ name: "docs", vectorDb: new InMemoryVectorDb({ embedder }) });
 * await kb.insert({ name: "faq", textContent: "# FAQ\nRefunds take 5 days." });
 * const docs = await kb.search("refund");
 */
export class Knowledge {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  protected readonly opts: KnowledgeOptions;

  constructor(opts: KnowledgeOptions) {
    this.opts = opts;
    this.name = opts.name ?? "knowledge";
    this.id = opts.id ?? this.name;
    this.description = opts.description;
  }

  get vectorDb(): VectorDb {
    return this.opts.vectorDb;
  }

  withDb(_db: Db): Knowledge {
    throw new Error("not yet");
  }

  insert(_input: ContentInput): Promise<ContentRecord> {
    throw new Error("not yet");
  }

  insertMany(_inputs: ContentInput[]): Promise<ContentRecord[]> {
    throw new Error("not yet");
  }

  addPending(_input: ContentInput): Promise<ContentRecord> {
    throw new Error("not yet");
  }

  process(_contentId: string, _input: ContentInput): Promise<ContentRecord> {
    throw new Error("not yet");
  }

  search(_query: string, _opts: KnowledgeSearchOptions = {}): Promise<KnowledgeDocument[]> {
    throw new Error("not yet");
  }

  getContent(_id: string, _opts: ContentScope = {}): Promise<ContentRecord | null> {
    throw new Error("not yet");
  }

  listContents(_opts: Omit<ListContentsOptions, "linkedTo">): Promise<ContentPage> {
    throw new Error("not yet");
  }

  patchContent(
    _id: string,
    _patch: { name?: string; description?: string; metadata?: Record<string, unknown> },
    _opts: ContentScope = {},
  ): Promise<ContentRecord> {
    throw new Error("not yet");
  }

  deleteContent(_id: string, _opts: ContentScope = {}): Promise<void> {
    throw new Error("not yet");
  }

  deleteAllContents(_opts: ContentScope = {}): Promise<void> {
    throw new Error("not yet");
  }

  config(): KnowledgeConfigInfo {
    throw new Error("not yet");
  }
}
