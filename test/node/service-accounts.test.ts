/**
 * Service accounts and the audit trail through HTTP (issue 22): an admin mints a key, which is
 * shown once and listed never; the key runs an agent within its scopes, is refused outside them,
 * and stops working at the next request after revocation; every write leaves an audit row that
 * only admins read. Under JWT auth and under the security key alike.
 */
import { base64url, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { AgentOS } from "../../src/os/agent-os.js";
import type { AuthConfig } from "../../src/os/auth/middleware.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { hashServiceAccountKey } from "../../src/os/auth/service-account-keys.js";
import { scriptedModel } from "../support/agent-kit.js";

const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const jwt = (sub: string, scopes: string[]) =>
  new SignJWT({ scopes })
    .setProtectedHeader({ alg: "HS256", kid: "k" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(secret);
const SECURITY_KEY = "s".repeat(40);

async function setup(auth: AuthConfig, turns = 1) {
  const { model } = await scriptedModel(Array.from({ length: turns }, (_, i) => ({ text: `answer ${i}` })));
  const db = new MemoryDb();
  const os = new AgentOS({
    agents: [new Agent({ id: "ops", model, db }), new Agent({ id: "secret", model, db })],
    auth,
  });
  const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined };
  const call = async (path: string, bearer: string | null, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (bearer) headers.set("authorization", `Bearer ${bearer}`);
    if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
    const res = await os.fetch(new Request(`http://os.test${path}`, { ...init, headers }), { dbs: [db] }, ctx);
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the answer's fields freely
    return { status: res.status, text, body: (text ? JSON.parse(text) : null) as any };
  };
  const run = (agent: string, bearer: string) =>
    call(`/agents/${agent}/runs`, bearer, { method: "POST", body: JSON.stringify({ message: "hi", stream: false }) });
  return { db, call, run };
}

describe("service accounts under JWT auth", () => {
  it("a key runs an agent within its scopes, is refused outside them, and is refused at once after revocation", async () => {
    const { db, call, run } = await setup({ mode: "jwt", verifier, userIsolation: true }, 2);
    const admin = await jwt("root", ["agent_os:admin"]);

    const created = await call("/service-accounts", admin, {
      method: "POST",
      body: JSON.stringify({ name: "ci-bot", scopes: [{ scope: "agents:ops:run" }, { scope: "sessions:read" }] }),
    });
    expect(created.status).toBe(201);
    const key = created.body.token as string;
    expect(key).toMatch(/^agno_pat_[0-9A-Za-z]{30,}$/);
    expect(created.body).toMatchObject({
      name: "ci-bot",
      principal: "sa:ci-bot",
      user_id: "root",
      created_by: "root",
      token_prefix: key.slice(0, 16),
      revoked_at: null,
      scopes: [
        {
          id: null,
          raw: "agents:ops:run",
          namespace: "agents",
          sub_namespace: "ops",
          permission: "run",
          value: "allow",
        },
        {
          id: null,
          raw: "sessions:read",
          namespace: "sessions",
          sub_namespace: null,
          permission: "read",
          value: "allow",
        },
      ],
    });
    // Stored only as its hash.
    const stored = (await db.serviceAccounts.get(created.body.id))!;
    expect(stored.token_hash).toBe(await hashServiceAccountKey(key));
    expect(JSON.stringify([...db.tables.serviceAccounts.values()])).not.toContain(key);

    // Within its scopes: the run is the account's.
    const ran = await run("ops", key);
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ content: "answer 0", user_id: "sa:ci-bot" });
    // Outside them: another agent, and a route family it was not granted.
    expect((await run("secret", key)).status).toBe(403);
    expect((await call("/service-accounts", key)).status).toBe(403);
    expect((await call("/memories", key)).status).toBe(403);
    // Its sessions are its own (a service account is scoped to itself).
    const sessions = await call("/sessions?type=agent", key);
    expect(sessions.status).toBe(200);
    expect(sessions.body.data.map((s: { user_id: string }) => s.user_id)).toEqual(["sa:ci-bot"]);

    // Lists never show the key or its hash.
    const listed = await call("/service-accounts", admin);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.text).not.toContain(key);
    expect(listed.text).not.toContain(stored.token_hash);
    expect(listed.body.data[0]).not.toHaveProperty("token");
    expect(listed.body.data[0].last_used_at).toEqual(expect.any(Number));

    // Revoked: the very next request is refused.
    expect((await call(`/service-accounts/${created.body.id}`, admin, { method: "DELETE" })).status).toBe(204);
    const refused = await run("ops", key);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toMatch(/invalid or expired service account token/i);
    // Idempotent, and the name may be minted again (rotation).
    expect((await call(`/service-accounts/${created.body.id}`, admin, { method: "DELETE" })).status).toBe(204);
    const rotated = await call("/service-accounts", admin, {
      method: "POST",
      body: JSON.stringify({ name: "ci-bot" }),
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.token).not.toBe(key);
    expect(
      (await call("/service-accounts?include_revoked=false", admin)).body.data.map((a: { id: string }) => a.id),
    ).toEqual([rotated.body.id]);

    // The audit trail: the create, the revoke (once) and the second create, newest first; admins only.
    const audit = await call("/audit?resource_type=service_account", admin);
    expect(audit.status).toBe(200);
    expect(
      audit.body.data.map((r: { action: string; resource_id: string; principal: string }) => [
        r.action,
        r.resource_id,
        r.principal,
      ]),
    ).toEqual([
      ["create", rotated.body.id, "root"],
      ["revoke", created.body.id, "root"],
      ["create", created.body.id, "root"],
    ]);
    expect(audit.body.data[1]).toMatchObject({ before_version: "active", after_version: "revoked" });
    expect(audit.body.meta).toMatchObject({ page: 1, total_count: 3 });
    expect(audit.text).not.toContain(key);
    expect((await call("/audit", await jwt("alice", ["service_accounts:read", "sessions:read"]))).status).toBe(403);
  });

  it("mint rules: unknown scopes 400, privileged ones need the flag, no scope the minter lacks, names are slugs, one active per name", async () => {
    const { call } = await setup({ mode: "jwt", verifier, userIsolation: true });
    const admin = await jwt("root", ["agent_os:admin"]);
    const mint = (bearer: string, body: unknown) =>
      call("/service-accounts", bearer, { method: "POST", body: JSON.stringify(body) });

    expect((await mint(admin, { name: "x", scopes: [{ scope: "nonsense" }] })).status).toBe(400);
    const privileged = await mint(admin, { name: "x", scopes: [{ scope: "sessions:write" }] });
    expect(privileged.status).toBe(400);
    expect(privileged.body.detail).toMatch(/allow_privileged_scopes/);
    expect(
      (await mint(admin, { name: "x", scopes: [{ scope: "agent_os:admin" }], allow_privileged_scopes: true })).status,
    ).toBe(201);
    expect((await mint(admin, { name: "x" })).status).toBe(409);
    for (const name of ["Upper", "sa:x", "_x", "a.b", "x".repeat(64)])
      expect((await mint(admin, { name })).status, name).toBe(422);
    expect((await mint(admin, { name: "y", scopes: [{ scope: "agents:run", effect: "deny" }] })).status).toBe(422);

    // A caller that may mint grants only what it holds itself.
    const minter = await jwt("alice", [
      "service_accounts:write",
      "service_accounts:read",
      "service_accounts:delete",
      "agents:ops:run",
    ]);
    expect((await mint(minter, { name: "mine", scopes: [{ scope: "agents:ops:run" }] })).status).toBe(201);
    const escalation = await mint(minter, { name: "more", scopes: [{ scope: "agents:run" }] });
    expect(escalation.status).toBe(403);
    expect(escalation.body.detail).toMatch(/do not hold: agents:run/);
    expect((await mint(minter, { name: "more", scopes: [{ scope: "agents:*:run" }] })).status).toBe(403);
    // alice sees her own accounts (and workspace-level ones), and may not revoke another's.
    const mine = await call("/service-accounts", minter);
    expect(mine.body.data.map((a: { name: string }) => a.name)).toEqual(["mine"]);
    const others = (await call("/service-accounts", admin)).body.data.find((a: { name: string }) => a.name === "x");
    expect((await call(`/service-accounts/${others.id}`, minter, { method: "DELETE" })).status).toBe(404);
    // Without the scope at all: 403.
    expect((await mint(await jwt("bob", ["agents:run"]), { name: "b" })).status).toBe(403);
  });

  it("a JWT may not claim a service account's principal", async () => {
    const { call } = await setup({ mode: "jwt", verifier });
    const res = await call("/sessions", await jwt("sa:ci-bot", ["sessions:read"]));
    expect(res.status).toBe(401);
  });
});

describe("service accounts under the security key", () => {
  it("a key works beside the security key, with its own scopes; writes are audited as security_key", async () => {
    const { call, run } = await setup({ mode: "security_key", securityKey: SECURITY_KEY });
    const created = await call("/service-accounts", SECURITY_KEY, {
      method: "POST",
      body: JSON.stringify({ name: "runner", scopes: [{ scope: "agents:run" }], never_expires: true }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ user_id: null, created_by: null, expires_at: null });
    const key = created.body.token as string;
    expect((await run("ops", key)).status).toBe(200);
    expect((await call("/sessions", key)).status).toBe(403);
    expect((await call(`/service-accounts/${created.body.id}`, key, { method: "DELETE" })).status).toBe(403);
    expect((await call(`/service-accounts/${created.body.id}`, SECURITY_KEY, { method: "DELETE" })).status).toBe(204);
    expect((await run("ops", key)).status).toBe(401);
    const audit = await call("/audit", SECURITY_KEY);
    expect(audit.body.data.map((r: { action: string; principal: string }) => [r.action, r.principal])).toEqual([
      ["revoke", "security_key"],
      ["create", "security_key"],
    ]);
    // An unknown or malformed key is refused like any bad token.
    expect((await call("/sessions", "agno_pat_nope")).status).toBe(401);
    expect((await call("/sessions", `agno_pat_${"x".repeat(500)}`)).status).toBe(401);
  });

  it("an expired key is refused", async () => {
    const { db, call, run } = await setup({ mode: "security_key", securityKey: SECURITY_KEY });
    const created = await call("/service-accounts", SECURITY_KEY, {
      method: "POST",
      body: JSON.stringify({ name: "short", scopes: [{ scope: "agents:run" }], expires_in_days: 1 }),
    });
    const row = db.tables.serviceAccounts.get(created.body.id)!;
    db.tables.serviceAccounts.set(row.id, { ...row, expires_at: row.created_at - 1 });
    expect((await run("ops", created.body.token)).status).toBe(401);
  });

  it("with auth off nobody mints a key (it would outlive the open window)", async () => {
    const { call } = await setup({ mode: "none" });
    const res = await call("/service-accounts", null, { method: "POST", body: JSON.stringify({ name: "x" }) });
    expect(res.status).toBe(401);
  });
});

describe("the audit trail of schedules and migrations", () => {
  it("records each schedule write and each migration with the version before and after", async () => {
    const { db, call } = await setup({ mode: "security_key", securityKey: SECURITY_KEY });
    const s = await db.schedules.createSchedule(
      { name: "n", cron_expr: "0 3 * * *", endpoint: "/agents/ops/runs", payload: { message: "x" } },
      { userId: null },
    );
    const patched = await call(`/schedules/${s.id}`, SECURITY_KEY, {
      method: "PATCH",
      body: JSON.stringify({ description: "d" }),
    });
    expect(patched.status).toBe(200);
    expect((await call(`/schedules/${s.id}/disable`, SECURITY_KEY, { method: "POST" })).status).toBe(200);
    expect((await call(`/schedules/${s.id}`, SECURITY_KEY, { method: "DELETE" })).status).toBe(204);
    expect((await call("/databases/default/migrate", SECURITY_KEY, { method: "POST" })).status).toBe(200);
    const audit = await call("/audit?limit=10", SECURITY_KEY);
    const rows = audit.body.data as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.resource_type, r.action])).toEqual([
      ["database", "migrate"],
      ["schedule", "delete"],
      ["schedule", "disable"],
      ["schedule", "update"],
    ]);
    expect(rows[3]).toMatchObject({
      resource_id: s.id,
      before_version: String(s.updated_at),
      after_version: expect.any(String),
    });
    expect(rows[1]).toMatchObject({ before_version: expect.any(String), after_version: null });
    expect(rows[0]).toMatchObject({
      resource_id: "default",
      before_version: expect.any(String),
      after_version: expect.any(String),
    });
    // Paginated as every list: page 2 of 2-row pages.
    const page2 = await call("/audit?limit=2&page=2", SECURITY_KEY);
    expect(page2.body.data.map((r: { action: string }) => r.action)).toEqual(["disable", "update"]);
    expect(page2.body.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 4 });
  });
});
