import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunOutput } from "../../src/agent/run-output.js";
import { exampleAssistant } from "../../src/example/assistant.js";
import { LocalStorage } from "../../src/offload/local-storage.js";
import { LocalMediaStorage } from "../../src/offload/media-local-storage.js";
import type { MediaReference } from "../../src/offload/media-storage.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { syntheticJpeg } from "../support/media-jpeg.js";

/**
 * The media route and POST /sessions under JWT auth with user isolation, on each database: an
 * AgentOS as a deployment builds it (media and offloaded tool results in one bucket), driven
 * through its fetch handler. The Workers suites prove the same on the Worker (embedded Postgres).
 */
const SCOPES = ["sessions:read", "sessions:write", "agents:read", "agents:run"];
const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const bearer = async (sub: string) => ({
  authorization: `Bearer ${await new SignJWT({ scopes: SCOPES }).setProtectedHeader({ alg: "HS256", kid: "k" }).setSubject(sub).setIssuedAt().setExpirationTime("1h").sign(secret)}`,
});

describe.each(dbTargets().map((t) => [t.name, t] as const))("media and session isolation on %s", (_name, target) => {
  let t: TestDb;
  let dir: string;
  beforeAll(async () => {
    t = openTestDb(target);
    dir = await mkdtemp(join(tmpdir(), "agno-media-iso-"));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("B's planted references to A's image and A's offloaded tool result are 404; POST /sessions over A's id is 404", async () => {
    const { model } = await scriptedModel([
      { text: "A picture." },
      { toolCalls: [{ name: "get_current_time", arguments: { timezone: "Z".repeat(20_000) } }] },
      { text: "No such zone." },
      ...Array.from({ length: 3 }, (_, i) => ({ text: `B ${i}` })),
    ]);
    const os = new AgentOS({
      agents: [exampleAssistant(model, { offloadToolResults: true })],
      auth: { mode: "jwt", verifier, userIsolation: true },
      mediaStorage: new LocalMediaStorage({ directory: dir }),
      resultStorage: new LocalStorage({ directory: dir }),
    });
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => undefined };
    const call = async (as: string, path: string, init: RequestInit = {}) => {
      const res = await os.fetch(
        new Request(`http://os.test${path}`, {
          ...init,
          headers: {
            ...(await bearer(as)),
            ...(init.body && typeof init.body === "string" ? { "content-type": "application/json" } : {}),
          },
        }),
        { dbs: [t.db] },
        ctx,
      );
      const text = await res.text();
      await Promise.allSettled(pending.splice(0));
      return { status: res.status, text };
    };
    const A = "media-iso-a";
    const B = "media-iso-b";

    const upload = new FormData();
    upload.set("message", "What is this?");
    upload.set("stream", "false");
    upload.append("files", new File([syntheticJpeg(3_000, 5)], "a.jpg", { type: "image/jpeg" }));
    const withImage = await call(A, "/agents/assistant/runs", { method: "POST", body: upload });
    expect(withImage.status, withImage.text).toBe(200);
    const runA = JSON.parse(withImage.text) as RunOutput;
    const imageRef = runA.input.images![0]!.media_reference as MediaReference;
    const withTool = await call(A, "/agents/assistant/runs", {
      method: "POST",
      body: JSON.stringify({ message: "time?", stream: false, session_id: runA.session_id }),
    });
    expect(withTool.status, withTool.text).toBe(200);
    const [row] = await t.query<{ path: string }>(
      `SELECT path FROM "${t.schema}".agno_tool_results WHERE session_id = $1`,
      [runA.session_id],
    );
    const toolKey = row!.path;
    expect(toolKey).toMatch(/^tool-results\//);
    // agno's path: the key's slashes as they are; the key encoded as one segment names the same thing.
    const media = (as: string, session: string, key: string) => call(as, `/sessions/${session}/media/${key}`);
    const encoded = (as: string, session: string, key: string) =>
      call(as, `/sessions/${session}/media/${encodeURIComponent(key)}`);
    expect(imageRef.storage_key).toContain("/");
    expect((await media(A, runA.session_id, imageRef.storage_key)).status).toBe(200);
    expect((await encoded(A, runA.session_id, imageRef.storage_key)).status).toBe(200);
    expect((await media(A, runA.session_id, toolKey)).status).toBe(404);
    expect((await encoded(A, runA.session_id, toolKey)).status).toBe(404);
    // A `..` segment never reaches storage: refused as input.
    const climbing = await encoded(A, runA.session_id, `media/../${toolKey}`);
    expect(climbing.status).toBe(422);
    expect(climbing.text).toContain("storage_key");

    const toolRef = {
      ...imageRef,
      storage_key: toolKey,
      mime_type: "text/plain",
      media_type: "file",
      content_hash: "",
    };
    const records = [
      { id: "p1", media_reference: imageRef },
      { id: "p2", media_reference: toolRef },
    ];
    const planted = { images: records, files: records, media_reference: imageRef };
    const sessionB = "media-iso-session-b";
    expect(
      (
        await call(B, "/sessions", {
          method: "POST",
          body: JSON.stringify({
            session_id: sessionB,
            agent_id: "assistant",
            session_state: planted,
            metadata: planted,
          }),
        })
      ).status,
    ).toBe(201);
    for (const body of [{ metadata: planted }, { session_state: planted }, { dependencies: planted }]) {
      expect(
        (
          await call(B, "/agents/assistant/runs", {
            method: "POST",
            body: JSON.stringify({ message: "hi", stream: false, session_id: sessionB, ...body }),
          })
        ).status,
      ).toBe(200);
    }
    expect((await call(B, `/sessions/${sessionB}/runs`)).text).toContain(toolKey);
    for (const key of [imageRef.storage_key, toolKey]) {
      expect({ key, status: (await media(B, sessionB, key)).status }).toEqual({ key, status: 404 });
      expect({ key, status: (await encoded(B, sessionB, key)).status }).toEqual({ key, status: 404 });
    }

    // Creating a session over A's id: B learns nothing (404, as a read); A, who can read it, gets 409.
    const over = await call(B, "/sessions", {
      method: "POST",
      body: JSON.stringify({ session_id: runA.session_id, agent_id: "assistant" }),
    });
    expect(over.status).toBe(404);
    expect(over.text).not.toContain(A);
    expect(
      (
        await call(A, "/sessions", {
          method: "POST",
          body: JSON.stringify({ session_id: runA.session_id, agent_id: "assistant" }),
        })
      ).status,
    ).toBe(409);
  });
});
