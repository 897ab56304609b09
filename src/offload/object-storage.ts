/**
 * The port every offload backend implements: a bucket of immutable objects by key. Tool-result
 * offload (ResultStore) and media storage (MediaStorage) are written against this, never against
 * R2 or S3 directly, so the same code runs on Workers (R2 binding), against any S3 API, and on a
 * local disk under Node.
 */
export interface StoredObjectInfo {
  key: string;
  /** bytes */
  size: number;
  contentType: string | null;
}

export interface StoredObject extends StoredObjectInfo {
  /** the object's bytes, streamed; read it once */
  body: ReadableStream<Uint8Array>;
}

export interface PutOptions {
  contentType?: string;
}

export interface ListOptions {
  /** the most keys returned (default and ceiling 1000, S3's page) */
  limit?: number;
}

export interface GetOptions {
  /** a byte range: `offset` (default 0) and `length` (default: to the end) */
  range?: { offset: number; length?: number };
}

/** The longest a presigned URL may live: SigV4's limit (7 days), which S3-compatible stores share. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export interface ObjectStorage {
  /** which backend this is, as stored in references: "r2" | "s3" | "local" */
  readonly backend: string;
  /** the bucket (or directory) name, as stored in references */
  readonly bucket: string;
  put(key: string, body: Uint8Array | string, opts?: PutOptions): Promise<StoredObjectInfo>;
  /** null when there is no such object */
  get(key: string, opts?: GetOptions): Promise<StoredObject | null>;
  /** null when there is no such object */
  head(key: string): Promise<StoredObjectInfo | null>;
  /** deleting an absent key is not an error */
  delete(keys: string[]): Promise<void>;
  /**
   * The objects whose keys start with `prefix` (a key prefix, not a folder: end it with `/` for
   * one), in key order, at most `limit`. Optional: a backend without listing leaves it out.
   */
  list?(prefix: string, opts?: ListOptions): Promise<StoredObjectInfo[]>;
  /** a time-limited URL (1 to MAX_PRESIGN_SECONDS) that reads the object without credentials, when the backend can make one */
  presignedGetUrl?(key: string, expiresInSeconds: number): Promise<string>;
}
