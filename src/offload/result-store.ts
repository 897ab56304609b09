import type { Db, ToolResultRecord } from "../db/port.js";
import { NotConfiguredError, NotFoundError, ValidationError } from "../errors.js";
import { countCodePoints, countLines, sliceCodePoints } from "./code-points.js";
import type { ObjectStorage } from "./object-storage.js";
import { searchText, type SearchOptions, type SearchOutcome } from "./result-search.js";
import { hex, sha256Hex } from "../sha256.js";
import { nowSeconds } from "../time.js";

export interface ResultStoreOptions {
  /** results longer than this many characters (Unicode code points) are offloaded; default 16,000 */
  thresholdChars?: number;
  /** how long an offloaded result stays readable; default 7 days; null keeps it until deleted */
  ttlSeconds?: number | null;
  /** where the text goes; without it the agent's `resultStorage` (or the runtime's) is used */
  storage?: ObjectStorage;
  /** characters of the result kept in the message's envelope; default 1,000 (never more than the threshold) */
  previewChars?: number;
}

/** Where a result came from: stored on its row, and the scope that may read it back. */
export interface ResultOrigin {
  sessionId: string | null;
  runId: string | null;
  userId: string | null;
  toolCallId: string | null;
  toolName: string | null;
  args: Record<string, unknown> | null;
}

/** Who asks: only the session and user that produced a result can read it. */
export interface ResultScope {
  sessionId: string | null;
  userId: string | null;
}

export interface ReadSlice {
  result_id: string;
  offset: number;
  length: number;
  total_chars: number;
  /** where the next read continues, null at the end */
  next_offset: number | null;
  content: string;
}

const DEFAULT_THRESHOLD_CHARS = 16_000;
export const DEFAULT_READ_CHARS = 4_000;
/** a read never returns more than this, so its answer stays below the default threshold */
export const MAX_READ_CHARS = 16_000;
const DEFAULT_TTL_SECONDS = 7 * 24 * 3600;
const DEFAULT_PREVIEW_CHARS = 1_000;
/** bytes of a result a search fetches at most */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;
const PRUNE_BATCH = 500;
/** batches per prune call: a scheduled tick does bounded work and the next one continues */
const PRUNE_MAX_BATCHES = 20;
const KEY_SEGMENT = /^[A-Za-z0-9._-]{1,200}$/;

const utf8 = new TextEncoder();

/**
 * The tool-result offload policy (SPEC O1-O3): results over `thresholdChars` go to object
 * storage under `tool-results/<session or _>/<result_id>`, indexed in `agno_tool_results`,
 * and the model keeps an envelope (a preview, the sizes, the `result_id`) that it can follow
 * with the `read_result` and `search_result` tools. Nothing here calls a model.
 *
 * @example
 * const agent = new Agent({ model, tools, db, offloadToolResults: new ResultStore({ thresholdChars: 8_000, ttlSeconds: 86_400, storage }) });
 */
export class ResultStore {
  readonly thresholdChars: number;
  readonly ttlSeconds: number | null;
  readonly previewChars: number;
  readonly storage?: ObjectStorage;

  constructor(opts: ResultStoreOptions = {}) {
    this.thresholdChars = positiveInt(opts.thresholdChars ?? DEFAULT_THRESHOLD_CHARS, "thresholdChars");
    this.ttlSeconds =
      opts.ttlSeconds === null ? null : positiveInt(opts.ttlSeconds ?? DEFAULT_TTL_SECONDS, "ttlSeconds");
    this.previewChars = Math.min(
      positiveInt(opts.previewChars ?? DEFAULT_PREVIEW_CHARS, "previewChars"),
      this.thresholdChars,
    );
    this.storage = opts.storage;
  }

  /** The same policy writing to `storage`. */
  withStorage(storage: ObjectStorage): ResultStore {
    return new ResultStore({
      thresholdChars: this.thresholdChars,
      ttlSeconds: this.ttlSeconds,
      previewChars: this.previewChars,
      storage,
    });
  }

  private get bucket(): ObjectStorage {
    if (!this.storage)
      throw new NotConfiguredError(
        "tool-result offload has no storage: give the ResultStore or the agent a `resultStorage`",
      );
    return this.storage;
  }

  /**
   * Stores `text` when it is over the threshold and returns the envelope the model sees instead;
   * null when it is not (nothing is written). The object is written before its row, and removed
   * again when the row cannot be, so a row always points at bytes.
   */
  async offload(db: Db, text: string, from: ResultOrigin, now = nowSeconds()): Promise<string | null> {
    // n UTF-16 units hold at most n code points: shorter strings need no count.
    if (text.length <= this.thresholdChars) return null;
    const sizeChars = countCodePoints(text);
    if (sizeChars <= this.thresholdChars) return null;
    const storage = this.bucket;
    const bytes = utf8.encode(text);
    const resultId = crypto.randomUUID();
    const path = `tool-results/${keySegment(from.sessionId)}/${resultId}`;
    const contentType = looksLikeJson(text) ? "application/json" : "text/plain; charset=utf-8";
    const preview = sliceCodePoints(text, 0, this.previewChars);
    const row: ToolResultRecord = {
      result_id: resultId,
      namespace: namespaceOf(storage),
      path,
      session_id: from.sessionId,
      run_id: from.runId,
      tool_call_id: from.toolCallId,
      tool_name: from.toolName,
      args_hash: from.args ? await sha256Hex(JSON.stringify(from.args)) : null,
      content_type: contentType,
      size_bytes: bytes.byteLength,
      size_chars: sizeChars,
      line_count: countLines(text),
      preview,
      user_id: from.userId,
      created_at: now,
      expires_at: this.ttlSeconds === null ? null : now + this.ttlSeconds,
    };
    await storage.put(path, bytes, { contentType });
    try {
      await db.insertToolResult(row);
    } catch (error) {
      await storage.delete([path]).catch(() => undefined);
      throw error;
    }
    return envelope(row);
  }

  /** `length` characters (code points) of a stored result from `offset`; NotFoundError outside its scope. */
  async read(
    db: Db,
    resultId: string,
    scope: ResultScope,
    opts: { offset?: number; length?: number } = {},
    now = nowSeconds(),
  ): Promise<ReadSlice> {
    const offset = opts.offset ?? 0;
    if (!Number.isInteger(offset) || offset < 0)
      throw new ValidationError("offset must be a whole number >= 0", "offset");
    const length = Math.min(positiveInt(opts.length ?? DEFAULT_READ_CHARS, "length"), MAX_READ_CHARS);
    const row = await this.visible(db, resultId, scope, now);
    // All ASCII (one byte per character): the slice is a byte range, so only it is fetched.
    const content =
      row.size_bytes === row.size_chars
        ? await this.text(row, { offset, length })
        : sliceCodePoints(await this.text(row), offset, length);
    const returned = countCodePoints(content);
    const end = offset + returned;
    return {
      result_id: row.result_id,
      offset,
      length: returned,
      total_chars: row.size_chars,
      next_offset: end < row.size_chars ? end : null,
      content,
    };
  }

  /** Finds text (or a guarded regex) in a stored result; offsets in code points. */
  async search(
    db: Db,
    resultId: string,
    scope: ResultScope,
    opts: SearchOptions,
    now = nowSeconds(),
  ): Promise<SearchOutcome & { result_id: string; total_chars: number }> {
    const row = await this.visible(db, resultId, scope, now);
    const text = await this.text(
      row,
      row.size_bytes > MAX_SCAN_BYTES ? { offset: 0, length: MAX_SCAN_BYTES } : undefined,
    );
    return { result_id: row.result_id, total_chars: row.size_chars, ...searchText(text, opts) };
  }

  /**
   * Deletes results that expired before `now` from this store: objects first, then rows, so a
   * failure leaves rows that the next prune retries (deleting an absent object is no error).
   * Rows of other stores (another namespace) are left to theirs. Returns how many rows went.
   */
  async prune(db: Db, now = nowSeconds()): Promise<number> {
    const storage = this.bucket;
    const namespace = namespaceOf(storage);
    let deleted = 0;
    for (let batch = 0; batch < PRUNE_MAX_BATCHES; batch++) {
      const expired = await db.listExpiredToolResults(now, { namespace, limit: PRUNE_BATCH });
      if (expired.length === 0) break;
      await storage.delete(expired.map((r) => r.path));
      deleted += await db.deleteToolResults(expired.map((r) => r.result_id));
      if (expired.length < PRUNE_BATCH) break;
    }
    return deleted;
  }

  private async visible(db: Db, resultId: string, scope: ResultScope, now: number): Promise<ToolResultRecord> {
    if (typeof resultId !== "string" || resultId.length === 0 || resultId.length > 255)
      throw new NotFoundError(`tool result ${String(resultId).slice(0, 80)} not found`);
    const row = await db.getToolResult(resultId, scope);
    // Another user's or session's id reads exactly like an unknown one.
    if (!row || (row.expires_at !== null && row.expires_at < now) || row.namespace !== namespaceOf(this.bucket)) {
      throw new NotFoundError(`tool result ${resultId} not found (unknown, expired, or not this session's)`);
    }
    return row;
  }

  private async text(row: ToolResultRecord, range?: { offset: number; length: number }): Promise<string> {
    const object = await this.bucket.get(row.path, range ? { range } : {});
    if (!object) throw new NotFoundError(`tool result ${row.result_id} not found (its stored text is gone)`);
    // `stream: true` keeps a character cut by a byte range out of the text instead of turning it into U+FFFD.
    return new TextDecoder().decode(new Uint8Array(await new Response(object.body).arrayBuffer()), { stream: true });
  }
}

/**
 * Deletes expired tool results (rows and objects) stored through `storage`: what the scheduled
 * handler calls each tick. Returns how many were deleted.
 *
 * @example
 * ctx.waitUntil(pruneToolResults(db, new R2Storage(env.RESULTS), Math.floor(Date.now() / 1000)));
 */
export function pruneToolResults(db: Db, storage: ObjectStorage, now = nowSeconds()): Promise<number> {
  return new ResultStore({ storage }).prune(db, now);
}

/** What the model sees instead of an offloaded result: small, JSON, and saying how to read on. */
function envelope(row: ToolResultRecord): string {
  return JSON.stringify({
    result_id: row.result_id,
    tool_name: row.tool_name,
    content_type: row.content_type,
    size_chars: row.size_chars,
    size_bytes: row.size_bytes,
    line_count: row.line_count,
    preview: row.preview,
    hint:
      `This result was too long to show (${row.size_chars} characters); above is its start. ` +
      `Read any part with read_result(result_id, offset, length) or find text in it with search_result(result_id, query).`,
  });
}

/** `<backend>:<bucket>`: which object store a row's `path` is in. */
const namespaceOf = (storage: ObjectStorage) => `${storage.backend}:${storage.bucket}`;

/**
 * A session id as one key segment. Keys allow only `[A-Za-z0-9._-]`; other ids are hex-encoded.
 * The segment only groups a session's objects (the result id makes each key unique).
 */
function keySegment(sessionId: string | null): string {
  if (sessionId === null) return "_";
  if (KEY_SEGMENT.test(sessionId) && sessionId !== "." && sessionId !== "..") return sessionId;
  return `x${hex(utf8.encode(sessionId).slice(0, 100))}`;
}

/** A cheap guess for the row's content type: tools that return objects are sent as JSON. */
function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  const last = text.trimEnd().at(-1);
  return (first === "{" && last === "}") || (first === "[" && last === "]");
}

function positiveInt(value: number, field: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ValidationError(`${field} must be a whole number >= 1`, field);
  return value;
}
