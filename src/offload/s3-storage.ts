import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { ValidationError } from "../errors.js";
import {
  MAX_PRESIGN_SECONDS,
  type GetOptions,
  type ListOptions,
  type ObjectStorage,
  type PutOptions,
  type StoredObject,
  type StoredObjectInfo,
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

/** DeleteObjects takes at most this many keys per request (S3 answers MalformedXML above it). */
const DELETE_BATCH = 1000;

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** for S3-compatible stores (MinIO, R2's S3 API, GCS interoperability, …); omit for AWS */
  endpoint?: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; most non-AWS stores need it */
  forcePathStyle?: boolean;
}

/**
 * Objects in any S3 API bucket, through `@aws-sdk/client-s3`. Runs under Node and on Workers
 * (the SDK's fetch-based handler; the Worker needs `nodejs_compat`).
 *
 * @example
 * const storage = new S3Storage({
 *   bucket: "agno-media", region: "auto", endpoint: "https://<account>.r2.cloudflarestorage.com",
 *   credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
 * });
 * const url = await storage.presignedGetUrl("media/abc.jpg", 300);
 */
export class S3Storage implements ObjectStorage {
  readonly backend = "s3";
  readonly bucket: string;
  private readonly client: S3Client;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      credentials: options.credentials,
      forcePathStyle: options.forcePathStyle,
      // Checksums only where the API requires them (DeleteObjects): many S3-compatible stores
      // reject or mishandle the SDK's default CRC32 headers and trailers on every request.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, body: Uint8Array | string, opts: PutOptions = {}): Promise<StoredObjectInfo> {
    checkKey(key);
    const contentType = contentTypeFor(body, opts.contentType);
    const bytes = bytesOf(body);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.byteLength,
      }),
    );
    return { key, size: bytes.byteLength, contentType };
  }

  async get(key: string, opts: GetOptions = {}): Promise<StoredObject | null> {
    checkKey(key);
    const range = checkRange(opts.range);
    // An empty range has no HTTP form ("bytes=5-4" is ignored by S3, which then sends everything).
    if (range?.length === 0) return emptyRangeOf(this, key);
    const header =
      range && (range.offset > 0 || range.length !== undefined)
        ? `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`
        : undefined;
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: header }));
      if (!out.Body) throw new Error(`S3 answered GetObject for ${key} without a body`);
      // With a range, ContentLength is the range's; the object's size is after the "/" of Content-Range.
      const size = out.ContentRange ? Number(out.ContentRange.split("/")[1]) : (out.ContentLength ?? 0);
      return {
        key,
        size,
        contentType: out.ContentType ?? null,
        body: out.Body.transformToWebStream() as ReadableStream<Uint8Array>,
      };
    } catch (error) {
      if (isMissing(error)) return null;
      // 416: the range starts at or past the end; like a slice past the end, that reads nothing.
      if (isStatus(error, 416)) return emptyRangeOf(this, key);
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    checkKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /**
   * ListObjectsV2 gives no content types: they are null here (head a key for its type). One full
   * page is asked for and cut to the limit: the same single request, and some S3-compatible
   * servers fail on a truncated page.
   */
  async list(prefix: string, opts: ListOptions = {}): Promise<StoredObjectInfo[]> {
    const limit = listLimit(opts.limit);
    const out = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: checkPrefix(prefix) }));
    return (out.Contents ?? [])
      .slice(0, limit)
      .map((o) => ({ key: o.Key ?? "", size: o.Size ?? 0, contentType: null }));
  }

  async delete(keys: string[]): Promise<void> {
    for (const batch of deleteBatches(keys, DELETE_BATCH)) {
      const out = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      // DeleteObjects answers 200 even when some keys failed (access denied, …): those are listed.
      const failed = out.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0]!;
        throw new Error(
          `S3 did not delete ${failed.length} of ${batch.length} objects (first: ${first.Key}: ${first.Code} ${first.Message})`,
        );
      }
    }
  }

  async presignedGetUrl(key: string, expiresInSeconds: number): Promise<string> {
    checkKey(key);
    if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
      throw new ValidationError(
        `expiresInSeconds must be a whole number from 1 to ${MAX_PRESIGN_SECONDS}`,
        "expiresInSeconds",
      );
    }
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: expiresInSeconds,
    });
  }
}

/**
 * GetObject's 404 says NoSuchKey; HEAD has no body to say anything, so the SDK names it NotFound.
 * (A missing bucket is NoSuchBucket on GET, and stays an error.)
 */
function isMissing(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return isStatus(error, 404) && (name === "NoSuchKey" || name === "NotFound");
}

function isStatus(error: unknown, status: number): boolean {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode === status;
}
