/**
 * The bucket and credentials of the S3 server the test setup starts (s3-server.ts), in a module
 * of its own so Workers tests can import them without importing the server.
 */
export const S3_TEST_BUCKET = "agno-test";
export const S3_TEST_REGION = "us-east-1";
/** s3rver's built-in account: the server checks SigV4 signatures made with it */
export const S3_TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
