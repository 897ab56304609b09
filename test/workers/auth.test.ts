import { beforeAll, describe, expect, it } from "vitest";
import { base64url, exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from "jose";
import type { Env } from "../../src/index.js";
import { env as workerEnv } from "cloudflare:workers";
import { scriptModel } from "../support/model-script.js";
import { call, codeDefinedOnly, JSON_BODY, upgradeSocket } from "./worker-client.js";

const AUD = "agno-test";
const ISS = "https://issuer.test";
const now = () => Math.floor(Date.now() / 1000);

interface Keys {
  rsa: CryptoKeyPair;
  rsaPem: string;
  other: CryptoKeyPair;
  retired: CryptoKeyPair;
  secret: Uint8Array;
  env: Partial<Env>;
}

let k: Keys;

beforeAll(async () => {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const other = await generateKeyPair("RS256", { extractable: true });
  const retired = await generateKeyPair("ES256", { extractable: true });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const rsaPem = await exportSPKI(rsa.publicKey);
  const keys = [
    { pem: rsaPem, kid: "rsa-1" },
    { ...(await exportJWK(retired.publicKey)), kid: "es-old" },
    { kty: "oct", k: base64url.encode(secret), kid: "hs-1" },
  ];
  k = {
    rsa,
    rsaPem,
    other,
    retired,
    secret,
    env: {
      OS_SECURITY_KEY: undefined,
      JWT_VERIFICATION_KEYS: JSON.stringify(keys),
      JWT_AUDIENCE: AUD,
      JWT_ISSUER: ISS,
    },
  };
});

const claims = (extra: JWTPayload = {}): JWTPayload => ({
  sub: "user-1",
  aud: AUD,
  iss: ISS,
  exp: now() + 600,
  iat: now(),
  scopes: ["agent_os:admin"],
  ...extra,
});

async function rs(
  payload: JWTPayload = claims(),
  header: Record<string, unknown> = { alg: "RS256", kid: "rsa-1" },
  key: CryptoKey = k.rsa.privateKey,
) {
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(key);
}
async function hs(
  payload: JWTPayload = claims(),
  header: Record<string, unknown> = { alg: "HS256", kid: "hs-1" },
  secret: Uint8Array = k.secret,
) {
  return new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(secret);
}
const withoutExp = () => {
  const c = claims();
  delete c.exp;
  return c;
};
const tamperPayload = (token: string) => {
  const [h, , s] = token.split(".");
  return `${h}.${base64url.encode(JSON.stringify(claims({ sub: "mallory" })))}.${s}`;
};
const tamperSignature = (token: string) => token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");

type Case = [name: string, token: () => Promise<string> | string, expected: number];

/** The same attacks against the asymmetric and the symmetric key. */
function suite(kind: "RS256" | "HS256"): Case[] {
  const sign = kind === "RS256" ? rs : hs;
  const kid = kind === "RS256" ? "rsa-1" : "hs-1";
  return [
    [`${kind}: a valid token`, () => sign(), 200],
    [`${kind}: alg none`, () => new UnsecuredJWT(claims()).encode(), 401],
    [`${kind}: expired`, () => sign(claims({ exp: now() - 3600 })), 401],
    [`${kind}: expired within the clock tolerance`, () => sign(claims({ exp: now() - 10 })), 200],
    [`${kind}: not yet valid`, () => sign(claims({ nbf: now() + 3600 })), 401],
    [`${kind}: no exp`, () => sign(withoutExp()), 401],
    [`${kind}: wrong audience`, () => sign(claims({ aud: "someone-else" })), 401],
    [`${kind}: no audience`, () => sign(claims({ aud: undefined })), 401],
    [`${kind}: wrong issuer`, () => sign(claims({ iss: "https://evil.test" })), 401],
    [`${kind}: tampered payload`, async () => tamperPayload(await sign()), 401],
    [`${kind}: tampered signature`, async () => tamperSignature(await sign()), 401],
    [`${kind}: scopes as a string`, () => sign(claims({ scopes: "agent_os:admin" as unknown as string[] })), 401],
    [
      `${kind}: scopes with a non-string`,
      () => sign(claims({ scopes: ["sessions:read", 7] as unknown as string[] })),
      401,
    ],
    [`${kind}: no subject`, () => sign(claims({ sub: undefined })), 401],
    [`${kind}: reserved subject *`, () => sign(claims({ sub: "*" })), 401],
    [`${kind}: service-account subject sa:`, () => sign(claims({ sub: "sa:deployer" })), 401],
    [`${kind}: MCP OAuth client subject __oauth__:`, () => sign(claims({ sub: "__oauth__:client-1" })), 401],
    [`${kind}: scheduler subject __scheduler__`, () => sign(claims({ sub: "__scheduler__" })), 401],
    // agno matches reserved principals case-sensitively and by exact prefix or name.
    [`${kind}: subject SA: (other case, not reserved)`, () => sign(claims({ sub: "SA:deployer" })), 200],
    [`${kind}: subject __scheduler__x (not the exact name)`, () => sign(claims({ sub: "__scheduler__x" })), 200],
    [`${kind}: issued in the future`, () => sign(claims({ iat: now() + 3600 })), 401],
    [`${kind}: issued in the future within the clock tolerance`, () => sign(claims({ iat: now() + 10 })), 200],
    [`${kind}: subject with control characters`, () => sign(claims({ sub: "ann\n" })), 401],
    [`${kind}: session_id not a string`, () => sign(claims({ session_id: 42 })), 401],
    [`${kind}: oversized token`, () => sign(claims({ pad: "x".repeat(10_000) })), 401],
    [`${kind}: unknown kid`, () => sign(claims(), { alg: kind, kid: "nobody" }), 401],
    [`${kind}: no kid (tried with each key)`, () => sign(claims(), { alg: kind }), 200],
    [
      `${kind}: header alg changed`,
      async () => {
        const [, p, s] = (await sign()).split(".");
        return `${base64url.encode(JSON.stringify({ alg: kind === "RS256" ? "RS384" : "HS512", kid }))}.${p}.${s}`;
      },
      401,
    ],
  ];
}

const shared: Case[] = [
  [
    "HS/RS confusion: HS256 signed with the RSA public key",
    () => hs(claims(), { alg: "HS256", kid: "rsa-1" }, new TextEncoder().encode(k.rsaPem)),
    401,
  ],
  ["a key that is not configured", () => rs(claims(), { alg: "RS256", kid: "rsa-1" }, k.other.privateKey), 401],
  [
    "a rotated-in key (second in the list) by kid",
    async () => new SignJWT(claims()).setProtectedHeader({ alg: "ES256", kid: "es-old" }).sign(k.retired.privateKey),
    200,
  ],
  [
    "a wrong HS secret",
    () => hs(claims(), { alg: "HS256", kid: "hs-1" }, crypto.getRandomValues(new Uint8Array(32))),
    401,
  ],
  ["two segments", () => "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0", 401],
  ["four segments", async () => `${await hs()}.extra`, 401],
  ["not base64", () => "###.###.###", 401],
  ["a JWE-shaped token", () => "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aaaa.bbbb.cccc", 401],
  ["an empty bearer", () => "", 401],
];

describe("JWT authentication: a table of bad tokens, all 401, none a 500", () => {
  const cases = () => [...suite("RS256"), ...suite("HS256"), ...shared];
  it("has at least 40 cases", () => {
    expect(cases().length).toBeGreaterThanOrEqual(40);
  });
  it.each([...suite("RS256"), ...suite("HS256"), ...shared].map((c) => [c[0], c] as const))(
    "%s",
    async (_name, [, token, expected]) => {
      const res = await call("/sessions", {}, k.env, { authorization: `Bearer ${await token()}` });
      expect(res.status).toBe(expected);
      if (expected === 401) expect(res.body).toMatchObject({ error_id: "unauthorized", detail: expect.any(String) });
    },
  );

  it.each(
    cases()
      .filter((c) => c[2] === 401)
      .map((c) => [c[0], c] as const),
  )("the WebSocket upgrade refuses it too: %s", async (_name, [, token]) => {
    const { res, ws } = await upgradeSocket(k.env, { authorization: `Bearer ${await token()}` });
    expect(ws).toBeNull();
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error_id: "unauthorized", detail: expect.any(String) });
  });

  it("takes the scheme case-insensitively and refuses other schemes", async () => {
    expect((await call("/sessions", {}, k.env, { authorization: `bearer ${await rs()}` })).status).toBe(200);
    expect((await call("/sessions", {}, k.env, { authorization: `Basic ${await rs()}` })).status).toBe(401);
    expect((await call("/sessions", {}, k.env, {})).status).toBe(401);
  });

  it("refuses a key removed from the configuration (rotated out)", async () => {
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: "ES256", kid: "es-old" })
      .sign(k.retired.privateKey);
    const keys = (JSON.parse(k.env.JWT_VERIFICATION_KEYS!) as Array<{ kid?: string }>).filter(
      (x) => x.kid !== "es-old",
    );
    const rotated = { ...k.env, JWT_VERIFICATION_KEYS: JSON.stringify(keys) };
    expect((await call("/sessions", {}, rotated, { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it("stays closed when the configured keys do not parse", async () => {
    const broken = { ...k.env, JWT_VERIFICATION_KEYS: "[not json" };
    expect((await call("/sessions", {}, broken, { authorization: `Bearer ${await rs()}` })).status).toBe(401);
  });
});

describe("RBAC with agno's scope grammar", () => {
  const asUser = async (scopes: string[], sub = "user-1") => ({
    authorization: `Bearer ${await rs(claims({ sub, scopes }))}`,
  });

  it("403 for a missing scope, with the scope named; 200 with it", async () => {
    const none = await call("/sessions", {}, k.env, await asUser([]));
    expect(none).toMatchObject({
      status: 403,
      body: { error_id: "forbidden", detail: expect.stringMatching(/sessions:read/) },
    });
    expect((await call("/sessions", {}, k.env, await asUser(["sessions:read"]))).status).toBe(200);
    expect(
      (
        await call(
          "/sessions",
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ agent_id: "a" }) },
          k.env,
          await asUser(["sessions:read"]),
        )
      ).status,
    ).toBe(403);
  });

  it("accepts system:read as config:read, and agent_os:admin for everything", async () => {
    expect((await call("/config", {}, k.env, await asUser(["config:read"]))).status).toBe(200);
    expect((await call("/config", {}, k.env, await asUser(["system:read"]))).status).toBe(200);
    expect((await call("/config", {}, k.env, await asUser(["sessions:read"]))).status).toBe(403);
    expect(
      (await call("/databases/all/migrate", { method: "POST" }, k.env, await asUser(["system:read"]))).status,
    ).toBe(403);
    expect(
      (await call("/databases/all/migrate", { method: "POST" }, k.env, await asUser(["system:write"]))).status,
    ).toBe(200);
    expect((await call("/config", {}, k.env, await asUser(["agent_os:admin"]))).status).toBe(200);
  });

  it("only the exact agent_os:admin is admin: agent_os:*:admin and other shapes pass no admin route", async () => {
    for (const scopes of [
      ["agent_os:*:admin"],
      ["agent_os:admin:x"],
      ["agent_os:x:admin"],
      ["Agent_OS:admin"],
      ["agent_os:admin "],
      ["agent_os:*"],
      ["*:*:*"],
      ["*:admin"],
    ]) {
      for (const path of ["/queue/jobs", "/queue/stats"]) {
        const res = await call(path, {}, k.env, await asUser(scopes));
        expect({ scopes, path, status: res.status }).toEqual({ scopes, path, status: 403 });
      }
      expect({ scopes, status: (await call("/config", {}, k.env, await asUser(scopes))).status }).toEqual({
        scopes,
        status: 403,
      });
    }
    expect((await call("/queue/stats", {}, k.env, await asUser(["agent_os:admin"]))).status).toBe(200);
  });

  it("follows agno's grammar: wildcards and the system alias in three-part scopes, instance scopes only for agents", async () => {
    // resource:*:action is the whole family, as resource:action; system: is config: in every shape.
    expect((await call("/config", {}, k.env, await asUser(["config:*:read"]))).status).toBe(200);
    expect((await call("/config", {}, k.env, await asUser(["system:*:read"]))).status).toBe(200);
    expect((await call("/sessions", {}, k.env, await asUser(["sessions:*:read"]))).status).toBe(200);
    // A named instance of a family agno grants only as a whole grants nothing (agno: sessions:<id>:read matches no route).
    expect((await call("/sessions/s1", {}, k.env, await asUser(["sessions:s1:read"]))).status).toBe(403);
    expect((await call("/sessions", {}, k.env, await asUser(["sessions:s1:read"]))).status).toBe(403);
    expect((await call("/config", {}, k.env, await asUser(["config:x:read"]))).status).toBe(403);
    // Four parts, or the action in the wrong place, are not scopes.
    expect((await call("/agents/assistant", {}, k.env, await asUser(["agents:assistant:read:x"]))).status).toBe(403);
    expect((await call("/agents/assistant", {}, k.env, await asUser(["read:agents"]))).status).toBe(403);
    expect((await call("/agents/assistant", {}, k.env, await asUser(["agents:assistant:read"]))).status).toBe(200);
    // The documentation names the scope the check applies.
    const doc = (await call("/openapi.json", {}, k.env, await asUser(["config:read"]))).body;
    expect(doc.paths["/sessions/{session_id}"].get["x-required-scope"]).toBe("sessions:read");
    expect(doc.paths["/agents/{agent_id}"].get["x-required-scope"]).toBe("agents:{agent_id}:read");
  });

  it("per-resource scopes filter lists instead of refusing them", async () => {
    expect((await call("/agents", {}, k.env, await asUser([]))).body).toEqual([]);
    expect(
      (await call("/agents", {}, k.env, await asUser(["agents:assistant:read"]))).body.map((a: { id: string }) => a.id),
    ).toEqual(["assistant"]);
    // Components other files store in the shared database are listed too: the code-defined ones are checked.
    const all = (await call("/agents", {}, k.env, await asUser(["agents:*:read"]))).body as Array<{ id: string }>;
    expect((await codeDefinedOnly(all)).map((a) => a.id)).toEqual(["assistant"]);
    expect((await call("/agents/assistant", {}, k.env, await asUser(["agents:other:read"]))).status).toBe(403);
    expect(
      (
        await call(
          "/agents/assistant/runs",
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "hi", stream: false }) },
          k.env,
          await asUser(["agents:assistant:read"]),
        )
      ).status,
    ).toBe(403);
    // As agno declares them, reading an agent's runs (list, poll, checkpoints) needs its run scope too.
    for (const path of ["/agents/assistant/runs?session_id=s1", "/agents/assistant/runs/r1/checkpoints?session_id=s1"])
      expect((await call(path, {}, k.env, await asUser(["agents:assistant:read"]))).status, path).toBe(403);
    expect((await call("/agents/assistant/runs/r1", {}, k.env, await asUser(["agents:assistant:run"]))).status).toBe(
      404,
    );
  });
});

describe("per-user isolation with AGNO_USER_ISOLATION=true", () => {
  const isolated = () => ({ ...k.env, AGNO_USER_ISOLATION: "true" });
  const as = async (sub: string) => ({
    authorization: `Bearer ${await rs(claims({ sub, scopes: ["sessions:read", "sessions:write", "sessions:delete", "agents:*:run", "agents:*:read"] }))}`,
  });

  it("a user never reads, lists, renames or deletes another user's sessions: 404, not 403", async () => {
    const a = await as("iso-a");
    const b = await as("iso-b");
    const created = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ agent_id: "assistant", user_id: "iso-b", session_name: "A's" }),
      },
      isolated(),
      a,
    );
    expect(created.status).toBe(201);
    expect(created.body.user_id).toBe("iso-a"); // the token's subject, not the body's user_id
    const sid = created.body.session_id as string;
    expect((await call(`/sessions/${sid}`, {}, isolated(), b)).status).toBe(404);
    expect((await call(`/sessions/${sid}/runs`, {}, isolated(), b)).status).toBe(404);
    expect(
      (
        await call(
          `/sessions/${sid}/rename`,
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_name: "mine now" }) },
          isolated(),
          b,
        )
      ).status,
    ).toBe(404);
    expect((await call(`/sessions/${sid}`, { method: "DELETE" }, isolated(), b)).status).toBe(404);
    // B's view: B's own rows and shared ones (other test files make shared rows), never A's.
    const seenByB = (await call(`/sessions?user_id=iso-a&limit=1000`, {}, isolated(), b)).body.data as Array<{
      session_id: string;
      user_id?: string;
    }>;
    // A shared row has no user_id key (agno leaves None out of this list).
    expect(seenByB.filter((s) => s.user_id !== undefined && s.user_id !== "iso-b")).toEqual([]);
    expect(seenByB.map((s) => s.session_id)).not.toContain(sid);
    expect(
      (await call(`/sessions`, {}, isolated(), a)).body.data.map((s: { session_id: string }) => s.session_id),
    ).toContain(sid);
    expect((await call(`/sessions/${sid}`, {}, isolated(), a)).body.session_name).toBe("A's");
  });

  it("a user never reads, cancels or continues another user's runs", async () => {
    const script = await scriptModel(workerEnv.MODEL_SERVER_URL, [{ text: "hello A" }]);
    const e = { ...isolated(), MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "k" };
    const a = await as("run-a");
    const b = await as("run-b");
    const run = await call(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "hi", stream: false, user_id: "run-b" }) },
      e,
      a,
    );
    expect(run.body).toMatchObject({ status: "COMPLETED", user_id: "run-a" });
    const id = run.body.run_id as string;
    expect((await call(`/agents/assistant/runs/${id}`, {}, e, a)).status).toBe(200);
    expect((await call(`/agents/assistant/runs/${id}`, {}, e, b)).status).toBe(404);
    expect((await call(`/agents/assistant/runs/${id}/cancel`, { method: "POST" }, e, b)).status).toBe(404);
    expect(
      (
        await call(
          `/agents/assistant/runs/${id}/continue`,
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ requirements: [] }) },
          e,
          b,
        )
      ).status,
    ).toBe(404);
    // agno lists an agent's runs by session: A's session is not found for B, whoever B names.
    for (const query of ["", "&user_id=run-a"]) {
      const listedByB = await call(`/agents/assistant/runs?session_id=${run.body.session_id}${query}`, {}, e, b);
      expect({ status: listedByB.status, body: JSON.stringify(listedByB.body) }).toEqual({
        status: 404,
        body: expect.not.stringContaining(id),
      });
    }
    expect((await call(`/sessions/${run.body.session_id}/runs`, {}, e, b)).status).toBe(404);
    // Another user cannot start a run in A's session either.
    const hijack = await call(
      "/agents/assistant/runs",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "mine", stream: false, session_id: run.body.session_id }),
      },
      e,
      b,
    );
    expect(hijack.status).toBe(404);
    const streamed = await call(
      "/agents/assistant/runs",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "mine", session_id: run.body.session_id }),
      },
      e,
      b,
    );
    expect(streamed.status).toBe(404);
  });

  it("shared rows (no owner) are read by every user and edited only by admins", async () => {
    const admin = { authorization: `Bearer ${await rs(claims({ sub: "root", scopes: ["agent_os:admin"] }))}` };
    const a = await as("shared-a");
    const created = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ agent_id: "assistant", session_name: "Team handbook" }),
      },
      isolated(),
      admin,
    );
    expect(created.body).not.toHaveProperty("user_id");
    const sid = created.body.session_id as string;
    expect((await call(`/sessions/${sid}`, {}, isolated(), a)).status).toBe(200);
    expect(
      (await call(`/sessions`, {}, isolated(), a)).body.data.map((s: { session_id: string }) => s.session_id),
    ).toContain(sid);
    expect(
      (
        await call(
          `/sessions/${sid}/rename`,
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_name: "mine" }) },
          isolated(),
          a,
        )
      ).status,
    ).toBe(404);
    expect((await call(`/sessions/${sid}`, { method: "DELETE" }, isolated(), a)).status).toBe(404);
    expect(
      (
        await call(
          `/sessions/${sid}/rename`,
          { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_name: "Handbook v2" }) },
          isolated(),
          admin,
        )
      ).body.session_name,
    ).toBe("Handbook v2");
  });
});
