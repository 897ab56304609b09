/**
 * One answer to "whose rows" (scopedUserId): under user isolation a non-admin caller without a
 * user identity is refused with 403 on learnings, memories and sessions alike, never served
 * every user's rows; an admin without one is unscoped.
 */
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import type { Principal } from "../../src/os/auth/jwt.js";
import type { OSEnv } from "../../src/os/context.js";
import { onError } from "../../src/os/errors.js";
import { learningRoutes } from "../../src/os/routes/learnings.js";
import { memoryRoutes } from "../../src/os/routes/memories.js";
import { sessionRoutes } from "../../src/os/routes/sessions.js";

const SCOPES = ["learnings:read", "learnings:write", "memories:read", "memories:write", "sessions:read"];

async function appFor(principal: Principal) {
  const db = new MemoryDb();
  await db.createLearning({
    learning_id: "user_profile_alice",
    learning_type: "user_profile",
    user_id: "alice",
    content: { name: "Alice" },
  });
  const app = new Hono<OSEnv>();
  app.onError(onError);
  app.use(async (c, next) => {
    c.set("principal", principal);
    c.set("userIsolation", true);
    await next();
  });
  app.route("/", learningRoutes());
  app.route(
    "/",
    memoryRoutes(() => undefined),
  );
  app.route("/", sessionRoutes());
  return (path: string) => app.request(path, {}, { dbs: [db] });
}

describe("scopedUserId", () => {
  const anonymous: Principal = { userId: null, scopes: SCOPES, admin: false };

  it("refuses a non-admin without a user identity under isolation (403), on every data route", async () => {
    const get = await appFor(anonymous);
    for (const path of ["/learnings", "/learnings/user_profile_alice", "/memories", "/sessions"]) {
      const res = await get(path);
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/missing a user identity/);
    }
  });

  it("leaves an admin without a user identity unscoped", async () => {
    const get = await appFor({ userId: null, scopes: ["agent_os:admin"], admin: true });
    const res = await get("/learnings/user_profile_alice");
    expect(res.status).toBe(200);
  });
});

describe("POST /learnings entity_memory outside namespace user", () => {
  const entity = { learning_type: "entity_memory", entity_id: "acme", entity_type: "company", content: {} };
  const post = async (principal: Principal, body: unknown) => {
    const db = new MemoryDb();
    const app = new Hono<OSEnv>();
    app.onError(onError);
    app.use(async (c, next) => {
      c.set("principal", principal);
      c.set("userIsolation", true);
      await next();
    });
    app.route("/", learningRoutes());
    const res = await app.request(
      "/learnings",
      { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } },
      { dbs: [db] },
    );
    return { status: res.status, db };
  };
  const alice: Principal = { userId: "alice", scopes: SCOPES, admin: false };
  const admin: Principal = { userId: "root", scopes: ["agent_os:admin"], admin: true };

  it("refuses an owner on a shared entity (422) and a non-admin creating one (403); an admin creates it ownerless", async () => {
    expect((await post(alice, { ...entity, namespace: "global", user_id: "alice" })).status).toBe(422);
    expect((await post(alice, { ...entity, user_id: "alice" })).status).toBe(422);
    expect((await post(alice, entity)).status).toBe(403);
    expect((await post(admin, { ...entity, namespace: "team", user_id: "root" })).status).toBe(422);
    const made = await post(admin, entity);
    expect(made.status).toBe(201);
    expect((await made.db.getLearning("entity_global_company_acme"))!.user_id).toBeNull();
    // namespace "user" stays the user's own
    expect((await post(alice, { ...entity, namespace: "user", user_id: "alice" })).status).toBe(201);
  });
});

describe("learning content of the wrong shape", () => {
  it("is refused with 422 on POST and PATCH for user_memory and user_profile", async () => {
    const principal: Principal = { userId: "alice", scopes: SCOPES, admin: false };
    const db = new MemoryDb();
    const app = new Hono<OSEnv>();
    app.onError(onError);
    app.use(async (c, next) => {
      c.set("principal", principal);
      c.set("userIsolation", true);
      await next();
    });
    app.route("/", learningRoutes());
    const call = async (method: string, path: string, body: unknown) =>
      (
        await app.request(
          path,
          { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } },
          { dbs: [db] },
        )
      ).status;
    const mem = { learning_type: "user_memory", user_id: "alice" };
    expect(await call("POST", "/learnings", { ...mem, content: { memories: "oops" } })).toBe(422);
    expect(await call("POST", "/learnings", { ...mem, content: { memories: [{ id: "1" }] } })).toBe(422);
    expect(
      await call("POST", "/learnings", { learning_type: "user_profile", user_id: "alice", content: { name: 5 } }),
    ).toBe(422);
    expect(await call("POST", "/learnings", { ...mem, content: { memories: [{ id: "1", content: "x" }] } })).toBe(201);
    expect(await call("PATCH", "/learnings/memories_alice", { content: { memories: "oops" } })).toBe(422);
    expect(await call("PATCH", "/learnings/memories_alice", { content: { memories: [] } })).toBe(200);
  });
});
