import { MediaStorage, type MediaStorageOptions } from "./media-storage.js";
import { R2Storage, type R2StorageOptions } from "./r2-storage.js";

/**
 * Media in an R2 bucket through its Workers binding (the default on Workers). A binding cannot
 * sign URLs, so the media route streams the bytes through the Worker.
 *
 * @example
 * // wrangler.toml: [[r2_buckets]] binding = "STORAGE", bucket_name = "agno-edge-storage"
 * const agent = new Agent({ model, db, mediaStorage: new R2MediaStorage(env.STORAGE, { bucketName: "agno-edge-storage" }) });
 */
export class R2MediaStorage extends MediaStorage {
  constructor(binding: R2Bucket, opts: R2StorageOptions & MediaStorageOptions = {}) {
    super(new R2Storage(binding, opts), opts);
  }
}
