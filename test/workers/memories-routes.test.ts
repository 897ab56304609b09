/**
 * agno's `/memories` routes over HTTP through the Worker's own fetch handler: create, list with
 * its filters, sort and pages, get, patch, delete one and many, topics, user stats, optimise
 * with the scripted model, `/config`'s memory block, and bad input. The workers test files share
 * one schema, so users carry a per-run tag and admin-wide reads are checked for inclusion.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { call, JSON_BODY, modelEnv } from "./worker-client.js";
import type { ModelScript } from "../support/model-script.js";

const tag = crypto.randomUUID().slice(0, 8);
const ANN = `mem-ann-${tag}`;
const BEN = `mem-ben-${tag}`;
let E: Partial<Env>;
let script: ModelScript;

const as = (method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E);
const create = async (user: string, memory: string, topics?: string[]) => {
  const res = await as("POST", "/memories", { memory, user_id: user, ...(topics ? { topics } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { memory_id: string; updated_at: string };
};

beforeAll(async () => {
  const model = await modelEnv([{ text: "Cleo drinks tea and lives in Lyon." }, { text: "Preview only." }]);
  E = model.env;
  script = model.script;
});

describe("/memories", () => {
  it("creates a memory as agno answers it, every field present", async () => {
    const res = await as("POST", "/memories", { memory: "Ann drinks green tea", user_id: ANN, topics: ["drinks"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      memory_id: expect.any(String),
      memory: "Ann drinks green tea",
      topics: ["drinks"],
      agent_id: null,
      team_id: null,
      user_id: ANN,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect((await as("POST", "/memories", { memory: "no user" })).status).toBe(400);
    expect((await as("POST", "/memories", { memory: "", user_id: ANN })).status).toBe(422);
    expect((await as("POST", "/memories", { memory: "x".repeat(5001), user_id: ANN })).status).toBe(422);
    expect((await as("POST", "/memories?table=agno_other", { memory: "x", user_id: ANN })).status).toBe(404);
    expect((await as("POST", "/memories?db_id=nope", { memory: "x", user_id: ANN })).status).toBe(404);
  });

  it("lists with filters, sort and pages; gets, patches and deletes one", async () => {
    const lyon = await create(ANN, "Ann lives in Lyon", ["location"]);
    await create(ANN, "Ann's 100% organic garden", ["garden", "home"]);
    await create(BEN, "Ben drinks black tea", ["drinks"]);
    const mine = await as("GET", `/memories?user_id=${ANN}&sort_by=memory_id&sort_order=asc&limit=2`);
    expect(mine.status).toBe(200);
    expect(mine.body.meta).toEqual({ page: 1, limit: 2, total_pages: 2, total_count: 3, search_time_ms: 0 });
    const page2 = await as("GET", `/memories?user_id=${ANN}&sort_by=memory_id&sort_order=asc&limit=2&page=2`);
    expect(page2.body.data).toHaveLength(1);
    const drinks = await as("GET", `/memories?topics=drinks&search_content=TEA&user_id=${BEN}`);
    expect(drinks.body.data.map((m: { memory: string }) => m.memory)).toEqual(["Ben drinks black tea"]);
    const both = await as("GET", `/memories?topics=garden,%20home&user_id=${ANN}`);
    expect(both.body.data.map((m: { memory: string }) => m.memory)).toEqual(["Ann's 100% organic garden"]);
    expect((await as("GET", `/memories?search_content=100%25&user_id=${ANN}`)).body.meta.total_count).toBe(1);
    expect((await as("GET", "/memories?sort_by=memory")).status).toBe(422);
    expect((await as("GET", "/memories?limit=0")).status).toBe(422);

    expect((await as("GET", `/memories/${lyon.memory_id}`)).body).toMatchObject({ memory: "Ann lives in Lyon" });
    expect((await as("GET", `/memories/${lyon.memory_id}?user_id=${BEN}`)).status).toBe(404);
    const patched = await as("PATCH", `/memories/${lyon.memory_id}`, {
      memory: "Ann moved from Lyon to Paris",
      user_id: ANN,
      topics: ["location", "moves"],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      memory_id: lyon.memory_id,
      memory: "Ann moved from Lyon to Paris",
      user_id: ANN,
    });
    expect(patched.body.topics).toEqual(["location", "moves"]);
    // Naming another user does not move the memory to them: it is not that user's memory.
    expect((await as("PATCH", `/memories/${lyon.memory_id}`, { memory: "x", user_id: BEN })).status).toBe(404);
    expect((await as("PATCH", `/memories/${lyon.memory_id}`, { memory: "x" })).status).toBe(400);
    expect((await as("PATCH", "/memories/nope", { memory: "x", user_id: ANN })).status).toBe(404);

    expect((await as("DELETE", `/memories/${lyon.memory_id}?user_id=${BEN}`)).status).toBe(404);
    expect((await as("DELETE", `/memories/${lyon.memory_id}`)).status).toBe(204);
    expect((await as("GET", `/memories/${lyon.memory_id}`)).status).toBe(404);
  });

  it("lists topics and user stats; deletes many all or nothing", async () => {
    const topics = await as("GET", `/memory_topics?user_id=${BEN}`);
    expect(topics.body).toEqual(["drinks"]);
    const stats = await as("GET", `/user_memory_stats?user_id=${ANN}`);
    expect(stats.body).toEqual({
      data: [{ user_id: ANN, total_memories: 2, last_memory_updated_at: expect.stringMatching(/Z$/) }],
      meta: { page: 1, limit: 20, total_pages: 1, total_count: 1, search_time_ms: 0 },
    });
    const all = await as("GET", "/user_memory_stats?limit=1000");
    expect(all.body.data.map((s: { user_id: string }) => s.user_id)).toEqual(expect.arrayContaining([ANN, BEN]));

    const one = await create(BEN, "Ben to go 1");
    const two = await create(BEN, "Ben to go 2");
    const missing = await as("DELETE", "/memories", { memory_ids: [one.memory_id, "nope"] });
    expect(missing.status).toBe(404);
    expect((await as("GET", `/memories/${one.memory_id}`)).status).toBe(200);
    expect((await as("DELETE", "/memories", { memory_ids: [] })).status).toBe(422);
    const gone = await as("DELETE", "/memories", { memory_ids: [one.memory_id, two.memory_id], user_id: BEN });
    expect(gone.status).toBe(204);
    expect((await as("GET", `/memories/${two.memory_id}`)).status).toBe(404);
  });

  it("optimises a user's memories into one with the served model; apply: false previews", async () => {
    const cleo = `mem-cleo-${tag}`;
    await create(cleo, "Cleo drinks tea", ["drinks"]);
    await create(cleo, "Cleo lives in Lyon and drinks tea every morning", ["location"]);
    const res = await as("POST", "/optimize-memories", { user_id: cleo });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      memories: [{ memory: "Cleo drinks tea and lives in Lyon.", user_id: cleo }],
      memories_before: 2,
      memories_after: 1,
    });
    expect(res.body.tokens_before).toBeGreaterThan(res.body.tokens_after);
    expect(res.body.tokens_saved).toBe(res.body.tokens_before - res.body.tokens_after);
    expect(res.body.reduction_percentage).toBeCloseTo((100 * res.body.tokens_saved) / res.body.tokens_before);
    expect(res.body.memories[0].topics.sort()).toEqual(["drinks", "location"]);
    const stored = await as("GET", `/memories?user_id=${cleo}`);
    expect(stored.body.data.map((m: { memory_id: string }) => m.memory_id)).toEqual([res.body.memories[0].memory_id]);
    const preview = await as("POST", "/optimize-memories", { user_id: cleo, apply: false });
    expect(preview.body.memories[0].memory).toBe("Preview only.");
    expect((await as("GET", `/memories?user_id=${cleo}`)).body.data[0].memory).toBe(
      "Cleo drinks tea and lives in Lyon.",
    );
    const sent = (await script.requests())[0]!.body.messages as Array<{ content: string }>;
    expect(sent[1]!.content).toMatch(/Memory 1: Cleo/);
    expect((await as("POST", "/optimize-memories", { user_id: `nobody-${tag}` })).status).toBe(404);
    expect((await as("POST", "/optimize-memories", { user_id: cleo, model: "nosuch:model" })).status).toBe(400);
    expect((await as("POST", "/optimize-memories", {})).status).toBe(422);
  });

  it("/config lists each database with its memories table", async () => {
    const config = await as("GET", "/config");
    expect(config.body.memory.dbs[0]).toMatchObject({
      db_id: config.body.os_database,
      domain_config: { display_name: config.body.os_database },
      tables: ["agno_memories"],
    });
  });
});
