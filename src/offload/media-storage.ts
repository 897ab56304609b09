import { NotFoundError, StorageIntegrityError, ValidationError } from "../errors.js";
import type { MediaKind } from "../models/message.js";
import { checkKey } from "./object-input.js";
import { MAX_PRESIGN_SECONDS, type ObjectStorage, type StoredObject } from "./object-storage.js";
import { sha256Hex } from "../sha256.js";

/**
 * What a stored run keeps of a medium instead of its bytes (agno 3.0's MediaReference, under a
 * media record's `media_reference`): where the bytes are and enough about them to serve them.
 */
export interface MediaReference {
  /** the media record's `id` */
  media_id: string;
  /** `<prefix><sha256>`: the same bytes always get the same key */
  storage_key: string;
  /** which ObjectStorage holds it: "r2" | "s3" | "local" (agno's field name) */
  storage_backend: string;
  bucket: string;
  mime_type: string;
  filename?: string;
  /** bytes */
  size: number;
  /** SHA-256 of the bytes, lowercase hex */
  content_hash: string;
  media_type: MediaKind;
}

export interface StoreMediaOptions {
  mimeType: string;
  mediaType: MediaKind;
  filename?: string;
  /** the media record's id (default: a new UUID) */
  mediaId?: string;
}

export interface MediaStorageOptions {
  /** prepended to every key: `/`-separated segments of `[A-Za-z0-9._-]`, ending in `/` (default `media/`) */
  prefix?: string;
  /** how long a presigned URL (`?redirect=true`, S3 only) stays valid, in seconds (default 300) */
  presignedUrlSeconds?: number;
}

/**
 * Media (images, audio, video, files) in object storage, content-addressed: the key is the
 * bytes' SHA-256, so a picture sent to a hundred runs is stored once. Works over any
 * ObjectStorage; `R2MediaStorage`, `S3MediaStorage` and (Node) `LocalMediaStorage` pick one.
 *
 * @example
 * const media = new MediaStorage(new LocalStorage({ directory: "./.data/media" }));
 * const ref = await media.store(jpegBytes, { mimeType: "image/jpeg", mediaType: "image" });
 * const same = await media.read(ref); // the bytes, checked against ref.content_hash
 */
export class MediaStorage {
  readonly backend: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly presignedUrlSeconds: number;

  constructor(
    readonly objects: ObjectStorage,
    opts: MediaStorageOptions = {},
  ) {
    this.backend = objects.backend;
    this.bucket = objects.bucket;
    this.prefix = opts.prefix ?? "media/";
    if (!this.prefix.endsWith("/"))
      throw new TypeError(`media prefix ${JSON.stringify(this.prefix)} must end with "/"`);
    checkKey(`${this.prefix}x`);
    this.presignedUrlSeconds = opts.presignedUrlSeconds ?? 300;
    // Checked here too, so a bad setting fails when the storage is built, not on the first redirect.
    if (
      !Number.isInteger(this.presignedUrlSeconds) ||
      this.presignedUrlSeconds < 1 ||
      this.presignedUrlSeconds > MAX_PRESIGN_SECONDS
    ) {
      throw new TypeError(`presignedUrlSeconds must be a whole number of seconds from 1 to ${MAX_PRESIGN_SECONDS}`);
    }
  }

  /** Uploads the bytes unless an object with the same content already exists, and returns the reference. */
  async store(bytes: Uint8Array, opts: StoreMediaOptions): Promise<MediaReference> {
    if (bytes.byteLength === 0) throw new ValidationError("media must not be empty", "media");
    const contentHash = await sha256Hex(bytes);
    const key = `${this.prefix}${contentHash}`;
    // A head costs less than re-sending the bytes; two runs racing both put the same bytes, which is harmless.
    if (!(await this.objects.head(key))) await this.objects.put(key, bytes, { contentType: opts.mimeType });
    return {
      media_id: opts.mediaId ?? crypto.randomUUID(),
      storage_key: key,
      storage_backend: this.backend,
      bucket: this.bucket,
      mime_type: opts.mimeType,
      ...(opts.filename ? { filename: opts.filename } : {}),
      size: bytes.byteLength,
      content_hash: contentHash,
      media_type: opts.mediaType,
    };
  }

  /** Whether the reference points into this storage (same backend and bucket). */
  holds(ref: Pick<MediaReference, "storage_backend" | "bucket">): boolean {
    return ref.storage_backend === this.backend && ref.bucket === this.bucket;
  }

  /**
   * The referenced bytes. They are checked against the reference's hash, so what a model is
   * sent is what the run was given, even if the object was overwritten or damaged since (rows
   * written by agno itself may carry no hash; their bytes are taken as they are).
   */
  async read(ref: MediaReference): Promise<Uint8Array> {
    if (!this.holds(ref)) {
      throw new NotFoundError(
        `media ${ref.storage_key} is in ${ref.storage_backend} bucket ${ref.bucket}, not in this media storage (${this.backend} bucket ${this.bucket})`,
      );
    }
    const object = await this.open(ref.storage_key);
    if (!object)
      throw new NotFoundError(`media ${ref.storage_key} is missing from ${this.backend} bucket ${this.bucket}`);
    const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
    if (ref.content_hash && (await sha256Hex(bytes)) !== ref.content_hash)
      throw new StorageIntegrityError(
        `media ${ref.storage_key} in ${this.backend} bucket ${this.bucket} does not match its content hash`,
      );
    return bytes;
  }

  /** The stored object, streamed (null when absent). */
  open(storageKey: string): Promise<StoredObject | null> {
    return this.objects.get(checkKey(storageKey));
  }

  /** Whether `presignedUrl` works here (S3 can sign URLs; an R2 binding or a directory cannot). */
  get canPresign(): boolean {
    return this.objects.presignedGetUrl !== undefined;
  }

  /** A URL that reads the object without credentials for `presignedUrlSeconds`. */
  presignedUrl(storageKey: string): Promise<string> {
    if (!this.objects.presignedGetUrl) throw new TypeError(`${this.backend} storage cannot presign URLs`);
    return this.objects.presignedGetUrl(checkKey(storageKey), this.presignedUrlSeconds);
  }
}
