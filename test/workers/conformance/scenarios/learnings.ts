import { expect, it } from "vitest";
import { JSON_BODY } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const tag = crypto.randomUUID().slice(0, 8);
const USER = `conf-learn-${tag}`;
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});

/** agno's `/learnings` routes, each answer parsed with agno's LearningResponse / LearningUserStats / PaginatedResponse. */
export function learningsScenarios(): void {
  it("POST /learnings creates an identity-keyed record under its derived id, and a decision under a generated one", async () => {
    const profile = await conformingCall(
      "/learnings",
      json("POST", { learning_type: "user_profile", user_id: USER, content: { user_id: USER, name: "Conf" } }),
    );
    expect(profile.status).toBe(201);
    expect(profile.body).toMatchObject({
      learning_id: `user_profile_${USER}`,
      learning_type: "user_profile",
      user_id: USER,
      namespace: null,
      metadata: null,
      content: { name: "Conf" },
    });
    const again = await conformingCall(
      "/learnings",
      json("POST", { learning_type: "user_profile", user_id: USER, content: {} }),
    );
    expect(again.status).toBe(409);
    const decision = await conformingCall(
      "/learnings",
      json("POST", { learning_type: "decision_log", user_id: USER, agent_id: `a-${tag}`, content: { decision: "x" } }),
    );
    expect(decision.status).toBe(201);
    expect(decision.body.learning_id).toMatch(/^[0-9a-f-]{36}$/);
    const entity = await conformingCall(
      "/learnings",
      json("POST", { learning_type: "entity_memory", entity_id: `acme_${tag}`, entity_type: "company", content: {} }),
    );
    expect(entity.body).toMatchObject({
      learning_id: `entity_global_company_acme_${tag}`,
      namespace: "global",
      user_id: null,
    });
    const reserved = await conformingCall(
      "/learnings",
      json("POST", {
        learning_type: "entity_memory",
        namespace: "user_0123456789abcdef",
        entity_id: "a",
        entity_type: "b",
        content: {},
      }),
    );
    expect(reserved.status).toBe(422);
    const missing = await conformingCall("/learnings", json("POST", { learning_type: "user_memory", content: {} }));
    expect(missing.status).toBe(422);
  });

  it("GET /learnings pages agno's LearningResponse, filtered; GET /learnings/users lists the owners", async () => {
    const list = await conformingCall(`/learnings?user_id=${USER}&limit=1&sort_by=created_at&sort_order=asc`);
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ page: 1, limit: 1, total_count: 2, total_pages: 2 });
    expect(list.body.data).toHaveLength(1);
    const inTable = await conformingCall(`/learnings?user_id=${USER}&db_id=default&table=agno_learnings`);
    expect(inTable.body.meta.total_count).toBe(2);
    expect((await conformingCall(`/learnings?db_id=default&table=other_table`)).status).toBe(404);
    expect((await conformingCall(`/learnings?table=agno_learnings`)).status).toBe(400);
    const users = await conformingCall(`/learnings/users?user_id=${USER}`);
    expect(users.body.data).toEqual([{ user_id: USER, last_learning_updated_at: expect.any(Number) }]);
  });

  it("GET, PATCH and DELETE /learnings/{learning_id}, then DELETE /learnings/users/{user_id}", async () => {
    const id = `user_profile_${USER}`;
    expect((await conformingCall(`/learnings/${id}`)).body.content).toEqual({ user_id: USER, name: "Conf" });
    const patched = await conformingCall(
      `/learnings/${id}`,
      json("PATCH", { content: { name: "New" }, metadata: { by: "conf" } }),
    );
    expect(patched.body).toMatchObject({ content: { name: "New" }, metadata: { by: "conf" }, user_id: USER });
    expect((await conformingCall(`/learnings/${id}`, json("PATCH", { content: null }))).status).toBe(422);
    expect((await conformingCall(`/learnings/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/learnings/${id}`)).status).toBe(404);
    expect((await conformingCall(`/learnings/users/${USER}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/learnings?user_id=${USER}`)).body.data).toEqual([]);
    expect((await conformingCall(`/learnings/entity_global_company_acme_${tag}`, { method: "DELETE" })).status).toBe(
      204,
    );
  });
}
