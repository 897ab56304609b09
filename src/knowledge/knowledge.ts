import type { Db } from "../db/port.js";
import { MemoryKnowledgeContentStore } from "../db/memory/knowledge-content-store.js";
import type { KnowledgeContentStore } from "../db/ports/knowledge-content-store.js";
import { validateId } from "../db/validate.js";
import {
  AgnoError,
  BadRequestError,
  errorMessage,
  NotConfiguredError,
  NotFoundError,
  ValidationError,
} from "../errors.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { sha256Hex } from "../sha256.js";
import { nowSeconds } from "../time.js";
import type { ChunkingStrategy } from "./chunking.js";
import { CHUNKERS, makeChunker } from "./chunking/chunkers.js";
import type { ContentInput, ContentPage, ContentRecord, ListContentsOptions } from "./content.js";
import type { KnowledgeDocument } from "./document.js";
import type { Embedder } from "./embedder.js";
import { UnsupportedContentTypeError } from "./errors.js";
import { EQ, normalizeFilters, type FilterExpr, type KnowledgeFilters } from "./filters.js";
import type { Reader } from "./reader.js";
import { defaultReaders, readerFor } from "./readers/default-readers.js";
import type { SearchType, VectorDb, VectorRecord } from "./vector-db.js";

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
   * only this knowledge's own chunks (linked_to) are searched, for a vector table several
   * knowledge bases share; off unless set, as agno's default is False (user scoping applies either way)
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

/** The most a content may hold, in bytes (text: its UTF-8): larger ones are refused before reading. */
export const MAX_CONTENT_BYTES = 50 * 1024 * 1024;
const MAX_QUERY_CHARS = 10_000;
/** Chunk metadata keys Knowledge itself sets; a content's metadata cannot change them. */
const RESERVED_CHUNK_KEYS: ReadonlySet<string> = new Set(["linked_to"]);

/** A status message from any failure: the error's message, bounded. */
function failureMessage(err: unknown): string {
  const m = errorMessage(err);
  return m.length > 2000 ? `${m.slice(0, 2000)}…` : m;
}

/**
 * agno 3.0's Knowledge (knowledge/knowledge.py): contents in (read, chunked, embedded, stored in
 * the vector db, recorded with a status), documents out (search). Attach it to an agent or team
 * with `knowledge` to give the model `search_knowledge_base`.
 *
 * A content's chunks become searchable all at once or not at all: every chunk is embedded before
 * any is written, the vectors go in one write, and a failure removes what the content had in the
 * vector db and records status `failed` with the reason.
 *
 * @example
 * const kb = new Knowledge({ name: "docs", vectorDb: new InMemoryVectorDb({ embedder }) });
 * await kb.insert({ name: "faq", textContent: "# FAQ\nRefunds take 5 days.", contentType: "text/markdown" });
 * const docs = await kb.search("refund");
 */
export class Knowledge {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  protected readonly opts: KnowledgeOptions;
  private readonly readers: Record<string, Reader>;
  private readonly contents: KnowledgeContentStore;

  constructor(opts: KnowledgeOptions) {
    this.opts = opts;
    this.name = opts.name ?? "knowledge";
    this.id =
      opts.id ??
      (this.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "") ||
        "knowledge");
    this.description = opts.description;
    this.readers = opts.readers ?? defaultReaders();
    this.contents = opts.contentsDb ?? new MemoryKnowledgeContentStore();
    if (
      opts.maxResults !== undefined &&
      (!Number.isInteger(opts.maxResults) || opts.maxResults < 1 || opts.maxResults > 1000)
    )
      throw new ValidationError("maxResults must be a whole number from 1 to 1000", "maxResults");
  }

  get vectorDb(): VectorDb {
    return this.opts.vectorDb;
  }

  get maxResults(): number {
    return this.opts.maxResults ?? 10;
  }

  /** The embedder: the knowledge's own, else its vector db's. */
  get embedder(): Embedder | undefined {
    return this.opts.embedder ?? this.opts.vectorDb.embedder;
  }

  private requireEmbedder(): Embedder {
    const e = this.embedder;
    if (!e)
      throw new NotConfiguredError(`knowledge ${this.name} has no embedder (pass embedder, or a vectorDb with one)`);
    return e;
  }

  /** The same knowledge storing contents in `db` and, for PgVector, vectors through db's connection. */
  withDb(db: Db): Knowledge {
    return new Knowledge({
      ...this.opts,
      id: this.id,
      name: this.name,
      contentsDb: db,
      vectorDb: this.opts.vectorDb.withDb ? this.opts.vectorDb.withDb(db) : this.opts.vectorDb,
      readers: this.readers,
    });
  }

  // -- ingestion -----------------------------------------------------------------------------

  private checkInput(input: ContentInput): void {
    const sources = [input.textContent !== undefined, input.bytes !== undefined, input.url !== undefined].filter(
      Boolean,
    );
    if (sources.length !== 1)
      throw new ValidationError("a content needs exactly one of textContent, bytes or url", "content");
    if (input.textContent !== undefined && typeof input.textContent !== "string")
      throw new ValidationError("textContent must be a string", "text_content");
    if (input.bytes !== undefined && !(input.bytes instanceof Uint8Array))
      throw new ValidationError("bytes must be a Uint8Array", "file");
    const size =
      input.bytes?.byteLength ??
      (input.textContent !== undefined ? new TextEncoder().encode(input.textContent).length : 0);
    if (size > MAX_CONTENT_BYTES) throw new ValidationError(`content exceeds ${MAX_CONTENT_BYTES} bytes`, "file");
    if (input.url !== undefined) {
      if (!this.opts.fetcher)
        throw new BadRequestError("this knowledge base cannot fetch URLs (no fetcher configured)");
      try {
        const u = new URL(input.url);
        if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("scheme");
      } catch {
        throw new ValidationError("url must be an http(s) URL", "url");
      }
    }
    if (input.readerId !== undefined && !this.readers[input.readerId])
      throw new ValidationError(
        `unknown reader ${JSON.stringify(input.readerId)}: one of ${Object.keys(this.readers).join(", ")}`,
        "reader_id",
      );
    if (input.chunker !== undefined)
      makeChunker(input.chunker, { chunkSize: input.chunkSize, overlap: input.chunkOverlap });
    if (input.userId !== undefined && input.userId !== null) validateId(input.userId, "user_id");
    if (
      input.metadata !== undefined &&
      (typeof input.metadata !== "object" || input.metadata === null || Array.isArray(input.metadata))
    )
      throw new ValidationError("metadata must be an object", "metadata");
    // a file whose type no reader takes is refused now (400), before anything is recorded
    if (input.bytes !== undefined && input.readerId === undefined && !readerFor(this.readers, input))
      throw new UnsupportedContentTypeError(input.contentType ?? input.fileName ?? "unknown");
  }

  private pendingRow(input: ContentInput): ContentRecord {
    const ts = nowSeconds();
    return {
      id: input.id ?? crypto.randomUUID(),
      name: (input.name ?? input.fileName ?? input.url ?? "text content").slice(0, 255),
      description: input.description ?? "",
      metadata: input.metadata ?? null,
      type: input.contentType ?? (input.textContent !== undefined ? "text/plain" : null),
      size:
        input.bytes?.byteLength ??
        (input.textContent !== undefined ? new TextEncoder().encode(input.textContent).length : null),
      linked_to: this.name,
      access_count: 0,
      status: "processing",
      status_message: null,
      created_at: ts,
      updated_at: ts,
      external_id: input.externalId ?? null,
      user_id: input.userId ?? null,
    };
  }

  /** Records a content in status "processing" without ingesting it (a route does this, then ingests in the background). */
  async addPending(input: ContentInput): Promise<ContentRecord> {
    this.checkInput(input);
    if (input.id !== undefined) validateId(input.id, "id");
    return this.contents.upsertKnowledgeContent(this.pendingRow(input));
  }

  /** Ingests one content: read, chunk, embed, store; its row ends `completed`, or `failed` with the reason. */
  async insert(input: ContentInput): Promise<ContentRecord> {
    const row = await this.addPending(input);
    return this.process(row.id, input);
  }

  /** Ingests several, one after another (each its own row and status). */
  async insertMany(inputs: ContentInput[]): Promise<ContentRecord[]> {
    for (const input of inputs) this.checkInput(input);
    const out: ContentRecord[] = [];
    for (const input of inputs) out.push(await this.insert(input));
    return out;
  }

  /**
   * Ingests an already recorded content (by id), updating its status; what the background job
   * runs. A failure is recorded on the row (status `failed`, status_message) and leaves none of
   * the content's chunks in the vector db; the row is returned either way.
   */
  async process(contentId: string, input: ContentInput): Promise<ContentRecord> {
    validateId(contentId, "id");
    const row = await this.contents.getKnowledgeContent(contentId);
    if (!row) throw new NotFoundError(`content ${contentId} not found`);
    try {
      const { records, hash, size, type, skipped } = await this.ingest(row, input);
      if (!skipped) {
        // the content's previous vectors (a re-run, an upsert) go before the new ones land
        await this.vectorDb.deleteByContentId(contentId);
        if (input.upsert && !skipped) await this.vectorDb.upsert(records);
        else await this.vectorDb.insert(records);
      }
      return await this.contents.upsertKnowledgeContent({
        ...row,
        size: size ?? row.size,
        type: row.type ?? type ?? null,
        status: "completed",
        status_message: skipped ? `skipped: content with hash ${hash} already exists` : null,
        updated_at: nowSeconds(),
      });
    } catch (err) {
      // nothing of a failed content stays searchable
      await this.vectorDb.deleteByContentId(contentId).catch(() => undefined);
      const failed = await this.contents.upsertKnowledgeContent({
        ...row,
        status: "failed",
        status_message: failureMessage(err),
        updated_at: nowSeconds(),
      });
      // a deployment that cannot hold vectors at all is the caller's 503, not one content's failure
      if (err instanceof AgnoError && err.status === 503) throw err;
      return failed;
    }
  }

  private async ingest(
    row: ContentRecord,
    input: ContentInput,
  ): Promise<{ records: VectorRecord[]; hash: string; size?: number; type?: string; skipped: boolean }> {
    let bytes = input.bytes;
    let contentType = input.contentType;
    let fileName = input.fileName;
    if (input.url !== undefined) {
      if (!this.opts.fetcher)
        throw new BadRequestError("this knowledge base cannot fetch URLs (no fetcher configured)");
      const fetched = await this.opts.fetcher(input.url, { signal: input.signal });
      bytes = fetched.bytes;
      contentType = contentType ?? fetched.contentType;
      fileName = fileName ?? fetched.fileName ?? new URL(input.url).pathname.split("/").pop();
    }
    const reader = input.readerId
      ? this.readers[input.readerId]!
      : input.textContent !== undefined && !contentType
        ? this.readers.text
        : readerFor(this.readers, { contentType, fileName });
    if (!reader) throw new UnsupportedContentTypeError(contentType ?? fileName ?? "unknown");
    const hash = await sha256Hex(bytes ?? input.textContent ?? "");
    const userId = row.user_id;
    if (input.skipIfExists && (await this.vectorDb.contentHashExists(hash, userId)))
      return { records: [], hash, skipped: true };
    const docs = await reader.read({
      name: row.name,
      ...(bytes ? { bytes } : { text: input.textContent }),
      contentType,
      fileName,
      metadata: input.metadata ?? row.metadata ?? undefined,
    });
    const chunker =
      input.chunker !== undefined
        ? makeChunker(input.chunker, { chunkSize: input.chunkSize, overlap: input.chunkOverlap })
        : (this.opts.chunking ??
          makeChunker(reader.defaultChunker, { chunkSize: input.chunkSize, overlap: input.chunkOverlap }));
    const chunks: KnowledgeDocument[] = [];
    for (const doc of docs) chunks.push(...chunker.chunk(doc));
    const texts = chunks.map((c) => c.content).filter((t) => t.trim() !== "");
    const kept = chunks.filter((c) => c.content.trim() !== "");
    if (!kept.length) throw new ValidationError("the content holds no text to index", "file");
    // every chunk is embedded before any is written: a failing embedder leaves nothing behind
    const embedder = this.requireEmbedder();
    const batch = this.opts.embedBatchSize ?? 100;
    const embeddings: number[][] = [];
    let tokens = 0;
    for (let i = 0; i < texts.length; i += batch) {
      input.signal?.throwIfAborted();
      const r = await embedder.embed(texts.slice(i, i + batch), { signal: input.signal });
      embeddings.push(...r.embeddings);
      tokens += r.usage?.tokens ?? 0;
    }
    const records: VectorRecord[] = kept.map((c, i) => ({
      id: `${row.id}_${i + 1}`,
      ...(c.name !== undefined ? { name: c.name } : {}),
      content: c.content,
      meta_data: { ...c.meta_data, linked_to: this.name },
      embedding: embeddings[i]!,
      ...(tokens ? { usage: { embedder: embedder.id } } : {}),
      content_id: row.id,
      content_hash: hash,
      user_id: userId,
    }));
    return { records, hash, size: bytes?.byteLength, type: contentType, skipped: false };
  }

  // -- search --------------------------------------------------------------------------------

  /**
   * The documents most relevant to `query`. `userId` (else the run context's): a string sees that
   * user's contents and the shared ones, null (a run without a user) only the shared ones,
   * undefined (no run context) every one.
   * With isolateVectorSearch, only this knowledge's contents (linked_to) in a shared table.
   */
  async search(query: string, opts: KnowledgeSearchOptions = {}): Promise<KnowledgeDocument[]> {
    if (typeof query !== "string" || query.trim() === "" || query.length > MAX_QUERY_CHARS)
      throw new ValidationError(`query must be a non-empty string of at most ${MAX_QUERY_CHARS} characters`, "query");
    const limit = opts.maxResults ?? this.maxResults;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new ValidationError("max_results must be a whole number from 1 to 1000", "max_results");
    const searchType = opts.searchType ?? this.vectorDb.searchType;
    if (!this.vectorDb.searchTypes.includes(searchType))
      throw new ValidationError(`search_type must be one of ${this.vectorDb.searchTypes.join(", ")}`, "search_type");
    let filters: FilterExpr | undefined = normalizeFilters(opts.filters);
    if (this.opts.isolateVectorSearch) {
      const scope = EQ("linked_to", this.name);
      filters = filters ? { op: "AND", conditions: [scope, filters] } : scope;
    }
    // a run context without a user sees the shared contents only
    const userId =
      opts.userId !== undefined ? opts.userId : opts.runContext ? (opts.runContext.userId ?? null) : undefined;
    if (userId !== undefined && userId !== null) validateId(userId, "user_id");
    const embedding =
      searchType === "keyword" ? undefined : (await this.requireEmbedder().embed([query])).embeddings[0];
    const docs = await this.vectorDb.search({ query, embedding, limit, filters, userId, searchType });
    return this.vectorDb.reranker ? this.vectorDb.reranker.rerank(query, docs) : docs;
  }

  // -- contents ------------------------------------------------------------------------------

  async getContent(id: string, opts: ContentScope = {}): Promise<ContentRecord | null> {
    const row = await this.contents.getKnowledgeContent(id, { userId: opts.userId });
    return row && row.linked_to === this.name ? row : null;
  }

  async listContents(opts: Omit<ListContentsOptions, "linkedTo">): Promise<ContentPage> {
    return this.contents.listKnowledgeContents({ ...opts, linkedTo: this.name });
  }

  /** The row whose scope may change it: a user only their own; undefined (admin) any. Else 404. */
  private async writableRow(id: string, userId: string | null | undefined): Promise<ContentRecord> {
    const row = await this.getContent(id, { userId });
    if (!row || (userId !== undefined && row.user_id !== userId)) throw new NotFoundError(`content ${id} not found`);
    return row;
  }

  async patchContent(
    id: string,
    patch: { name?: string; description?: string; metadata?: Record<string, unknown> },
    opts: ContentScope = {},
  ): Promise<ContentRecord> {
    const row = await this.writableRow(id, opts.userId);
    if (patch.metadata !== undefined) {
      if (typeof patch.metadata !== "object" || patch.metadata === null || Array.isArray(patch.metadata))
        throw new ValidationError("metadata must be an object", "metadata");
      // Keys Knowledge sets on chunks itself: linked_to scopes isolateVectorSearch, so a patch
      // naming it would move the chunks into another knowledge base's searches.
      const reserved = Object.keys(patch.metadata).filter((k) => RESERVED_CHUNK_KEYS.has(k));
      if (reserved.length)
        throw new ValidationError(
          `metadata may not set ${reserved.join(", ")}: it is set by the knowledge base`,
          "metadata",
        );
      // The chunks carry the content's metadata too, so filters see the change (agno's
      // update_metadata); the previous metadata's keys go first so a removed key leaves the chunks.
      const removeKeys = Object.keys(row.metadata ?? {}).filter((k) => !RESERVED_CHUNK_KEYS.has(k));
      await this.vectorDb.updateMetadata(id, { ...patch.metadata, linked_to: this.name }, { removeKeys });
    }
    return this.contents.upsertKnowledgeContent({
      ...row,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.metadata !== undefined ? { metadata: patch.metadata } : {}),
      updated_at: nowSeconds(),
    });
  }

  /** Deletes a content and its vectors. */
  async deleteContent(id: string, opts: ContentScope = {}): Promise<void> {
    await this.writableRow(id, opts.userId);
    await this.vectorDb.deleteByContentId(id);
    await this.contents.deleteKnowledgeContent(id, { userId: opts.userId });
  }

  /** Deletes every content the scope may delete (a user: their own; undefined: all of this knowledge's), with their vectors. */
  async deleteAllContents(opts: ContentScope = {}): Promise<void> {
    if (opts.userId === undefined) {
      await this.vectorDb.deleteByMetadata(EQ("linked_to", this.name));
      await this.contents.deleteKnowledgeContents({ linkedTo: this.name });
      return;
    }
    // own rows only: a page of shared rows (which a user may read but not delete) must not end the walk
    for (;;) {
      const page = await this.contents.listKnowledgeContents({
        limit: 100,
        page: 1,
        userId: opts.userId,
        ownOnly: true,
        linkedTo: this.name,
      });
      if (!page.items.length) return;
      for (const r of page.items) await this.deleteContent(r.id, opts);
    }
  }

  /** What /knowledge/config shows: readers, chunkers, vector dbs, filters. */
  config(): KnowledgeConfigInfo {
    const readers: KnowledgeConfigInfo["readers"] = {};
    const readersForType: Record<string, string[]> = {};
    for (const [key, r] of Object.entries(this.readers)) {
      readers[key] = { id: key, name: r.name, description: r.description, chunkers: r.chunkers };
      for (const t of [...r.accepts.extensions, ...r.accepts.contentTypes]) (readersForType[t] ??= []).push(key);
    }
    const chunkers: KnowledgeConfigInfo["chunkers"] = {};
    for (const [key, c] of Object.entries(CHUNKERS)) chunkers[key] = { key, name: c.name, description: c.description };
    return {
      readers,
      readersForType,
      chunkers,
      filters: [],
      vector_dbs: [
        {
          id: this.vectorDb.id,
          name: this.vectorDb.name,
          ...(this.vectorDb.description !== undefined ? { description: this.vectorDb.description } : {}),
          search_types: [...this.vectorDb.searchTypes],
        },
      ],
    };
  }
}
