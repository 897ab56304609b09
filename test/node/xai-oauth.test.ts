import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ModelRegistry } from "../../src/models/model-registry.js";
import { xaiProvider } from "../../src/models/providers/xai.js";
import { xaiResponsesProvider } from "../../src/models/providers/xai-responses.js";
import { fernetDecrypt, fernetEncrypt, generateEncryptionKey } from "../../src/models/xai/fernet.js";
import { MemoryAuthTokenStore } from "../../src/models/xai/memory-auth-token-store.js";
import { PostgresAuthTokenStore } from "../../src/models/xai/postgres-auth-token-store.js";
import { XaiAuthError } from "../../src/models/xai/xai-auth-error.js";
import { XAITokenManager } from "../../src/models/xai/xai-token-manager.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { startFakeXaiOAuth, type FakeXaiOAuth } from "../support/fake-xai-oauth.js";
import { scriptModel } from "../support/model-script.js";

let oauth: FakeXaiOAuth;
beforeAll(async () => {
  oauth = await startFakeXaiOAuth();
});
afterAll(() => oauth.stop());

function setup(opts: { now?: () => number; store?: MemoryAuthTokenStore } = {}) {
  const store = opts.store ?? new MemoryAuthTokenStore();
  const key = generateEncryptionKey();
  const manager = new XAITokenManager({ store, encryptionKey: key, issuer: oauth.issuer, now: opts.now });
  return { store, key, manager };
}

/** A whole device sign-in for `userId`, approved at once. */
async function signIn(manager: XAITokenManager, userId: string, expiresIn?: number) {
  oauth.scriptDevice({ outcome: "approve", expiresIn });
  const login = await manager.startDeviceLogin();
  expect(await manager.pollOnce(login.device_code, login.interval, userId)).toMatchObject({ status: "SUCCESS" });
  return oauth.issued.at(-1)!;
}

describe("device sign-in (RFC 8628)", () => {
  it("starts, polls through pending and slow_down, stores the session encrypted, and a run uses it", async () => {
    const { store, key, manager } = setup();
    oauth.scriptDevice({ pending: 3, slowDownAt: [2], outcome: "approve" });
    const login = await manager.startDeviceLogin();
    expect(login).toMatchObject({
      user_code: expect.stringMatching(/^CODE-/),
      verification_uri: "https://accounts.x.ai/device",
      verification_uri_complete: expect.stringContaining("user_code="),
      expires_in: 1800,
      interval: 5,
    });
    const start = oauth.forms.at(-1)!;
    expect(start.path).toBe("/oauth2/device/code");
    expect(start.form.scope).toContain("offline_access");

    let interval = login.interval;
    const statuses: string[] = [];
    for (;;) {
      const r = await manager.pollOnce(login.device_code, interval, "alice");
      statuses.push(`${r.status}:${r.interval}`);
      if (r.status !== "PENDING") break;
      interval = r.interval;
    }
    // slow_down adds 5 seconds to every poll after it
    expect(statuses).toEqual(["PENDING:5", "PENDING:10", "PENDING:10", "SUCCESS:10"]);
    const token = oauth.issued.at(-1)!;
    expect(oauth.forms.at(-1)!.form).toMatchObject({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: login.device_code,
    });

    // At rest: agno's row shape, a Fernet token holding the envelope, no token in the clear
    const row = [...store.rows.values()][0]!;
    expect(row).toMatchObject({ provider: "xai", user_id: "alice", service: "supergrok" });
    expect(row.granted_scopes).toContain("api:access");
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain("xai-refresh");
    expect(Object.keys(row.token_data)).toEqual(["encrypted"]);
    const envelope = JSON.parse(await fernetDecrypt(key, row.token_data.encrypted as string)) as Record<
      string,
      unknown
    >;
    expect(envelope).toMatchObject({ access_token: token, token_type: "Bearer" });

    const s = await scriptModel(inject("modelServerUrl"), [{ text: "hello from grok" }]);
    const models = new ModelRegistry({ xai: xaiProvider({ tokenManager: manager }) });
    const model = models.resolve("xai", { credentials: { xai: { baseURL: s.baseURL } } });
    const out = await new Agent({ model }).run("hi", { userId: "alice" });
    expect(out).toMatchObject({ status: "COMPLETED", content: "hello from grok" });
    expect((await s.requests())[0]!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it("reports a denied and an expired sign-in with agno's messages; pollForToken throws them", async () => {
    const { manager } = setup();
    oauth.scriptDevice({ outcome: "deny" });
    const denied = await manager.startDeviceLogin();
    expect(await manager.pollOnce(denied.device_code, 5, "u")).toMatchObject({
      status: "DENIED",
      message: "SuperGrok sign-in was denied in the browser.",
    });
    oauth.scriptDevice({ outcome: "expire" });
    const expired = await manager.startDeviceLogin();
    await expect(manager.pollForToken(expired.device_code, 0, Date.now() / 1000 + 60, "u")).rejects.toThrow(
      /sign-in code expired.*Start the login again/,
    );
    expect(await manager.hasSession("u")).toBe(false);
  });

  it("pollForToken waits out pending polls and stores the session", async () => {
    const { manager } = setup();
    oauth.scriptDevice({ pending: 2, outcome: "approve" });
    const login = await manager.startDeviceLogin();
    await manager.pollForToken(login.device_code, 0, Date.now() / 1000 + 60, "dana");
    expect(await manager.getAccessToken("dana")).toBe(oauth.issued.at(-1));
  });
});

describe("access tokens", () => {
  it("refreshes inside the 300 s margin, keeps the rotated refresh token, and stores it encrypted", async () => {
    let now = 1_000_000;
    const { store, key, manager } = setup({ now: () => now });
    const first = await signIn(manager, "alice", 600);
    expect(await manager.getAccessToken("alice")).toBe(first);
    const before = oauth.forms.length;

    now += 301; // 299 s left: inside the margin
    const second = await manager.getAccessToken("alice");
    expect(second).not.toBe(first);
    expect(oauth.forms.slice(before).map((f) => f.form.grant_type)).toEqual(["refresh_token"]);
    const row = [...store.rows.values()][0]!;
    const envelope = JSON.parse(await fernetDecrypt(key, row.token_data.encrypted as string)) as Record<
      string,
      unknown
    >;
    expect(envelope).toMatchObject({ access_token: second, expires_at: now + 600 });
    // the id token comes with the first grant only, and is kept
    expect(envelope.id_token).toMatch(/^id-/);
    expect(JSON.stringify(row)).not.toContain(second);

    // A second manager (another isolate) reads the fresh row without refreshing again
    const other = new XAITokenManager({ store, encryptionKey: key, issuer: oauth.issuer, now: () => now });
    expect(await other.getAccessToken("alice")).toBe(second);
    expect(oauth.forms.length).toBe(before + 1);
  });

  it("concurrent calls share one refresh", async () => {
    let now = 2_000_000;
    const { manager } = setup({ now: () => now });
    await signIn(manager, "u", 600);
    now += 400;
    const before = oauth.forms.length;
    const tokens = await Promise.all([1, 2, 3].map(() => manager.getAccessToken("u")));
    expect(new Set(tokens).size).toBe(1);
    expect(oauth.forms.length).toBe(before + 1);
  });

  it("invalid_grant clears the session and tells the user to sign in again, through a run too", async () => {
    let now = 3_000_000;
    const { store, manager } = setup({ now: () => now });
    await signIn(manager, "alice", 600);
    const refresh = oauth.forms.length; // the grant's refresh token is the latest issued
    oauth.revoke(`xai-refresh-${oauth.issued.at(-1)!.split("-")[2]}`);
    now += 1000;
    const s = await scriptModel(inject("modelServerUrl"), [{ text: "never" }]);
    const model = new ModelRegistry({ xai: xaiProvider({ tokenManager: manager, requireUserToken: true }) }).resolve(
      "xai",
      { credentials: { xai: { baseURL: s.baseURL } } },
    );
    const out = await new Agent({ model }).run("hi", { userId: "alice" });
    expect(out.status).toBe("ERROR");
    expect(String(out.content)).toMatch(/SuperGrok session expired or was revoked\. Sign in again/);
    expect(oauth.forms.length).toBe(refresh + 1);
    expect(store.rows.size).toBe(0);
    expect(await s.requests()).toHaveLength(0);
    await expect(manager.getAccessToken("alice")).rejects.toThrow(/No SuperGrok token found/);
  });

  it("an unreadable row (another key) is an error for its user, not a silent fallback", async () => {
    const { store, manager } = setup();
    await signIn(manager, "alice");
    const other = new XAITokenManager({ store, encryptionKey: generateEncryptionKey(), issuer: oauth.issuer });
    await expect(other.getAccessToken("alice")).rejects.toThrow(/could not be read.*Sign in again/);
  });

  it("refuses to start without an encryption key unless told to store in the clear", () => {
    expect(() => new XAITokenManager({ issuer: oauth.issuer })).toThrow(/XAI_TOKEN_ENCRYPTION_KEY/);
    expect(() => new XAITokenManager({ issuer: oauth.issuer, encryptTokens: false })).not.toThrow();
  });
});

describe("per-user sessions", () => {
  it("each user's run carries their own token; the unsigned fall back to the deployment's, or are refused", async () => {
    const { manager } = setup();
    const alice = await signIn(manager, "alice");
    const bob = await signIn(manager, "bob");
    const shared = await signIn(manager, "");
    const s = await scriptModel(inject("modelServerUrl"), [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }]);
    const resolve = (requireUserToken: boolean) =>
      new ModelRegistry({ "xai-responses": xaiResponsesProvider({ tokenManager: manager, requireUserToken }) }).resolve(
        "xai-responses",
        { credentials: { "xai-responses": { baseURL: s.baseURL } } },
      );
    const agent = new Agent({ model: resolve(false) });
    await agent.run("hi", { userId: "alice" });
    await agent.run("hi", { userId: "bob" });
    await agent.run("hi", { userId: "carol" });
    await agent.run("hi");
    const auth = (await s.requests()).map((r) => r.headers.authorization);
    expect(auth).toEqual([`Bearer ${alice}`, `Bearer ${bob}`, `Bearer ${shared}`, `Bearer ${shared}`]);

    const strict = await new Agent({ model: resolve(true) }).run("hi", { userId: "carol" });
    expect(strict.status).toBe("ERROR");
    expect(String(strict.content)).toMatch(/User 'carol' has not signed in with SuperGrok/);
    expect(await s.requests()).toHaveLength(4);
  });

  it("without any session the API key serves the run; without either, a clear error", async () => {
    const { manager } = setup();
    const s = await scriptModel(inject("modelServerUrl"), [{ text: "keyed" }]);
    const provider = xaiProvider({ tokenManager: manager });
    const keyed = provider.model("grok-4.3", { name: "xai", credentials: { apiKey: "xai-key", baseURL: s.baseURL } });
    expect(await new Agent({ model: keyed }).run("hi", { userId: "zoe" })).toMatchObject({ content: "keyed" });
    expect((await s.requests())[0]!.headers.authorization).toBe("Bearer xai-key");
    const bare = provider.model("grok-4.3", { name: "xai", credentials: { baseURL: s.baseURL } });
    const out = await new Agent({ model: bare }).run("hi", { userId: "zoe" });
    expect(out.status).toBe("ERROR");
    expect(String(out.content)).toMatch(/No SuperGrok token found/);
  });
});

describe("storage", () => {
  it("reads Fernet tokens as agno writes them (the spec's test vector) and writes ones that round-trip", async () => {
    const vectorKey = "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=";
    const vector =
      "gAAAAAAdwJ6wAAECAwQFBgcICQoLDA0ODy021cpGVWKZ_eEwCGM4BLLF_5CV9dOPmrhuVUPgJobwOz7JcbmrR64jVmpU4IwqDA==";
    expect(await fernetDecrypt(vectorKey, vector)).toBe("hello");
    const ours = await fernetEncrypt(vectorKey, "hello");
    expect(ours).toMatch(/^gAAAAA/);
    expect(await fernetDecrypt(vectorKey, ours)).toBe("hello");
    const tampered = ours.slice(0, 30) + (ours[30] === "A" ? "B" : "A") + ours.slice(31);
    await expect(fernetDecrypt(vectorKey, tampered)).rejects.toThrow();
    await expect(fernetDecrypt(generateEncryptionKey(), ours)).rejects.toThrow(/wrong key/);
  });

  it("keeps sessions in agno's agno_auth_tokens table on Postgres, encrypted", async () => {
    const t = openTestDb(dbTargets()[0]!);
    try {
      await t.query(`CREATE SCHEMA IF NOT EXISTS "${t.schema}"`);
      const store = new PostgresAuthTokenStore(t.pool, { schema: t.schema });
      const key = generateEncryptionKey();
      const manager = new XAITokenManager({ store, encryptionKey: key, issuer: oauth.issuer });
      const alice = await signIn(manager, "alice");
      const shared = await signIn(manager, "");
      const rows = await t.query<{ user_id: string; token_data: unknown; granted_scopes: unknown }>(
        `SELECT user_id, token_data, granted_scopes FROM "${t.schema}".agno_auth_tokens ORDER BY user_id`,
      );
      expect(rows.map((r) => r.user_id)).toEqual(["", "alice"]);
      expect(JSON.stringify(rows)).not.toContain(alice);
      expect(JSON.stringify(rows)).not.toContain(shared);
      // A fresh manager (a new isolate) reads it back
      const fresh = new XAITokenManager({ store, encryptionKey: key, issuer: oauth.issuer });
      expect(await fresh.getAccessToken("alice")).toBe(alice);
      await fresh.signOut("alice");
      expect(await fresh.hasSession("alice")).toBe(false);
      expect(await fresh.hasSession("")).toBe(true);
    } finally {
      await t.close();
    }
  });
});

it("XaiAuthError maps to a 4xx", () => {
  expect(new XaiAuthError("x").status).toBe(400);
});
