import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { LocalStorage } from "../../src/offload/local-storage.js";
import { S3Storage } from "../../src/offload/s3-storage.js";
import { describeObjectStorageContract } from "../support/object-storage-contract.js";
import { S3_TEST_BUCKET, S3_TEST_CREDENTIALS, s3TestOptions } from "../support/s3-target.js";

const s3 = () => new S3Storage(s3TestOptions(inject("s3Url")));

const directory = await mkdtemp(join(tmpdir(), "agno-local-storage-"));
afterAll(() => rm(directory, { recursive: true, force: true }));

describeObjectStorageContract("S3Storage against an S3 API server", s3, { presignedUrls: true });
describeObjectStorageContract("LocalStorage in a temp folder", () => new LocalStorage({ directory }), {
  presignedUrls: false,
});

it("S3Storage names its backend and bucket as references store them", () => {
  expect(s3()).toMatchObject({ backend: "s3", bucket: S3_TEST_BUCKET });
});

it("S3Storage reports a wrong secret as an error, not as a missing object", async () => {
  const wrong = new S3Storage({
    ...s3TestOptions(inject("s3Url")),
    credentials: { ...S3_TEST_CREDENTIALS, secretAccessKey: "wrong" },
  });
  await expect(wrong.get("anything")).rejects.toMatchObject({ name: "SignatureDoesNotMatch" });
  await expect(wrong.put("anything", "x")).rejects.toMatchObject({ name: "SignatureDoesNotMatch" });
});

it("LocalStorage leaves no temp files and no empty folders behind", async () => {
  const own = join(directory, "tidy");
  const storage = new LocalStorage({ directory: own });
  expect(storage).toMatchObject({ backend: "local", bucket: "tidy" });
  await Promise.all(Array.from({ length: 20 }, (_, i) => storage.put("a/b/same", `writer ${i}`)));
  expect(await readdir(join(own, "a/b"))).toEqual(["same~"]);
  expect(await storage.head("a/b/same")).toMatchObject({ size: expect.any(Number) });
  await storage.delete(["a/b/same"]);
  expect(await readdir(own)).toEqual([]);
});
