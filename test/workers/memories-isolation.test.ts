/**
 * Per-user isolation of agno's `/memories` routes (SPEC U1): with JWT auth and
 * AGNO_USER_ISOLATION=true, user A acting on user B's memories gets 404 whatever `user_id` A
 * names, B's memories are absent from A's lists, topics and stats, and are left exactly as they
 * were; a memory A creates for B is A's (agno's rule: a scoped caller's user_id is their own);
 * admins see and change every user's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { call, isolatedJwt, JSON_BODY, modelEnv } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `mem-iso-a-${tag}`;
const B = `mem-iso-b-${tag}`;
const SCOPES = ["memories:read", "memories:write", "memories:delete"];
type Who = "A" | "B" | "admin" | "reader";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, admin: {}, reader: {} };
let E: Partial<Env>;
const seed = { b1: "", b2: "", a1: "" };

const as = (w: Who, method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E, who[w]);

/** What the admin reads of B's memories: their full bodies, by id. */
async function bMemories() {
  const res = await as("admin", "GET", `/memories?user_id=${B}&sort_by=memory_id&sort_order=asc`);
  expect(res.status).toBe(200);
  return res.body.data as Array<Record<string, unknown>>;
}

beforeAll(async () => {
  const jwt = await isolatedJwt(`mem-iso-${tag}`);
  const model = await modelEnv([{ text: "A's facts, optimised." }]);
  E = { ...jwt.env, ...model.env };
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.admin = await jwt.bearer(`mem-iso-admin-${tag}`, ["agent_os:admin"]);
  who.reader = await jwt.bearer(`mem-iso-r-${tag}`, ["memories:read"]);
  for (const [key, memory, topics] of [
    ["b1", "B's secret plan", [`b-topic-${tag}`]],
    ["b2", "B's other fact", ["shared-topic"]],
  ] as const) {
    const res = await as("B", "POST", "/memories", { memory, topics });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(B);
    seed[key] = res.body.memory_id;
  }
  const a = await as("A", "POST", "/memories", { memory: "A's own fact", topics: ["shared-topic"] });
  seed.a1 = a.body.memory_id;
});

describe("memories isolation", () => {
  it("A gets 404 reading, patching or deleting B's memory, whatever user_id A names; B's are unchanged", async () => {
    const before = await bMemories();
    expect(before).toHaveLength(2);
    for (const q of ["", `?user_id=${B}`]) {
      expect((await as("A", "GET", `/memories/${seed.b1}${q}`)).status).toBe(404);
      expect((await as("A", "DELETE", `/memories/${seed.b1}${q}`)).status).toBe(404);
    }
    for (const body of [{ memory: "hijacked" }, { memory: "hijacked", user_id: B }]) {
      const res = await as("A", "PATCH", `/memories/${seed.b1}`, body);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: "not_found" });
    }
    for (const body of [{ memory_ids: [seed.b1] }, { memory_ids: [seed.a1, seed.b2], user_id: B }]) {
      expect((await as("A", "DELETE", "/memories", body)).status).toBe(404);
    }
    // All or nothing: A's own memory named beside B's was not deleted either.
    expect((await as("A", "GET", `/memories/${seed.a1}`)).status).toBe(200);
    expect(await bMemories()).toEqual(before);
  });

  it("B's memories are absent from A's list, topics and stats, whatever user_id A names", async () => {
    for (const q of ["", `?user_id=${B}`]) {
      const list = await as("A", "GET", `/memories${q}${q ? "&" : "?"}limit=1000`);
      expect(list.body.data.map((m: { memory_id: string }) => m.memory_id)).toEqual([seed.a1]);
      const topics = await as("A", "GET", `/memory_topics${q}`);
      expect(topics.body).toEqual(["shared-topic"]);
      const stats = await as("A", "GET", `/user_memory_stats${q}`);
      expect(stats.body.data).toEqual([{ user_id: A, total_memories: 1, last_memory_updated_at: expect.any(String) }]);
    }
    expect((await as("A", "GET", `/memories?search_content=secret`)).body.meta.total_count).toBe(0);
  });

  it("a memory A creates naming B is A's; optimising for B works on A's own memories", async () => {
    const res = await as("A", "POST", "/memories", { memory: "planted in B", user_id: B });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(A);
    expect((await bMemories()).map((m) => m.memory)).not.toContain("planted in B");
    expect((await as("A", "DELETE", `/memories/${res.body.memory_id}`)).status).toBe(204);
    const before = await bMemories();
    const optimized = await as("A", "POST", "/optimize-memories", { user_id: B });
    expect(optimized.status).toBe(200);
    expect(optimized.body).toMatchObject({
      memories: [{ user_id: A, memory: "A's facts, optimised." }],
      memories_before: 1,
    });
    seed.a1 = optimized.body.memories[0].memory_id;
    expect(await bMemories()).toEqual(before);
  });

  it("admins read, patch and delete every user's memories; a token without the scope is refused", async () => {
    expect((await as("admin", "GET", `/memories/${seed.b2}`)).body.user_id).toBe(B);
    const stats = await as("admin", "GET", `/user_memory_stats?user_id=${B}`);
    expect(stats.body.data[0]).toMatchObject({ user_id: B, total_memories: 2 });
    expect((await as("admin", "GET", "/memory_topics")).body).toEqual(
      expect.arrayContaining([`b-topic-${tag}`, "shared-topic"]),
    );
    const patched = await as("admin", "PATCH", `/memories/${seed.b2}`, { memory: "fixed by admin", user_id: B });
    expect(patched.body).toMatchObject({ user_id: B, memory: "fixed by admin" });
    expect((await as("reader", "POST", "/memories", { memory: "x" })).status).toBe(403);
    expect((await as("reader", "DELETE", `/memories/${seed.b2}`)).status).toBe(403);
    expect((await as("admin", "DELETE", `/memories/${seed.b2}`)).status).toBe(204);
    expect((await as("B", "GET", `/memories/${seed.b2}`)).status).toBe(404);
    expect((await as("B", "GET", `/memories/${seed.b1}`)).body.memory).toBe("B's secret plan");
  });
});
