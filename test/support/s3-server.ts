import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { S3_TEST_BUCKET } from "./s3-target.js";

/**
 * A real S3 REST API server for the tests: s3rver (the maintained @20minutes fork), on a free
 * port, storing under a temp folder, with the test bucket created. It checks SigV4 signatures
 * (header and presigned, with expiry), so a client that signs wrongly fails here as on S3.
 *
 * Two adjustments in front of it, each making it answer as S3 does:
 * - DeleteObjects with more than 1,000 keys gets 400 MalformedXML (s3rver takes any number, which
 *   would hide an adapter that does not split its deletes).
 * - A bucket-level request whose path ends in "/" (the SDK sends `POST /bucket/?delete`) skips
 *   the signature check: s3rver rebuilds the signed path without that slash and so computes
 *   another signature than S3 does. Every object request (GET, PUT, HEAD, presigned) is checked.
 *
 * Known gap: s3rver reads `Range: bytes=0-0` (the first byte alone) as the whole object.
 */
export interface S3Server {
  /** `http://127.0.0.1:<port>`: the endpoint, used path-style */
  url: string;
  stop(): Promise<void>;
}

/** The part of s3rver (a Koa app, untyped) used here. */
interface S3rverApp {
  middleware: Array<(ctx: KoaContext, next: () => Promise<void>) => Promise<void>>;
  allowMismatchedSignatures: boolean;
  httpServer?: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  req: NodeJS.ReadableStream;
  app: S3rverApp;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverApp;
type S3ErrorClass = new (code: string, message: string) => Error;

const require = createRequire(import.meta.url);
const S3rver = require("@20minutes/s3rver") as S3rverClass;
const S3Error = require("@20minutes/s3rver/lib/models/error") as S3ErrorClass;

const MAX_DELETE_KEYS = 1000;

export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), "agno-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: S3_TEST_BUCKET }],
  });
  // Koa composes its middleware when the server starts, so this one runs first.
  server.middleware.unshift(async (ctx, next) => {
    if (/^\/[^/]+\/$/.test(ctx.path)) {
      ctx.app = Object.create(ctx.app, { allowMismatchedSignatures: { value: true } }) as S3rverApp;
    }
    if (ctx.method === "POST" && "delete" in ctx.query) {
      const body = await readAll(ctx.req);
      if ((body.toString("utf8").match(/<Object>/g) ?? []).length > MAX_DELETE_KEYS) {
        throw new S3Error("MalformedXML", `DeleteObjects takes at most ${MAX_DELETE_KEYS} keys`);
      }
      ctx.req = Readable.from([body]); // s3rver parses the body from here
    }
    await next();
  });
  const { port } = await server.run();
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      // The SDK keeps connections alive; they would hold close() open.
      server.httpServer?.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
