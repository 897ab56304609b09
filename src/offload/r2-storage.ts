import type {
  GetOptions,
  ListOptions,
  ObjectStorage,
  PutOptions,
  StoredObject,
  StoredObjectInfo,
} from "./object-storage.js";
import {
  bytesOf,
  checkKey,
  checkPrefix,
  checkRange,
  contentTypeFor,
  deleteBatches,
  emptyRangeOf,
  listLimit,
} from "./object-input.js";

/** An R2 binding deletes at most this many keys per call. */
const DELETE_BATCH = 1000;
/** R2's error code for a range that starts at or past the end of the object. */
const RANGE_NOT_SATISFIABLE = "(10039)";

export interface R2StorageOptions {
  /** the bucket behind the binding (wrangler.toml's `bucket_name`), as references should name it */
  bucketName?: string;
}

/**
 * Objects in an R2 bucket through its Workers binding: the default backend on Workers (no
 * credentials, no network hop outside Cloudflare).
 *
 * It has no `presignedGetUrl`: a binding cannot sign URLs (that needs R2's S3 API and an access
 * key). Serve the bytes through the Worker, or use S3Storage against R2's S3 endpoint to presign.
 *
 * @example
 * // wrangler.toml: [[r2_buckets]] binding = "STORAGE", bucket_name = "agno-edge-storage"
 * const storage = new R2Storage(env.STORAGE, { bucketName: "agno-edge-storage" });
 */
export class R2Storage implements ObjectStorage {
  readonly backend = "r2";
  readonly bucket: string;

  constructor(
    private readonly binding: R2Bucket,
    options: R2StorageOptions = {},
  ) {
    this.bucket = options.bucketName ?? "default";
  }

  async put(key: string, body: Uint8Array | string, opts: PutOptions = {}): Promise<StoredObjectInfo> {
    checkKey(key);
    const contentType = contentTypeFor(body, opts.contentType);
    const stored = await this.binding.put(key, bytesOf(body), { httpMetadata: { contentType } });
    return { key, size: stored.size, contentType };
  }

  async get(key: string, opts: GetOptions = {}): Promise<StoredObject | null> {
    checkKey(key);
    const range = checkRange(opts.range);
    // R2 has no form for an empty range, and refuses one that starts at or past the end, where
    // the port answers an empty body (as a slice past the end of a string does).
    if (range?.length === 0) return emptyRangeOf(this, key);
    try {
      const object = await this.binding.get(key, range && { range: { offset: range.offset, length: range.length } });
      return object && { ...infoOf(key, object), body: object.body };
    } catch (error) {
      if (range && String(error).includes(RANGE_NOT_SATISFIABLE)) return emptyRangeOf(this, key);
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    checkKey(key);
    const object = await this.binding.head(key);
    return object && infoOf(key, object);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<StoredObjectInfo[]> {
    const limit = listLimit(opts.limit);
    const listed = await this.binding.list({ prefix: checkPrefix(prefix), limit, include: ["httpMetadata"] });
    return listed.objects.map((o) => infoOf(o.key, o));
  }

  async delete(keys: string[]): Promise<void> {
    for (const batch of deleteBatches(keys, DELETE_BATCH)) await this.binding.delete(batch);
  }
}

function infoOf(key: string, object: R2Object): StoredObjectInfo {
  return { key, size: object.size, contentType: object.httpMetadata?.contentType ?? null };
}
