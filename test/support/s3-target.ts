/**
 * The bucket and credentials of the S3 server the test setup starts (s3-server.ts), in a module
 * of its own so Workers tests can import them without importing the server.
 */
export const S3_TEST_BUCKET = "agno-test";
const S3_TEST_REGION = "us-east-1";
/** s3rver's built-in account: the server checks SigV4 signatures made with it */
export const S3_TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** S3Storage (or S3MediaStorage) options for that server at `endpoint` (the injected `s3Url`), path-style as it needs. */
export function s3TestOptions(endpoint: string) {
  return {
    bucket: S3_TEST_BUCKET,
    region: S3_TEST_REGION,
    endpoint,
    credentials: S3_TEST_CREDENTIALS,
    forcePathStyle: true,
  };
}
