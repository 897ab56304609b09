import { MediaStorage, type MediaStorageOptions } from "./media-storage.js";
import { S3Storage, type S3StorageOptions } from "./s3-storage.js";

export type S3MediaStorageOptions = S3StorageOptions & MediaStorageOptions;

/**
 * Media in any S3 API bucket (AWS, R2's S3 endpoint, MinIO, GCS interoperability). The media
 * route can answer `?redirect=true` with a presigned URL valid for `presignedUrlSeconds`.
 *
 * @example
 * const mediaStorage = new S3MediaStorage({
 *   bucket: "agno-media", region: "us-east-1",
 *   credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID!, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY! },
 * });
 */
export class S3MediaStorage extends MediaStorage {
  constructor(opts: S3MediaStorageOptions) {
    super(new S3Storage(opts), opts);
  }
}
