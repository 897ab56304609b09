/**
 * Media storage in the Workers runtime (SPEC MD1-MD2): the Worker gives the R2 binding from
 * wrangler.toml to its AgentOS, so a run's uploaded JPEG lands in R2 and the stored row keeps a
 * reference; `GET /sessions/{session_id}/media/{storage_key}` serves the bytes to the session's
 * owner only (JWT auth with user isolation, two users, as in isolation-matrix.test.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import worker, { type Env } from "../../src/index.js";
import type { MediaRecord } from "../../src/models/message.js";
import { createModel } from "../../src/models/providers.js";
import { R2MediaStorage } from "../../src/offload/media-r2-storage.js";
import type { MediaReference } from "../../src/offload/media-storage.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { syntheticJpeg } from "../support/media-jpeg.js";
import { scriptModel, type ModelScript } from "../support/model-script.js";
import { envFor, isolatedJwt, modelEnv, sdkFetch } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `media-a-${tag}`;
const B = `media-b-${tag}`;
const SCOPES = ["sessions:read", "sessions:write", "agents:read", "agents:run"];

const JPEG = syntheticJpeg(113_250, 7);
const JPEG_SHA = await sha256(JPEG);
/** A stretch of the image's base64: finding it in a stored row would mean the bytes were stored inline. */
const B64_PROBE = base64(JPEG).slice(2000, 2064);

let E: Partial<Env>;
let script: ModelScript;
const bearer: Record<"A" | "B" | "admin", Record<string, string>> = { A: {}, B: {}, admin: {} };

async function sha256(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(binary);
}

/** A request through the Worker's fetch handler, the body kept as bytes (media are binary). */
async function fetchWorker(
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
  e: Partial<Env> = E,
) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://agno.test${path}`, { redirect: "manual", ...init }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    envFor(e),
    ctx,
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  await waitOnExecutionContext(ctx);
  const text = new TextDecoder().decode(bytes);
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A multipart run (agno's `files` upload) as `as`, answered as JSON. */
async function runWithUpload(as: "A" | "B", file: File, sessionId?: string, field: "files" | "files[]" = "files") {
  const body = new FormData();
  body.set("message", "What is in this picture?");
  body.set("stream", "false");
  if (sessionId) body.set("session_id", sessionId);
  body.append(field, file);
  const res = await fetchWorker("/agents/assistant/runs", { method: "POST", body, headers: bearer[as] });
  expect(res.status, new TextDecoder().decode(res.bytes)).toBe(200);
  return res.json() as unknown as RunOutput;
}

/** agno's path: the storage key as a path, its slashes as they are. */
const mediaPath = (sessionId: string, key: string) => `/sessions/${sessionId}/media/${key}`;

/** What Postgres holds for the run (run_data::text): the stored row, not an API view of it. */
async function storedRow(runId: string): Promise<string> {
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    const { rows } = await pool.query("SELECT run_data::text AS json FROM ai.agno_runs WHERE run_id = $1", [runId]);
    return String(rows[0].json);
  } finally {
    await pool.end();
  }
}

let runA: RunOutput;
let runB: RunOutput;
let keyB: string;

beforeAll(async () => {
  const jwt = await isolatedJwt("media");
  const model = await modelEnv([{ text: "A grey square." }, { text: "A tiny picture." }]);
  script = model.script;
  E = { ...jwt.env, ...model.env };
  bearer.A = await jwt.bearer(A, SCOPES);
  bearer.B = await jwt.bearer(B, SCOPES);
  bearer.admin = await jwt.bearer(`media-admin-${tag}`, ["agent_os:admin"]);
  runA = await runWithUpload("A", new File([JPEG], "photo.jpg", { type: "image/jpeg" }));
  runB = await runWithUpload("B", new File([syntheticJpeg(2_000, 99)], "small.jpg", { type: "image/jpeg" }));
  keyB = (runB.input.images![0]!.media_reference as MediaReference).storage_key;
});

describe("a run with a 113 KB JPEG upload, on the Worker with its R2 binding", () => {
  it("stores references only, in a small row, and the model still receives the image", async () => {
    expect(runA.status).toBe("COMPLETED");
    const [request] = await script.requests();
    const user = (request!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find(
      (m) => m.role === "user",
    )!;
    expect(user.content[1]).toEqual({
      type: "image_url",
      image_url: { url: `data:image/jpeg;base64,${base64(JPEG)}` },
    });

    const row = await storedRow(runA.run_id);
    expect(row).not.toContain(B64_PROBE);
    // Inline, the image alone is 151,000 characters of base64; the whole row stays under 3,000.
    expect(row.length).toBeLessThan(3_000);
    const stored = JSON.parse(row) as {
      input: { images: MediaRecord[] };
      messages: Array<{ role: string; images?: MediaRecord[] }>;
    };
    const ref = {
      media_id: stored.input.images[0]!.id,
      storage_key: `media/${JPEG_SHA}`,
      storage_backend: "r2",
      bucket: expect.any(String),
      mime_type: "image/jpeg",
      size: 113_250,
      content_hash: JPEG_SHA,
      media_type: "image",
    };
    expect(stored.input.images).toEqual([
      { id: expect.any(String), mime_type: "image/jpeg", format: "jpg", media_reference: ref },
    ]);
    expect(stored.messages.find((m) => m.role === "user")!.images).toEqual(stored.input.images);
    // The object is in the R2 bucket the Worker is bound to.
    const object = await env.STORAGE.get(`media/${JPEG_SHA}`);
    expect(object?.httpMetadata?.contentType).toBe("image/jpeg");
    expect(await sha256(new Uint8Array(await object!.arrayBuffer()))).toBe(JPEG_SHA);
  });

  it("serves the owner byte-identical content with its type; the same bytes again are stored once", async () => {
    const res = await fetchWorker(mediaPath(runA.session_id, `media/${JPEG_SHA}`), { headers: bearer.A });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("content-length")).toBe("113250");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.bytes.length).toBe(JPEG.length);
    expect(await sha256(res.bytes)).toBe(JPEG_SHA);
    expect(res.bytes.every((b, i) => b === JPEG[i])).toBe(true);
    const again = await fetchWorker(mediaPath(runA.session_id, `media/${JPEG_SHA}`), {
      headers: { ...bearer.A, "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);

    // The same bytes again (through `files[]` this time): the same key, and no second upload.
    const uploaded = (await env.STORAGE.head(`media/${JPEG_SHA}`))!.uploaded.getTime();
    const second = await runWithUpload(
      "A",
      new File([JPEG], "copy.jpg", { type: "image/jpeg" }),
      runA.session_id,
      "files[]",
    );
    expect((second.input.images![0]!.media_reference as MediaReference).storage_key).toBe(`media/${JPEG_SHA}`);
    expect((await env.STORAGE.head(`media/${JPEG_SHA}`))!.uploaded.getTime()).toBe(uploaded);
  });

  it("answers another user 404 {detail, error_id}, whatever user_id they name; an admin reads it", async () => {
    for (const path of [
      mediaPath(runA.session_id, `media/${JPEG_SHA}`),
      `${mediaPath(runA.session_id, `media/${JPEG_SHA}`)}?user_id=${A}`,
    ]) {
      const res = await fetchWorker(path, { headers: bearer.B });
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ detail: expect.any(String), error_id: "not_found", error_type: "not_found" });
      expect(res.json().detail).not.toContain(A);
    }
    expect((await fetchWorker(mediaPath(runA.session_id, `media/${JPEG_SHA}`), { headers: bearer.admin })).status).toBe(
      200,
    );
  });

  it("serves only keys the session's runs reference: another session's key, or an unknown one, is 404", async () => {
    // B's image exists in the same bucket, but A's session does not reference it.
    expect((await fetchWorker(mediaPath(runB.session_id, keyB), { headers: bearer.B })).status).toBe(200);
    for (const key of [keyB, `media/${"0".repeat(64)}`]) {
      const res = await fetchWorker(mediaPath(runA.session_id, key), { headers: bearer.A });
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ detail: expect.stringContaining("not found"), error_id: "not_found" });
    }
    // The key is a path: encoded as one segment it names the same medium.
    const encoded = await fetchWorker(`/sessions/${runA.session_id}/media/${encodeURIComponent(`media/${JPEG_SHA}`)}`, {
      headers: bearer.A,
    });
    expect(encoded.status).toBe(200);
    expect(await sha256(encoded.bytes)).toBe(JPEG_SHA);
    // A deeper path that the session does not reference is not found.
    expect((await fetchWorker(mediaPath(runA.session_id, `media/${JPEG_SHA}/x`), { headers: bearer.A })).status).toBe(
      404,
    );
  });

  it("refuses a storage key with a `..` or `.` segment with 422, naming the field", async () => {
    // Encoded, so the URL parser does not resolve the dot segments before the route sees them.
    for (const key of [`..%2Fmedia%2F${JPEG_SHA}`, `media%2F..%2Fmedia%2F${JPEG_SHA}`, `media%2F.%2F${JPEG_SHA}`]) {
      const res = await fetchWorker(`/sessions/${runA.session_id}/media/${key}`, { headers: bearer.A });
      expect(res.status, key).toBe(422);
      expect(res.json()).toMatchObject({
        error_id: "validation_error",
        detail: expect.stringContaining("storage_key"),
      });
    }
  });

  it("serves only references the server recorded: one planted in the session's metadata, state or a run's fields is 404", async () => {
    // A's own session, planting B's image (a key in the same bucket that A never uploaded).
    const { env: models } = await modelEnv([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const e = { ...E, ...models };
    const refB = runB.input.images![0]!.media_reference as MediaReference;
    const planted = {
      images: [{ id: "planted", mime_type: "image/jpeg", media_reference: refB }],
      media_reference: refB,
    };
    const json = (body: unknown) => ({
      method: "POST",
      body: JSON.stringify(body),
      headers: { ...bearer.A, "content-type": "application/json" },
    });
    const patch = await fetchWorker(
      `/sessions/${runA.session_id}`,
      {
        method: "PATCH",
        body: JSON.stringify({ session_state: planted, metadata: planted }),
        headers: { ...bearer.A, "content-type": "application/json" },
      },
      e,
    );
    expect(patch.status).toBe(200);
    for (const body of [{ metadata: planted }, { session_state: planted }, { dependencies: planted }]) {
      expect(
        (
          await fetchWorker(
            "/agents/assistant/runs",
            json({ message: "plant", stream: false, session_id: runA.session_id, ...body }),
            e,
          )
        ).status,
      ).toBe(200);
    }
    const runs = await fetchWorker(`/sessions/${runA.session_id}/runs`, { headers: bearer.A }, e);
    expect(new TextDecoder().decode(runs.bytes)).toContain(keyB);
    const res = await fetchWorker(mediaPath(runA.session_id, keyB), { headers: bearer.A }, e);
    expect(res.status).toBe(404);
    // A's own recorded image is still served.
    expect((await fetchWorker(mediaPath(runA.session_id, `media/${JPEG_SHA}`), { headers: bearer.A }, e)).status).toBe(
      200,
    );
  });

  it("documents the route and its key encoding in /openapi.json", async () => {
    const doc = (await fetchWorker("/openapi.json", { headers: bearer.admin })).json();
    const op = doc.paths["/sessions/{session_id}/media/{storage_key}"].get;
    // The routing pattern that lets the key hold slashes stays out of the document.
    expect(Object.keys(doc.paths).filter((path) => path.includes("storage_key"))).toEqual([
      "/sessions/{session_id}/media/{storage_key}",
    ]);
    expect(op["x-required-scope"]).toBe("sessions:read");
    expect(op.description).toMatch(/as a path: its slashes as they are/);
    expect(op.parameters.find((p: { name: string }) => p.name === "storage_key")).toMatchObject({
      in: "path",
      required: true,
    });
  });

  it("answers redirect=true with 400 on R2 (a binding cannot presign URLs), naming the field", async () => {
    const res = await fetchWorker(`${mediaPath(runA.session_id, `media/${JPEG_SHA}`)}?redirect=true`, {
      headers: bearer.A,
    });
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(/^redirect: r2 media storage cannot presign URLs/);
  });
});

describe("an AgentOS built with the SDK inside workerd", () => {
  it("serves nothing outside the media prefix, even a reference a run recorded (offloaded tool results share the bucket)", async () => {
    const secretKey = `tool-results/sdk-${tag}/result-1`;
    await env.STORAGE.put(secretKey, "another user's tool output", { httpMetadata: { contentType: "text/plain" } });
    const outputKey = `media/${"a".repeat(64)}`;
    await env.STORAGE.put(outputKey, "bytes under the prefix", { httpMetadata: { contentType: "text/plain" } });
    const ref = (key: string) => ({
      media_id: key,
      storage_key: key,
      storage_backend: "r2",
      bucket: "agno-edge-storage",
      mime_type: "text/plain",
      size: 10,
      content_hash: "",
      media_type: "file",
    });
    // A post hook stands for anything that records a reference (an agno-written row, a tool): the route still checks where it points.
    const attach = (out: RunOutput) => {
      (out as unknown as { files: MediaRecord[] }).files = [
        { id: "outside", mime_type: "text/plain", media_reference: ref(secretKey) },
        { id: "inside", mime_type: "text/plain", media_reference: ref(outputKey) },
      ];
    };
    const sdkScript = await scriptModel(env.MODEL_SERVER_URL, [{ text: "Done." }]);
    const model = createModel("openai:gpt-test", {
      credentials: { openai: { apiKey: "k", baseURL: sdkScript.baseURL } },
    });
    const os = new AgentOS({
      agents: [new Agent({ id: "filer", model, postHooks: [attach] })],
      auth: { mode: "none" },
      mediaStorage: new R2MediaStorage(env.STORAGE, { bucketName: "agno-edge-storage" }),
    });
    const call = sdkFetch(os, "media_prefix_in_workerd");
    const run = await call("/agents/filer/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "File it", stream: false }),
    });
    expect(run.status, run.text).toBe(200);
    const sessionId = (JSON.parse(run.text) as { session_id: string }).session_id;
    expect((await call(mediaPath(sessionId, outputKey), {})).status).toBe(200);
    const outside = await call(mediaPath(sessionId, secretKey), {});
    expect(outside.status).toBe(404);
    expect(outside.text).not.toContain("another user's tool output");
  });

  it("uploads an image output (attached by a post hook) to R2 and serves it from the media route", async () => {
    // The model path answers text only; a post hook is where a run can carry output media today.
    const outputJpeg = syntheticJpeg(50_000, 3);
    const attach = (out: RunOutput) => {
      (out as unknown as { images: MediaRecord[] }).images = [
        { id: `out-${tag}`, mime_type: "image/jpeg", format: "jpeg", content: base64(outputJpeg) },
      ];
    };
    const sdkScript = await scriptModel(env.MODEL_SERVER_URL, [{ text: "Here it is." }]);
    const model = createModel("openai:gpt-test", {
      credentials: { openai: { apiKey: "k", baseURL: sdkScript.baseURL } },
    });
    const os = new AgentOS({
      agents: [new Agent({ id: "painter", model, postHooks: [attach] })],
      auth: { mode: "none" },
      mediaStorage: new R2MediaStorage(env.STORAGE),
    });
    useLocalWsProxy(env.DB_WS_PROXY);
    const call = async (path: string, init: RequestInit = {}) => {
      const pool = new Pool({ connectionString: env.DATABASE_URL });
      const ctx = createExecutionContext();
      try {
        const res = await os.fetch(
          new Request(`http://os.test${path}`, init),
          { dbs: [new PostgresDb({ pool, schema: "media_sdk_in_workerd" })] },
          ctx,
        );
        const bytes = new Uint8Array(await res.arrayBuffer());
        await waitOnExecutionContext(ctx);
        return { status: res.status, headers: res.headers, bytes };
      } finally {
        await pool.end();
      }
    };
    const run = await call("/agents/painter/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "Paint", stream: false }),
    });
    expect(run.status).toBe(200);
    const text = new TextDecoder().decode(run.bytes);
    expect(text).not.toContain(base64(outputJpeg).slice(1000, 1064));
    const out = JSON.parse(text) as { session_id: string; images: MediaRecord[] };
    const ref = out.images[0]!.media_reference as MediaReference;
    expect(ref).toMatchObject({
      media_id: `out-${tag}`,
      storage_backend: "r2",
      size: 50_000,
      content_hash: await sha256(outputJpeg),
    });
    const media = await call(mediaPath(out.session_id, ref.storage_key));
    expect(media.status).toBe(200);
    expect(media.headers.get("content-type")).toBe("image/jpeg");
    expect(await sha256(media.bytes)).toBe(ref.content_hash);
  });
});
