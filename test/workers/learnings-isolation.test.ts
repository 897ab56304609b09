/**
 * `/learnings` under per-user isolation (JWT, AGNO_USER_ISOLATION=true), as agno's router checks
 * it: user B gets 404 for A's learnings on get, patch and delete, never sees them listed, cannot
 * name A in a filter, create or bulk delete (403), cannot address A's per-user entity namespace
 * (403 for A's user id, 422 for the reserved digest namespace), and A's rows stay unchanged;
 * rows with no owner are read by all and changed by admins only; admins see everything.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { userKeySegment } from "../../src/learn/utils.js";
import type { Env } from "../../src/index.js";
import { isolatedJwt, send } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `learn-a-${tag}`;
const B = `learn-b-${tag}`;
const SCOPES = ["learnings:read", "learnings:write", "learnings:delete"];
type Who = "A" | "B" | "admin";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, admin: {} };
let E: Partial<Env>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read answers' fields freely
type Answer = { status: number; body: any; text: string };

async function req(as: Who, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await send(path, { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, E, {
    ...who[as],
    ...(body !== undefined ? { "content-type": "application/json" } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

const ids = { profileA: `user_profile_${A}`, profileB: `user_profile_${B}`, entityA: "", entityB: "", shared: "" };

/** Every learning the admin sees of A, by id: the before/after picture. */
async function aRows() {
  const res = await req("admin", "GET", `/learnings?user_id=${A}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  const jwt = await isolatedJwt("learn");
  E = jwt.env;
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.admin = await jwt.bearer(`learn-admin-${tag}`, ["agent_os:admin"]);
  for (const [as, user] of [
    ["A", A],
    ["B", B],
  ] as const) {
    const profile = await req(as, "POST", "/learnings", {
      learning_type: "user_profile",
      user_id: user,
      content: { name: as },
    });
    expect(profile.status, profile.text).toBe(201);
    const entity = await req(as, "POST", "/learnings", {
      learning_type: "entity_memory",
      namespace: "user",
      user_id: user,
      entity_id: "acme",
      entity_type: "company",
      content: { entity_id: "acme", entity_type: "company", facts: [{ id: "f", content: `${as}'s Acme` }] },
    });
    expect(entity.status, entity.text).toBe(201);
    ids[as === "A" ? "entityA" : "entityB"] = entity.body.learning_id;
  }
  const shared = await req("admin", "POST", "/learnings", {
    learning_type: "entity_memory",
    entity_id: `globex_${tag}`,
    entity_type: "company",
    content: { facts: [] },
  });
  expect(shared.status).toBe(201);
  ids.shared = shared.body.learning_id;
});

describe("/learnings isolation", () => {
  it("the same entity of two users in namespace user is two rows, each keyed by its user's digest", async () => {
    expect(ids.entityA).toBe(`entity_user_${await userKeySegment(A)}_company_acme`);
    expect(ids.entityB).toBe(`entity_user_${await userKeySegment(B)}_company_acme`);
    expect(ids.entityA).not.toBe(ids.entityB);
  });

  it("B gets 404 for A's learnings on get, patch and delete, and A's rows are unchanged", async () => {
    const before = await aRows();
    expect(before.map((r: { learning_id: string }) => r.learning_id).sort()).toEqual(
      [ids.entityA, ids.profileA].sort(),
    );
    for (const id of [ids.profileA, ids.entityA]) {
      for (const [method, body] of [
        ["GET", undefined],
        ["PATCH", { content: { name: "hacked" } }],
        ["DELETE", undefined],
      ] as const) {
        const res = await req("B", method, `/learnings/${id}`, body);
        expect({ id, method, status: res.status }).toEqual({ id, method, status: 404 });
        expect(res.body).toMatchObject({ detail: "Learning not found", error_id: expect.any(String) });
        expect(res.text).not.toContain(A);
      }
    }
    expect(await aRows()).toEqual(before);
  });

  it("B's listings hold B's rows and the shared ones, never A's; naming A is 403", async () => {
    const mine = await req("B", "GET", "/learnings?limit=1000");
    const seen = mine.body.data.map((r: { learning_id: string }) => r.learning_id);
    expect(seen).toEqual(expect.arrayContaining([ids.profileB, ids.entityB, ids.shared]));
    expect(seen).not.toContain(ids.profileA);
    expect(seen).not.toContain(ids.entityA);
    expect(mine.body.data.every((r: { user_id: string | null }) => r.user_id === B || r.user_id === null)).toBe(true);
    const ns = await req("B", "GET", "/learnings?namespace=user&learning_type=entity_memory");
    expect(ns.body.data.map((r: { learning_id: string }) => r.learning_id)).toEqual([ids.entityB]);
    expect((await req("B", "GET", `/learnings?user_id=${A}`)).status).toBe(403);
    expect((await req("B", "GET", `/learnings/users`)).body.data.map((u: { user_id: string }) => u.user_id)).toEqual([
      B,
    ]);
    expect((await req("B", "GET", `/learnings/users?user_id=${A}`)).status).toBe(403);
  });

  it("B cannot address A's entity namespace: A's user id is 403, the digest namespace is reserved (422)", async () => {
    const before = await aRows();
    const entity = { learning_type: "entity_memory", entity_id: "acme", entity_type: "company", content: { x: 1 } };
    expect((await req("B", "POST", "/learnings", { ...entity, namespace: "user", user_id: A })).status).toBe(403);
    const digest = await userKeySegment(A);
    for (const namespace of [`user_${digest}`, `user_${digest}_company`]) {
      const res = await req("B", "POST", "/learnings", { ...entity, namespace });
      expect({ namespace, status: res.status }).toEqual({ namespace, status: 422 });
      expect(res.body.detail).toMatch(/reserved/);
    }
    // With B's own id the same entity is B's row, already there: 409, A's untouched.
    expect((await req("B", "POST", "/learnings", { ...entity, namespace: "user", user_id: B })).status).toBe(409);
    // namespace "user" without a user id has no key at all.
    expect((await req("B", "POST", "/learnings", { ...entity, namespace: "user" })).status).toBe(422);
    expect(
      (await req("B", "POST", "/learnings", { learning_type: "user_profile", user_id: A, content: {} })).status,
    ).toBe(403);
    expect((await req("B", "DELETE", `/learnings/users/${A}`)).status).toBe(403);
    expect(await aRows()).toEqual(before);
  });

  it("rows without an owner are read by all and changed by admins only", async () => {
    expect((await req("B", "GET", `/learnings/${ids.shared}`)).status).toBe(200);
    expect((await req("B", "PATCH", `/learnings/${ids.shared}`, { content: { v: 2 } })).status).toBe(403);
    expect((await req("B", "DELETE", `/learnings/${ids.shared}`)).status).toBe(403);
    expect((await req("admin", "PATCH", `/learnings/${ids.shared}`, { content: { v: 2 } })).body.content).toEqual({
      v: 2,
    });
  });

  it("admins see and change every user's learnings; a user deletes their own", async () => {
    const users = (await req("admin", "GET", "/learnings/users?limit=1000")).body.data.map(
      (u: { user_id: string }) => u.user_id,
    );
    expect(users).toEqual(expect.arrayContaining([A, B]));
    expect((await req("admin", "GET", `/learnings/${ids.profileA}`)).body.content).toEqual({ name: "A" });
    expect(
      (await req("admin", "PATCH", `/learnings/${ids.profileA}`, { metadata: { by: "admin" } })).body,
    ).toMatchObject({
      content: { name: "A" },
      metadata: { by: "admin" },
    });
    expect((await req("B", "PATCH", `/learnings/${ids.profileB}`, { content: { name: "B2" } })).body.content).toEqual({
      name: "B2",
    });
    expect((await req("B", "DELETE", `/learnings/users/${B}`)).status).toBe(204);
    expect((await req("admin", "GET", `/learnings?user_id=${B}`)).body.data).toEqual([]);
    expect(await aRows()).toHaveLength(2);
    expect((await req("admin", "DELETE", `/learnings/${ids.entityA}`)).status).toBe(204);
  });
});
