import { env } from "cloudflare:workers";
import { expect, inject, it } from "vitest";
import { R2Storage } from "../../src/offload/r2-storage.js";
import { S3Storage } from "../../src/offload/s3-storage.js";
import { describeObjectStorageContract } from "../support/object-storage-contract.js";
import { s3TestOptions } from "../support/s3-target.js";

// The R2 binding from wrangler.toml, as the deployed Worker gets it.
describeObjectStorageContract(
  "R2Storage on the R2 binding",
  () => new R2Storage(env.STORAGE, { bucketName: "agno-edge-storage" }),
  {
    presignedUrls: false,
  },
);

// The AWS SDK inside workerd (fetch handler, Web Crypto signing) against the S3 API server.
describeObjectStorageContract(
  "S3Storage inside the Workers runtime",
  () => new S3Storage(s3TestOptions(inject("s3Url"))),
  { presignedUrls: true },
);

it("R2Storage names its backend and the bucket behind the binding", () => {
  expect(new R2Storage(env.STORAGE, { bucketName: "agno-edge-storage" })).toMatchObject({
    backend: "r2",
    bucket: "agno-edge-storage",
  });
});
