import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import type { MediaRecord, Message } from "../../src/models/message.js";
import { LocalMediaStorage } from "../../src/offload/media-local-storage.js";
import { S3MediaStorage } from "../../src/offload/media-s3-storage.js";
import type { MediaReference, MediaStorage } from "../../src/offload/media-storage.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { syntheticJpeg } from "../support/media-jpeg.js";
import { S3_TEST_BUCKET, s3TestOptions } from "../support/s3-target.js";

const JPEG = syntheticJpeg(113_250);
const JPEG_B64 = Buffer.from(JPEG).toString("base64");
const JPEG_SHA = createHash("sha256").update(JPEG).digest("hex");
/** Any stretch of the image's base64 in a stored row means the bytes were stored inline. */
const B64_PROBE = JPEG_B64.slice(1000, 1064);

const directory = await mkdtemp(join(tmpdir(), "agno-media-"));
afterAll(() => rm(directory, { recursive: true, force: true }));

const s3 = (opts: { presignedUrlSeconds?: number; prefix?: string } = {}) =>
  new S3MediaStorage({ ...s3TestOptions(inject("s3Url")), ...opts });

/** Counts the uploads a MediaStorage makes (its ObjectStorage's puts). */
function countPuts(storage: MediaStorage): { puts: number } {
  const counter = { puts: 0 };
  const put = storage.objects.put.bind(storage.objects);
  storage.objects.put = (...args) => {
    counter.puts++;
    return put(...args);
  };
  return counter;
}

const backends: Array<[string, () => MediaStorage, { backend: string; bucket: string }]> = [
  [
    "LocalMediaStorage",
    () => new LocalMediaStorage({ directory: join(directory, "local-bucket") }),
    { backend: "local", bucket: "local-bucket" },
  ],
  ["S3MediaStorage (S3 API server)", () => s3(), { backend: "s3", bucket: S3_TEST_BUCKET }],
];

describe.each(backends)("%s", (_name, make, where) => {
  it("stores a 113 KB JPEG under its content hash and reads back the same bytes", async () => {
    const storage = make();
    const ref = await storage.store(JPEG, { mimeType: "image/jpeg", mediaType: "image", mediaId: "img-1" });
    expect(ref).toEqual({
      media_id: "img-1",
      storage_key: `media/${JPEG_SHA}`,
      storage_backend: where.backend,
      bucket: where.bucket,
      mime_type: "image/jpeg",
      size: 113_250,
      content_hash: JPEG_SHA,
      media_type: "image",
    });
    expect(Buffer.from(await storage.read(ref)).equals(Buffer.from(JPEG))).toBe(true);
    const object = await storage.open(ref.storage_key);
    expect({ size: object?.size, contentType: object?.contentType }).toEqual({
      size: 113_250,
      contentType: "image/jpeg",
    });
    await object!.body.cancel();
  });

  it("stores identical content once, whatever the name or media id, and different content apart", async () => {
    const storage = make();
    const counter = countPuts(storage);
    const bytes = new TextEncoder().encode(`report ${crypto.randomUUID()}`);
    const first = await storage.store(bytes, { mimeType: "text/plain", mediaType: "file", filename: "a.txt" });
    const second = await storage.store(bytes.slice(), { mimeType: "text/plain", mediaType: "file", filename: "b.txt" });
    expect(counter.puts).toBe(1);
    expect(second.storage_key).toBe(first.storage_key);
    expect([first.filename, second.filename]).toEqual(["a.txt", "b.txt"]);
    expect(second.media_id).not.toBe(first.media_id);
    const other = await storage.store(new TextEncoder().encode("something else"), {
      mimeType: "text/plain",
      mediaType: "file",
    });
    expect(other.storage_key).not.toBe(first.storage_key);
    expect(counter.puts).toBe(2);
  });

  it("refuses bytes that no longer match the reference's hash, and references into another storage", async () => {
    const storage = make();
    const ref = await storage.store(new TextEncoder().encode(`original ${crypto.randomUUID()}`), {
      mimeType: "text/plain",
      mediaType: "file",
    });
    await storage.objects.put(ref.storage_key, "tampered", { contentType: "text/plain" });
    await expect(storage.read(ref)).rejects.toThrow(/does not match its content hash/);
    await expect(storage.read({ ...ref, bucket: "elsewhere" })).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/elsewhere/),
    });
    await expect(
      storage.read({ ...ref, storage_key: `media/${"0".repeat(64)}`, content_hash: "0".repeat(64) }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

describe("MediaStorage options", () => {
  it("puts keys under a prefix, and refuses a prefix that is not key segments", async () => {
    const storage = new LocalMediaStorage({ directory: join(directory, "prefixed"), prefix: "tenant-1/media/" });
    const ref = await storage.store(JPEG, { mimeType: "image/jpeg", mediaType: "image" });
    expect(ref.storage_key).toBe(`tenant-1/media/${JPEG_SHA}`);
    expect(await readdir(join(directory, "prefixed", "tenant-1", "media"))).toEqual([`${JPEG_SHA}~`]);
    expect(() => new LocalMediaStorage({ directory, prefix: "media" })).toThrow(/end with "\/"/);
    expect(() => new LocalMediaStorage({ directory, prefix: "../media/" })).toThrow(/segments/);
    expect(() => s3({ presignedUrlSeconds: 0 })).toThrow(/presignedUrlSeconds/);
  });

  it("S3 presigns a short-lived URL that reads the bytes without credentials; local storage cannot", async () => {
    const storage = s3({ presignedUrlSeconds: 120 });
    const ref = await storage.store(JPEG, { mimeType: "image/jpeg", mediaType: "image" });
    const url = await storage.presignedUrl(ref.storage_key);
    expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("120");
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(JPEG))).toBe(true);
    const local = new LocalMediaStorage({ directory });
    expect(local.canPresign).toBe(false);
    expect(storage.canPresign).toBe(true);
    expect(() => local.presignedUrl(ref.storage_key)).toThrow(/cannot presign/);
  });
});

/** Every media record a run carries: input lists, messages, and output lists. */
function recordsOf(run: Record<string, unknown>): MediaRecord[] {
  const lists = (holder: Record<string, unknown>) =>
    ["images", "audio", "audios", "videos", "files"].flatMap((f) =>
      Array.isArray(holder[f]) ? (holder[f] as MediaRecord[]) : [],
    );
  return [
    ...lists(run),
    ...lists(run.input as Record<string, unknown>),
    ...(run.messages as Message[]).flatMap((m) => lists(m)),
  ];
}

describe.each(dbTargets())("Agent with mediaStorage on $name", (target) => {
  let t: TestDb;
  beforeAll(() => {
    t = openTestDb(target);
  });
  afterAll(() => t.close());

  /** The run's row as Postgres holds it (run_data::text): what the database really stores. */
  async function storedJson(runId: string): Promise<string> {
    const [row] = await t.query<{ json: string }>(
      `SELECT run_data::text AS json FROM "${t.schema}".agno_runs WHERE run_id = $1`,
      [runId],
    );
    return row!.json;
  }

  it.each([
    ["LocalMediaStorage", () => new LocalMediaStorage({ directory: join(directory, "agent") })],
    ["S3MediaStorage", () => s3()],
  ] as const)("%s: the row keeps references only, and the model still receives the image", async (_name, make) => {
    const storage = make();
    const { model, script } = await scriptedModel([{ text: "A grey square." }]);
    const agent = new Agent({ model, db: t.db, mediaStorage: storage });
    const out = await agent.run("What is this?", { media: [{ data: JPEG, mimeType: "image/jpeg" }] });
    expect(out.status).toBe("COMPLETED");

    const [request] = await script.requests();
    const user = (request!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find(
      (m) => m.role === "user",
    )!;
    expect(user.content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/jpeg;base64,${JPEG_B64}` } });

    const json = await storedJson(out.run_id);
    expect(json).not.toContain(B64_PROBE);
    expect(json.length).toBeLessThan(3000);
    const row = JSON.parse(json) as Record<string, unknown>;
    const records = recordsOf(row);
    expect(records).toHaveLength(2); // the input list and the user message
    for (const record of records) {
      expect(record.content).toBeUndefined();
      expect(record.media_reference).toEqual({
        media_id: record.id,
        storage_key: `media/${JPEG_SHA}`,
        storage_backend: storage.backend,
        bucket: storage.bucket,
        mime_type: "image/jpeg",
        size: 113_250,
        content_hash: JPEG_SHA,
        media_type: "image",
      });
    }
    // The answer the caller gets matches what was stored: references, no bytes.
    expect(JSON.stringify(out)).not.toContain(B64_PROBE);
    expect(
      Buffer.from(await storage.read(records[0]!.media_reference as MediaReference)).equals(Buffer.from(JPEG)),
    ).toBe(true);
  });

  it("reads the image back for history on the next run, and a text file back as its text", async () => {
    const storage = new LocalMediaStorage({ directory: join(directory, "history") });
    const { model, script } = await scriptedModel([{ text: "Grey." }, { text: "Still grey." }], "anthropic");
    const agent = new Agent({ model, db: t.db, mediaStorage: storage, addHistoryToContext: true });
    const first = await collect(
      agent.run("Colour?", {
        stream: true,
        media: [
          { data: JPEG_B64, mimeType: "image/jpeg" },
          { data: new TextEncoder().encode("héllo notes"), mimeType: "text/plain", filename: "notes.txt" },
        ],
      }),
    );
    expect(first.at(-1)!.event).toBe("RunCompleted");
    const second = await agent.run("And now?", { sessionId: first[0]!.session_id });
    expect(second.content).toBe("Still grey.");
    const requests = await script.requests();
    const historyUser = (requests[1]!.body.messages as Array<{ role: string; content: unknown }>)[0]!;
    expect(historyUser.content).toEqual([
      { type: "text", text: "Colour?" },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG_B64 } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "héllo notes" }, title: "notes.txt" },
    ]);
    // The second run's row carries the history messages too: as references.
    expect(await storedJson(second.run_id)).not.toContain(B64_PROBE);
    const history = recordsOf(JSON.parse(await storedJson(second.run_id)));
    expect(history.map((r) => [r.mime_type, r.content, (r.media_reference as MediaReference).media_type])).toEqual([
      ["image/jpeg", undefined, "image"],
      ["text/plain", undefined, "file"],
    ]);
  });

  it("moves rows written before media storage to references when their messages come back as history", async () => {
    const { model } = await scriptedModel([{ text: "Grey." }, { text: "Yes." }]);
    const before = await new Agent({ model, db: t.db, addHistoryToContext: true }).run("Look", {
      media: [{ data: JPEG, mimeType: "image/jpeg" }],
    });
    expect(await storedJson(before.run_id)).toContain(B64_PROBE);
    const storage = new LocalMediaStorage({ directory: join(directory, "legacy") });
    const after = await new Agent({ model, db: t.db, addHistoryToContext: true, mediaStorage: storage }).run(
      "Same picture?",
      { sessionId: before.session_id },
    );
    expect(after.status).toBe("COMPLETED");
    expect(await storedJson(after.run_id)).not.toContain(B64_PROBE);
  });

  it("uploads output media a post hook attaches (agno's RunOutput images) before the final save", async () => {
    // The model path produces text only; a post hook is where output media can be attached today.
    const storage = new LocalMediaStorage({ directory: join(directory, "output") });
    const { model } = await scriptedModel([{ text: "Here is a picture." }]);
    const attach = (out: RunOutput) => {
      (out as unknown as { images: MediaRecord[] }).images = [
        { id: "out-1", mime_type: "image/jpeg", format: "jpeg", content: JPEG_B64 },
      ];
    };
    const out = await new Agent({ model, db: t.db, mediaStorage: storage, postHooks: [attach] }).run("Draw");
    const json = await storedJson(out.run_id);
    expect(json).not.toContain(B64_PROBE);
    const images = (JSON.parse(json) as { images: MediaRecord[] }).images;
    expect(images).toEqual([
      {
        id: "out-1",
        mime_type: "image/jpeg",
        format: "jpeg",
        media_reference: expect.objectContaining({ media_id: "out-1", storage_key: `media/${JPEG_SHA}` }),
      },
    ]);
  });

  it("ends the run as a stored ERROR naming the key when referenced bytes are gone", async () => {
    const dir = join(directory, "vanishing");
    const storage = new LocalMediaStorage({ directory: dir });
    const { model, script } = await scriptedModel([{ text: "Grey." }, { text: "never" }]);
    const agent = new Agent({ model, db: t.db, mediaStorage: storage, addHistoryToContext: true });
    const first = await agent.run("Look", { media: [{ data: JPEG, mimeType: "image/jpeg" }] });
    await storage.objects.delete([`media/${JPEG_SHA}`]);
    const second = await agent.run("Again?", { sessionId: first.session_id });
    expect(second.status).toBe("ERROR");
    expect(second.error?.message).toMatch(new RegExp(`media/${JPEG_SHA} is missing`));
    expect(await script.requests()).toHaveLength(1);
  });

  it("ends the run as a stored ERROR naming the key when referenced bytes were altered, and sends the model nothing", async () => {
    // A folder per database target: the altered object must not be there already when the first run stores the picture.
    const storage = new LocalMediaStorage({ directory: join(directory, `altered-${target.name}`) });
    const { model, script } = await scriptedModel([{ text: "Grey." }, { text: "never" }]);
    const agent = new Agent({ model, db: t.db, mediaStorage: storage, addHistoryToContext: true });
    const first = await agent.run("Look", { media: [{ data: JPEG, mimeType: "image/jpeg" }] });
    expect(first.status).toBe("COMPLETED");
    await storage.objects.put(`media/${JPEG_SHA}`, "not the picture", { contentType: "image/jpeg" });
    const second = await agent.run("Again?", { sessionId: first.session_id });
    expect(second.status).toBe("ERROR");
    expect(second.error?.message).toMatch(new RegExp(`media/${JPEG_SHA}.*does not match its content hash`));
    expect((await t.db.getRun(second.run_id))!.status).toBe("ERROR");
    expect(await script.requests()).toHaveLength(1);
  });
});

describe("AgentOS with S3MediaStorage (Node host)", () => {
  let t: TestDb;
  beforeAll(() => {
    t = openTestDb(dbTargets()[0]!);
  });
  afterAll(() => t.close());

  it("hands its storage to its agents, and redirect=true answers 302 to a presigned URL that reads the same bytes", async () => {
    const { model, script } = await scriptedModel([{ text: "A grey square." }]);
    const os = new AgentOS({
      agents: [new Agent({ id: "viewer", model })],
      auth: { mode: "none" },
      mediaStorage: s3({ presignedUrlSeconds: 60 }),
    });
    const call = (path: string, init?: RequestInit) =>
      os.fetch(new Request(`http://os.test${path}`, init), { dbs: [t.db] });
    const form = new FormData();
    form.set("message", "What is this?");
    form.set("stream", "false");
    form.append("files[]", new File([JPEG], "photo.jpg", { type: "image/jpeg" }));
    const run = (await (await call("/agents/viewer/runs", { method: "POST", body: form })).json()) as RunOutput;
    expect(run.status).toBe("COMPLETED");
    expect(JSON.stringify((await script.requests())[0]!.body)).toContain(JPEG_B64);
    const ref = run.input.images![0]!.media_reference as MediaReference;
    expect(ref).toMatchObject({ storage_backend: "s3", bucket: S3_TEST_BUCKET, storage_key: `media/${JPEG_SHA}` });

    const path = `/sessions/${run.session_id}/media/${encodeURIComponent(ref.storage_key)}`;
    const redirect = await call(`${path}?redirect=true`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("cache-control")).toBe("no-store");
    const location = new URL(redirect.headers.get("location")!);
    expect(location.searchParams.get("X-Amz-Expires")).toBe("60");
    const presigned = await fetch(location);
    expect(Buffer.from(await presigned.arrayBuffer()).equals(Buffer.from(JPEG))).toBe(true);
    const streamed = await call(path);
    expect({ status: streamed.status, type: streamed.headers.get("content-type") }).toEqual({
      status: 200,
      type: "image/jpeg",
    });
    expect(Buffer.from(await streamed.arrayBuffer()).equals(Buffer.from(JPEG))).toBe(true);
  });
});
