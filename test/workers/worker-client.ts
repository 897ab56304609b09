import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import worker, { type Env } from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import type { AgentOS } from "../../src/os/agent-os.js";
import { scriptModel, type Turn } from "../support/model-script.js";

export const KEY = env.OS_SECURITY_KEY;
export const auth = { authorization: `Bearer ${KEY}` };

// One env object per override set, so the Worker's per-env AgentOS cache behaves as in production.
const envs = new Map<string, Env>();
export function envFor(overrides: Partial<Env>): Env {
  const key = JSON.stringify(Object.entries(overrides).map(([k, v]) => [k, v ?? null]));
  if (!envs.has(key)) envs.set(key, { ...env, ...overrides });
  return envs.get(key)!;
}

/** Sends a request through the Worker's own fetch handler, as the runtime does. */
export async function send(
  path: string,
  init: RequestInit = {},
  overrides: Partial<Env> = {},
  headers: Record<string, string> = auth,
): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`http://agno.test${path}`, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, envFor(overrides), ctx);
  const body = await response.text();
  await waitOnExecutionContext(ctx);
  return new Response(body, { status: response.status, headers: response.headers });
}

/** `send`, with the JSON body parsed. */
export async function call(
  path: string,
  init: RequestInit = {},
  overrides: Partial<Env> = {},
  headers: Record<string, string> = auth,
) {
  const response = await send(path, init, overrides, headers);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/**
 * Parses an SSE body into its frames, checking agno's framing on the way: `event:` then `data:`,
 * after the standard `id:` field with the event's position when the event has one.
 */
export function parseSse(text: string): Array<{ id?: number; event: string; data: Record<string, unknown> }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const id = lines[0]!.startsWith("id: ") ? Number(lines.shift()!.slice(4)) : undefined;
      if (lines.length !== 2 || !lines[0]!.startsWith("event: ") || !lines[1]!.startsWith("data: "))
        throw new Error(`not an agno SSE frame: ${block}`);
      if (id !== undefined && !Number.isInteger(id)) throw new Error(`not a position: ${block}`);
      return {
        ...(id === undefined ? {} : { id }),
        event: lines[0]!.slice(7),
        data: JSON.parse(lines[1]!.slice(6)) as Record<string, unknown>,
      };
    });
}

/** The header a JSON body needs (a string body is sent as text/plain otherwise, and refused). */
export const JSON_BODY = { "content-type": "application/json" };

/**
 * An AgentOS built with the SDK, served inside workerd as a Worker would: each request gets its
 * own Pool (a Neon Pool must not outlive its request) on the given schema.
 */
export function sdkFetch(os: AgentOS, schema: string) {
  useLocalWsProxy(env.DB_WS_PROXY);
  return async (path: string, init: RequestInit) => {
    const pool = new Pool({ connectionString: env.DATABASE_URL });
    const ctx = createExecutionContext();
    try {
      const res = await os.fetch(
        new Request(`http://os.test${path}`, init),
        { dbs: [new PostgresDb({ pool, schema })] },
        ctx,
      );
      const text = await res.text();
      await waitOnExecutionContext(ctx);
      return { status: res.status, text };
    } finally {
      await pool.end();
    }
  };
}

/** A form post, as agno's Python client sends runs. */
export const form = (fields: Record<string, string>) => ({
  method: "POST",
  body: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});

/** The Worker's env pointed at a scripted model, as `MODEL=… OPENAI_BASE_URL=… npm run dev` does. */
export async function modelEnv(turns: Turn[]) {
  const script = await scriptModel(env.MODEL_SERVER_URL, turns);
  return {
    script,
    env: { MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "sk-test" } as Partial<Env>,
  };
}

/**
 * A JWT deployment with per-user isolation, as a test's env overrides, and a bearer header
 * minter for it: an RS256 key pair made here, audience and issuer named after `name`.
 */
export async function isolatedJwt(name: string) {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const aud = `agno-${name}`;
  const iss = `https://issuer.${name}.test`;
  const env: Partial<Env> = {
    OS_SECURITY_KEY: undefined,
    JWT_VERIFICATION_KEYS: JSON.stringify([{ pem: await exportSPKI(rsa.publicKey), kid: name }]),
    JWT_AUDIENCE: aud,
    JWT_ISSUER: iss,
    AGNO_USER_ISOLATION: "true",
  };
  const bearer = async (sub: string, scopes: string[]) => {
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ sub, aud, iss, iat: now, exp: now + 3600, scopes })
      .setProtectedHeader({ alg: "RS256", kid: name })
      .sign(rsa.privateKey);
    return { authorization: `Bearer ${jwt}` };
  };
  return { env, bearer };
}

/**
 * Asks the Worker's fetch handler to upgrade `GET /ws` (or `path`, with `headers`, the security key by
 * default) and accepts the socket when it was upgraded; `ctx` is the request's execution context,
 * to wait on after closing.
 */
export async function upgradeSocket(overrides: Partial<Env>, headers: Record<string, string> = auth, path = "/ws") {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://agno.test${path}`, { headers: { ...headers, upgrade: "websocket" } }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    envFor(overrides),
    ctx,
  );
  res.webSocket?.accept();
  return { res, ws: res.webSocket, ctx };
}

/**
 * `list` without the stored components (components as data) that other test files publish into
 * the shared database: `/agents`, `/teams` and `/config` list those beside the code-defined ones.
 */
export async function codeDefinedOnly<T extends { id: string }>(list: T[], overrides: Partial<Env> = {}): Promise<T[]> {
  const stored = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await call(`/components?limit=100&page=${page}`, {}, overrides);
    if (res.status !== 200) throw new Error(`/components answered ${res.status}`);
    for (const c of res.body.data as Array<{ component_id: string }>) stored.add(c.component_id);
    if (page >= (res.body.meta?.total_pages ?? 1)) break;
  }
  return list.filter((item) => !stored.has(item.id));
}
