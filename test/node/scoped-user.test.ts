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
  app.route("/", memoryRoutes());
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
