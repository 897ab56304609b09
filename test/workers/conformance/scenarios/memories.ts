import { expect, it } from "vitest";
import type { Env } from "../../../../src/index.js";
import { JSON_BODY, modelEnv } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});

/** agno's memory router: every route answered, each answer parsed with agno's model. */
export function memoriesScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);
  const user = `conf-memories-${tag}`;

  it("memories: created, listed, read, patched, topics and stats, optimised, deleted one and many", async () => {
    const created = await conformingCall(
      "/memories",
      json("POST", { memory: "Mia likes green tea", user_id: user, topics: ["drinks"] }),
    );
    expect(created.status).toBe(200);
    const id = created.body.memory_id as string;
    const second = await conformingCall("/memories", json("POST", { memory: "Mia lives in Lyon", user_id: user }));
    expect(second.body.topics).toEqual([]);
    expect((await conformingCall("/memories", json("POST", { memory: "" }))).status).toBe(422);

    const listed = await conformingCall(`/memories?user_id=${user}&topics=drinks&search_content=tea`);
    expect(listed.body.data.map((m: { memory_id: string }) => m.memory_id)).toEqual([id]);
    expect((await conformingCall(`/memories/${id}`)).body).toEqual(created.body);
    expect((await conformingCall(`/memories/no-such-${tag}`)).status).toBe(404);
    const patched = await conformingCall(
      `/memories/${id}`,
      json("PATCH", { memory: "Mia prefers oolong", user_id: user, topics: ["drinks", "tea"] }),
    );
    expect(patched.body).toMatchObject({ memory_id: id, memory: "Mia prefers oolong" });
    expect((await conformingCall(`/memory_topics?user_id=${user}`)).body).toEqual(["drinks", "tea"]);
    const stats = await conformingCall(`/user_memory_stats?user_id=${user}`);
    expect(stats.body.data).toEqual([{ user_id: user, total_memories: 2, last_memory_updated_at: expect.any(String) }]);

    const { env: model } = await modelEnv([{ text: "Mia prefers oolong and lives in Lyon." }]);
    const optimized = await conformingCall(
      "/optimize-memories",
      json("POST", { user_id: user }),
      model as Partial<Env>,
    );
    expect(optimized.body).toMatchObject({ memories_before: 2, memories_after: 1 });
    const kept = optimized.body.memories[0].memory_id as string;

    const extra = await conformingCall("/memories", json("POST", { memory: "to delete", user_id: user }));
    expect((await conformingCall(`/memories/${extra.body.memory_id}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall("/memories", json("DELETE", { memory_ids: [kept], user_id: user }))).status).toBe(204);
    expect((await conformingCall(`/memories?user_id=${user}`)).body.meta.total_count).toBe(0);
  });
}
