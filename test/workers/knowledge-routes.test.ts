/**
 * agno's /knowledge routes over an SDK AgentOS (MemoryDb, the in-memory vector store, a
 * deterministic embedder), with JWT auth and per-user isolation: uploads answered 202 and
 * ingested by knowledge_ingestion jobs on the durable queue (a Dispatcher drives them here, as
 * the JobQueue object does), their status, the content routes, search, config, the typed
 * refusals (size, type, private URL, bad filter, missing vector extension), an embedder that
 * fails mid-ingestion, and the isolation matrix of the knowledge routes.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/memory-db.js";
import { VectorExtensionUnavailableError } from "../../src/knowledge/errors.js";
import type { Embedder } from "../../src/knowledge/embedder.js";
import { Knowledge } from "../../src/knowledge/knowledge.js";
import { InMemoryVectorDb } from "../../src/knowledge/vectordb/in-memory-vector-db.js";
import { AgentOS, type AgentOSOptions } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { safeFetcher } from "../../src/knowledge/remote/safe-fetch.js";
import { Dispatcher } from "../../src/queue/dispatcher.js";
import { executeJob } from "../../src/queue/execute-job.js";

/** A hashed bag of words: texts sharing words get close vectors, so search finds them. */
function wordVector(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[Math.abs(h) % dims]! += 1;
  }
  return v;
}

function embedder(opts: { failAfterCalls?: number } = {}): Embedder & { calls: number } {
  return {
    id: "test:words",
    dimensions: 64,
    calls: 0,
    async embed(texts: string[]) {
      this.calls++;
      if (opts.failAfterCalls !== undefined && this.calls > opts.failAfterCalls)
        throw new Error("embedding provider unavailable (503)");
      return { embeddings: texts.map((t) => wordVector(t)) };
    },
  };
}

const KB_SCOPES = ["knowledge:read", "knowledge:write", "knowledge:delete"];

async function jwt() {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const verifier = new JwtVerifier([{ pem: await exportSPKI(rsa.publicKey), kid: "kn" }]);
  const bearer = async (sub: string, scopes: string[]) => ({
    authorization: `Bearer ${await new SignJWT({ sub, scopes })
      .setProtectedHeader({ alg: "RS256", kid: "kn" })
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(rsa.privateKey)}`,
  });
  return { verifier, bearer };
}

type Who = Record<string, string>;

/** An AgentOS serving `knowledge` over `db`, its queue drained by a Dispatcher on demand. */
function served(opts: Partial<AgentOSOptions> & { db: MemoryDb; queued?: boolean }) {
  const { db, queued = true, ...rest } = opts;
  const os = new AgentOS({ ...(queued ? { queue: { durable: true } } : {}), ...rest });
  const dispatcher = new Dispatcher({
    store: db.jobs,
    execute: (job, lease) => executeJob(job, lease, { components: [], knowledge: os.knowledge }, db, db.jobs),
    workerId: "test",
    backoff: () => 0,
  });
  const call = async (path: string, init: RequestInit & { as?: Who } = {}) => {
    const ctx = createExecutionContext();
    const res = await os.fetch(
      new Request(`http://kn.test${path}`, { ...init, headers: { ...(init.as ?? {}), ...(init.headers ?? {}) } }),
      { dbs: [db], ...(queued ? { jobs: db.jobs, queue: { wake: async () => {} } } : {}) },
      ctx,
    );
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    let body: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, body, text };
  };
  /** Runs every due job to its end (retries included), as the JobQueue object would. */
  const drain = async () => {
    for (let i = 0; i < 50; i++) {
      const started = await dispatcher.fill();
      await dispatcher.idle();
      if (started === 0 && (await db.jobs.queueStats()).pending === 0) return;
    }
    throw new Error("the queue did not drain");
  };
  return { os, call, drain };
}

function upload(fields: Record<string, string | File>, as: Who, query = "") {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return { path: `/knowledge/content${query}`, init: { method: "POST", body: form, as } };
}

const guide = new File(
  [
    "# Refunds\n\nRefunds take five business days to reach the card.\n\n# Shipping\n\nParcels ship from Lisbon on Mondays.\n",
  ],
  "guide.md",
  { type: "text/markdown" },
);

describe("knowledge routes", () => {
  const db = new MemoryDb();
  const kb = new Knowledge({
    name: "docs",
    description: "Company docs",
    vectorDb: new InMemoryVectorDb({ embedder: embedder() }),
    embedder: embedder(),
  });
  let s: ReturnType<typeof served>;
  const who: Record<"A" | "B" | "admin" | "reader", Who> = { A: {}, B: {}, admin: {}, reader: {} };

  beforeAll(async () => {
    const { verifier, bearer } = await jwt();
    s = served({
      db,
      knowledge: [kb],
      auth: { mode: "jwt", verifier, userIsolation: true },
      maxUploadBytes: 64 * 1024,
    });
    who.A = await bearer("kn-a", KB_SCOPES);
    who.B = await bearer("kn-b", KB_SCOPES);
    who.admin = await bearer("kn-admin", ["agent_os:admin"]);
    who.reader = await bearer("kn-r", ["knowledge:read"]);
  });

  /** Uploads as `as`, drains the queue, and returns the content id (its status completed). */
  async function ingest(as: Who, fields: Record<string, string | File>) {
    const u = upload(fields, as);
    const res = await s.call(u.path, u.init);
    expect(res.status, res.text).toBe(202);
    await s.drain();
    const status = await s.call(`/knowledge/content/${res.body.id}/status`, { as });
    expect(status.body, res.text).toMatchObject({ status: "completed" });
    return res.body.id as string;
  }

  it("upload answers 202 processing; a knowledge_ingestion job takes it to completed; get, list, search and config show it", async () => {
    const u = upload({ file: guide, metadata: JSON.stringify({ topic: "support" }), description: "the guide" }, who.A);
    const res = await s.call(u.path, u.init);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "guide.md",
      description: "the guide",
      type: null,
      size: null,
      linked_to: null,
      metadata: { topic: "support" },
      access_count: null,
      status: "processing",
      status_message: null,
      created_at: null,
      updated_at: null,
    });
    const id = res.body.id as string;
    expect((await s.call(`/knowledge/content/${id}/status`, { as: who.A })).body).toMatchObject({
      id,
      status: "processing",
    });
    const jobs = await db.jobs.listJobs({ limit: 100, page: 1 });
    expect(jobs.data.find((j) => j.component_id === kb.id)).toMatchObject({
      job_type: "knowledge_ingestion",
      component_type: "knowledge",
      user_id: "kn-a",
      status: "PENDING",
    });
    await s.drain();
    expect((await s.call(`/knowledge/content/${id}/status`, { as: who.A })).body).toEqual({
      id,
      status: "completed",
      status_message: "",
    });
    const got = await s.call(`/knowledge/content/${id}`, { as: who.A });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, name: "guide.md", status: "completed", metadata: { topic: "support" } });
    expect(Number(got.body.size)).toBeGreaterThan(0);
    expect(got.body.created_at).toMatch(/Z$/);

    const list = await s.call("/knowledge/content?limit=10", { as: who.A });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);
    expect(list.body.meta).toMatchObject({ page: 1, limit: 10 });

    const found = await s.call("/knowledge/search", {
      method: "POST",
      as: who.A,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "how long do refunds take", max_results: 3 }),
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.data[0]).toMatchObject({
      content_id: id,
      content: expect.stringContaining("five business days"),
    });
    expect(found.body.meta).toMatchObject({ page: 1, limit: 20, search_time_ms: expect.any(Number) });

    const filtered = await s.call("/knowledge/search", {
      method: "POST",
      as: who.A,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "refunds", filters: { topic: "nothing-like-this" } }),
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual([]);

    const config = await s.call("/knowledge/config", { as: who.A });
    expect(config.status, config.text).toBe(200);
    expect(config.body.vector_dbs).toEqual([expect.objectContaining({ id: kb.vectorDb.id })]);
    expect(Object.keys(config.body.readers).length).toBeGreaterThan(0);
    expect(config.body.filters).toContain("topic");
    expect(config.body.remote_content_sources).toBeNull();
    expect((await s.call(`/knowledge/${kb.id}/sources`, { as: who.A })).body).toEqual([]);
    expect((await s.call(`/knowledge/${kb.id}/sources/s3/files`, { as: who.A })).status).toBe(404);
  });

  it("refuses with typed 4xx: no content, unsupported type, oversized file, private URL, malformed filter, bad reader, unknown knowledge base, missing scope", async () => {
    const refused = async (fields: Record<string, string | File>, status: number, errorId?: string) => {
      const u = upload(fields, who.A);
      const res = await s.call(u.path, u.init);
      expect({ fields: Object.keys(fields), status: res.status }).toEqual({ fields: Object.keys(fields), status });
      expect(res.body).toMatchObject({ detail: expect.any(String), ...(errorId ? { error_id: errorId } : {}) });
      return res;
    };
    const before = (await db.jobs.queueStats()).pending;
    await refused({ name: "nothing" }, 422, "validation_error");
    await refused(
      { file: new File(["MZ\x90"], "tool.exe", { type: "application/x-msdownload" }) },
      400,
      "unsupported_content_type",
    );
    await refused(
      { file: new File([new Uint8Array(70 * 1024)], "big.txt", { type: "text/plain" }) },
      413,
      "payload_too_large",
    );
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://127.0.0.1:8080/a.md",
      "http://[::1]/x",
      "file:///etc/passwd",
    ])
      await refused({ url }, 400, "unsafe_url");
    await refused({ text_content: "hello", reader_id: "no-such-reader" }, 422, "validation_error");
    await refused({ text_content: "hello", chunker: "NoSuchChunker" }, 422, "validation_error");
    expect((await db.jobs.queueStats()).pending).toBe(before);

    const search = (body: unknown) =>
      s.call("/knowledge/search", {
        method: "POST",
        as: who.A,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await search({ query: "x", filters: { op: "EQ" } })).status).toBe(422);
    expect((await search({ query: "x", filters: [{ op: "BOGUS", key: "a", value: 1 }] })).status).toBe(422);
    expect((await search({ query: "x", search_type: "psychic" })).status).toBe(422);
    expect((await search({ query: "x", vector_db_ids: ["other"] })).status).toBe(422);
    expect((await search({ query: "x", knowledge_id: "no-such-kb" })).status).toBe(404);
    expect((await s.call("/knowledge/content?knowledge_id=no-such-kb", { as: who.A })).status).toBe(404);

    const u = upload({ text_content: "hello" }, who.reader);
    expect((await s.call(u.path, u.init)).status).toBe(403);
    expect((await s.call("/knowledge/content", { as: who.reader })).status).toBe(200);
    expect((await s.call("/knowledge/content", { method: "DELETE", as: who.reader })).status).toBe(403);
  });

  it("isolation: B gets 404 on A's content (get, patch, delete, status), never lists or finds it; A's content is unchanged; shared content is read by all and changed by admins only", async () => {
    const a = await ingest(who.A, { text_content: "The vault code of user A is falcon-7.", name: "a-secret" });
    const shared = await ingest(who.admin, {
      text_content: "Office hours are nine to five, shared with everyone.",
      name: "hours",
    });
    const b = await ingest(who.B, { text_content: "User B keeps a pet iguana named Rex.", name: "b-note" });
    const snapshot = async () => ({
      get: (await s.call(`/knowledge/content/${a}`, { as: who.admin })).body,
      status: (await s.call(`/knowledge/content/${a}/status`, { as: who.admin })).body,
    });
    const before = await snapshot();

    const patch = new FormData();
    patch.append("name", "pwned");
    patch.append("metadata", JSON.stringify({ pwned: true }));
    for (const [method, path, body] of [
      ["GET", `/knowledge/content/${a}`],
      ["GET", `/knowledge/content/${a}/status`],
      ["PATCH", `/knowledge/content/${a}`, patch],
      ["DELETE", `/knowledge/content/${a}`],
    ] as Array<[string, string, FormData?]>) {
      const res = await s.call(path, { method, as: who.B, ...(body ? { body } : {}) });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: "not_found" });
      expect(res.text).not.toContain("kn-a");
    }
    const listedB = (await s.call("/knowledge/content?limit=1000", { as: who.B })).body.data.map(
      (c: { id: string }) => c.id,
    );
    expect(listedB).toContain(b);
    expect(listedB).toContain(shared);
    expect(listedB).not.toContain(a);
    const searchAs = async (as: Who, query: string) =>
      (
        await s.call("/knowledge/search", {
          method: "POST",
          as,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query, max_results: 50 }),
        })
      ).body.data as Array<{ content_id: string; content: string }>;
    const bFinds = await searchAs(who.B, "vault code falcon office hours iguana");
    expect(bFinds.map((d) => d.content_id)).not.toContain(a);
    expect(bFinds.map((d) => d.content_id)).toContain(shared);
    expect(bFinds.some((d) => d.content.includes("falcon"))).toBe(false);
    expect((await searchAs(who.A, "vault code falcon")).map((d) => d.content_id)).toContain(a);
    expect((await searchAs(who.admin, "iguana vault")).map((d) => d.content_id)).toEqual(
      expect.arrayContaining([a, b]),
    );

    // Shared content: B reads it, but only an admin changes it.
    expect((await s.call(`/knowledge/content/${shared}`, { as: who.B })).status).toBe(200);
    const rename = new FormData();
    rename.append("name", "mine now");
    expect((await s.call(`/knowledge/content/${shared}`, { method: "PATCH", as: who.B, body: rename })).status).toBe(
      403,
    );
    expect((await s.call(`/knowledge/content/${shared}`, { method: "DELETE", as: who.B })).status).toBe(403);

    // B clears "all" content: only B's own goes.
    expect((await s.call("/knowledge/content", { method: "DELETE", as: who.B })).body).toBe("success");
    expect((await s.call(`/knowledge/content/${b}`, { as: who.admin })).status).toBe(404);
    expect((await s.call(`/knowledge/content/${shared}`, { as: who.admin })).status).toBe(200);
    expect(await snapshot()).toEqual(before);

    // Metadata may not move A's content into another knowledge base (linked_to is the base's).
    const moved = new FormData();
    moved.append("metadata", JSON.stringify({ linked_to: "another-base" }));
    const refusedMove = await s.call(`/knowledge/content/${a}`, { method: "PATCH", as: who.A, body: moved });
    expect(refusedMove.status, refusedMove.text).toBe(422);
    expect(refusedMove.text).toMatch(/linked_to/);

    // A's own patch and delete work.
    const own = new FormData();
    own.append("description", "still mine");
    const patched = await s.call(`/knowledge/content/${a}`, { method: "PATCH", as: who.A, body: own });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: a, description: "still mine", status: "completed" });
    expect((await s.call(`/knowledge/content/${a}`, { method: "DELETE", as: who.A })).body).toEqual({ id: a });
    expect(await searchAs(who.A, "vault code falcon")).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ content_id: a })]),
    );
  });

  it("an embedder failing mid-ingestion leaves the content failed with the reason and none of its chunks searchable", async () => {
    const flakyDb = new MemoryDb();
    const flaky = new Knowledge({
      name: "flaky",
      vectorDb: new InMemoryVectorDb(),
      embedder: embedder({ failAfterCalls: 1 }),
      embedBatchSize: 1,
    });
    const f = served({ db: flakyDb, knowledge: [flaky], auth: { mode: "none" } });
    const text = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} about zebras and their stripes.`).join("\n\n");
    const u = upload({ text_content: text, chunker: "FixedSizeChunker", chunk_size: "200", chunk_overlap: "0" }, {});
    const res = await f.call(u.path, u.init);
    expect(res.status, res.text).toBe(202);
    await f.drain();
    const status = await f.call(`/knowledge/content/${res.body.id}/status`);
    expect(status.body).toMatchObject({
      status: "failed",
      status_message: expect.stringMatching(/unavailable|embed/i),
    });
    const found = await f.call("/knowledge/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "zebras stripes", search_type: "keyword" }),
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.data).toEqual([]);
  });

  it("a URL is fetched by the ingestion job through the safe fetch: a public page is ingested, a redirect to a metadata address fails the content with the reason", async () => {
    const asked: string[] = [];
    const remote = (async (input: RequestInfo | URL) => {
      const url = String(input);
      asked.push(url);
      if (url === "https://docs.example/handbook.md")
        return new Response("# Handbook\n\nThe fire drill is on the first Friday of each month.\n", {
          headers: { "content-type": "text/markdown" },
        });
      if (url === "https://docs.example/moved")
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      return new Response("missing", { status: 404 });
    }) as typeof fetch;
    const urlDb = new MemoryDb();
    const web = new Knowledge({
      name: "web",
      vectorDb: new InMemoryVectorDb(),
      embedder: embedder(),
      fetcher: safeFetcher({ fetch: remote }),
    });
    const w = served({ db: urlDb, knowledge: [web], auth: { mode: "none" } });
    const ok = upload({ url: "https://docs.example/handbook.md" }, {});
    const accepted = await w.call(ok.path, ok.init);
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body).toMatchObject({ name: "https://docs.example/handbook.md", status: "processing" });
    const moved = upload({ url: "https://docs.example/moved" }, {});
    const movedId = (await w.call(moved.path, moved.init)).body.id as string;
    await w.drain();
    expect((await w.call(`/knowledge/content/${accepted.body.id}/status`)).body).toMatchObject({ status: "completed" });
    const found = await w.call("/knowledge/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "when is the fire drill" }),
    });
    expect(found.body.data[0]).toMatchObject({
      content_id: accepted.body.id,
      content: expect.stringContaining("first Friday"),
    });
    expect((await w.call(`/knowledge/content/${movedId}/status`)).body).toMatchObject({
      status: "failed",
      status_message: expect.stringMatching(/private, loopback or internal/),
    });
    expect(asked).not.toContain("http://169.254.169.254/latest/meta-data/");
  });

  it("without a durable queue, the upload is ingested after the answer (agno's background task)", async () => {
    const plainDb = new MemoryDb();
    const plain = new Knowledge({ name: "plain", vectorDb: new InMemoryVectorDb(), embedder: embedder() });
    const p = served({ db: plainDb, knowledge: [plain], auth: { mode: "none" }, queued: false });
    const u = upload({ file: guide }, {});
    const res = await p.call(u.path, u.init);
    expect(res.status).toBe(202);
    expect((await p.call(`/knowledge/content/${res.body.id}/status`)).body).toMatchObject({ status: "completed" });
    expect((await plainDb.jobs.queueStats()).pending).toBe(0);
  });

  it("a missing vector extension is a typed 503 naming it, on every knowledge route", async () => {
    class NoExtension extends InMemoryVectorDb {
      override async create(): Promise<void> {
        throw new VectorExtensionUnavailableError("CREATE EXTENSION vector failed");
      }
    }
    const n = served({
      db: new MemoryDb(),
      knowledge: [new Knowledge({ name: "nox", vectorDb: new NoExtension(), embedder: embedder() })],
      auth: { mode: "none" },
    });
    for (const [method, path] of [
      ["GET", "/knowledge/content"],
      ["GET", "/knowledge/config"],
      ["GET", "/knowledge/content/x/status"],
    ]) {
      const res = await n.call(path!, { method });
      expect({ path, status: res.status }).toEqual({ path, status: 503 });
      expect(res.body).toMatchObject({
        error_id: "vector_extension_unavailable",
        detail: expect.stringContaining("vector"),
      });
    }
    const u = upload({ text_content: "hello" }, {});
    expect((await n.call(u.path, u.init)).status).toBe(503);
  });

  it("/config lists the knowledge base, and several knowledge bases need knowledge_id", async () => {
    const config = await s.call("/config", { as: who.admin });
    expect(config.body.knowledge).toEqual({
      dbs: [{ db_id: db.id, domain_config: { display_name: db.id }, tables: ["agno_knowledge"] }],
      knowledge_instances: [
        { id: kb.id, name: "docs", description: "Company docs", db_id: db.id, table: "agno_knowledge" },
      ],
    });
    const two = served({
      db: new MemoryDb(),
      auth: { mode: "none" },
      knowledge: [
        new Knowledge({ name: "one", vectorDb: new InMemoryVectorDb(), embedder: embedder() }),
        new Knowledge({ name: "two", vectorDb: new InMemoryVectorDb(), embedder: embedder() }),
      ],
    });
    const res = await two.call("/knowledge/content");
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("knowledge_id");
    expect((await two.call("/knowledge/content?knowledge_id=two")).status).toBe(200);
  });
});
