/**
 * `agno-edge/s3`: object and media storage in any S3 API bucket, apart from the SDK so that the AWS
 * SDK is in the module graph only of apps that import it (a Worker on R2 uses `agno-edge/workers`).
 * On Workers, alias `@aws-sdk/xml-builder` to its CommonJS build as this repository's wrangler.toml does.
 */
export { S3Storage, type S3StorageOptions } from "./offload/s3-storage.js";
export { S3MediaStorage, type S3MediaStorageOptions } from "./offload/media-s3-storage.js";
