import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { ModelRegistry } from "../../src/models/model-registry.js";
import { xaiProvider } from "../../src/models/providers/xai.js";
import { generateEncryptionKey } from "../../src/models/xai/fernet.js";
import { MemoryAuthTokenStore } from "../../src/models/xai/memory-auth-token-store.js";
import { XAITokenManager } from "../../src/models/xai/xai-token-manager.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { xaiLoginRoutes } from "../../src/os/routes/xai-login.js";
import { startFakeXaiOAuth, type FakeXaiOAuth } from "../support/fake-xai-oauth.js";
import { scriptModel } from "../support/model-script.js";

/**
 * `/models/xai/login` on an AgentOS under JWT auth: each user signs in for themselves through the
 * device flow, and their agent runs then carry their own SuperGrok token.
 */
const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const bearer = async (sub: string, scopes = ["agents:run", "agents:read"]) =>
  `Bearer ${await new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256", kid: "k" }).setSubject(sub).setIssuedAt().setExpirationTime("1h").sign(secret)}`;

let oauth: FakeXaiOAuth;
beforeAll(async () => {
  oauth = await startFakeXaiOAuth();
});
afterAll(() => oauth.stop());

it("a user starts, polls and completes a sign-in for themselves; their runs use their token; others cannot finish it", async () => {
  const store = new MemoryAuthTokenStore();
  const tokens = new XAITokenManager({ store, encryptionKey: generateEncryptionKey(), issuer: oauth.issuer });
  const script = await scriptModel(inject("modelServerUrl"), [{ text: "hi alice" }]);
  const model = new ModelRegistry({ xai: xaiProvider({ tokenManager: tokens, requireUserToken: true }) }).resolve(
    "xai",
    { credentials: { xai: { baseURL: script.baseURL } } },
  );
  const db = new MemoryDb();
  const os = new AgentOS({
    agents: [new Agent({ id: "grok", model, db })],
    auth: { mode: "jwt", verifier, userIsolation: true },
    xaiLogin: xaiLoginRoutes(tokens),
  });
  const call = async (as: string, method: string, path: string, body?: unknown, scopes?: string[]) => {
    const res = await os.fetch(
      new Request(`http://os.test${path}`, {
        method,
        headers: {
          authorization: await bearer(as, scopes),
          ...(body instanceof URLSearchParams ? {} : body ? { "content-type": "application/json" } : {}),
        },
        body: body instanceof URLSearchParams ? body : body ? JSON.stringify(body) : undefined,
      }),
      { dbs: [db] },
      { waitUntil: () => undefined, passThroughOnException: () => undefined },
    );
    return { status: res.status, json: (res.status === 204 ? null : await res.json()) as Record<string, unknown> };
  };

  oauth.scriptDevice({ pending: 1, outcome: "approve" });
  const started = await call("alice", "POST", "/models/xai/login");
  expect(started.status).toBe(200);
  expect(started.json).toMatchObject({ user_code: expect.stringMatching(/^CODE-/), interval: 5, expires_in: 1800 });
  expect(started.json).not.toHaveProperty("device_code");
  const login_token = started.json.login_token as string;

  const stolen = await call("bob", "POST", "/models/xai/login/poll", { login_token });
  expect(stolen.status).toBe(400);
  expect(stolen.json.detail).toMatch(/another sign-in/);

  expect((await call("alice", "POST", "/models/xai/login/poll", { login_token })).json).toMatchObject({
    status: "PENDING",
  });
  expect((await call("alice", "POST", "/models/xai/login/poll", { login_token })).json).toMatchObject({
    status: "SUCCESS",
  });
  const aliceToken = oauth.issued.at(-1)!;
  expect((await call("alice", "GET", "/models/xai/login")).json).toEqual({ signed_in: true });
  expect((await call("bob", "GET", "/models/xai/login")).json).toEqual({ signed_in: false });

  const run = await call("alice", "POST", "/agents/grok/runs", new URLSearchParams({ message: "hi", stream: "false" }));
  expect(run.status).toBe(200);
  expect((run.json as unknown as RunOutput).content).toBe("hi alice");
  expect((await script.requests())[0]!.headers.authorization).toBe(`Bearer ${aliceToken}`);

  const bobRun = await call(
    "bob",
    "POST",
    "/agents/grok/runs",
    new URLSearchParams({ message: "hi", stream: "false" }),
  );
  expect(String((bobRun.json as unknown as RunOutput).content ?? bobRun.json.detail)).toMatch(
    /'bob' has not signed in with SuperGrok/,
  );

  expect((await call("carol", "POST", "/models/xai/login", undefined, ["agents:read"])).status).toBe(403);
  expect((await call("alice", "DELETE", "/models/xai/login")).status).toBe(204);
  expect((await call("alice", "GET", "/models/xai/login")).json).toEqual({ signed_in: false });
});
