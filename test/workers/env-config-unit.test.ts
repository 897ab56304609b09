import { describe, expect, it } from "vitest";
import { readEnvConfig, type WorkerEnv } from "../../src/worker/env-config.js";

const queue = {} as NonNullable<WorkerEnv["JOB_QUEUE"]>;

describe("readEnvConfig", () => {
  it("fills in the README's defaults", () => {
    const read = readEnvConfig({ DATABASE_URL: "postgres://x", JOB_QUEUE: queue });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.config).toMatchObject({
      auth: { mode: "unconfigured" },
      queueBound: true,
      queue: { concurrency: 32, maxDepth: 10_000, leaseSeconds: 30, shards: 1, dbConnections: 36 },
      quotas: { maxJobsPerUser: 1000, maxSchedulesPerUser: 100, maxWebSocketsPerUser: 20 },
      db: { connectTimeoutMs: 5000, statementTimeoutMs: 10_000 },
      runEventsTtlSeconds: 86_400,
      heartbeatSeconds: 10,
      ssePingMs: 15_000,
    });
  });

  it("takes given values, and picks the auth mode: JWT over the key over AGNO_AUTH=none", () => {
    const read = readEnvConfig({
      AGNO_BACKGROUND_MAX_CONCURRENCY: " 8 ",
      AGNO_QUEUE_DB_CONNECTIONS: "6",
      AGNO_SSE_PING_SECONDS: "2",
      OS_SECURITY_KEY: "k",
      AGNO_AUTH: "none",
      MODEL: "ollama:llama3.2:3b",
    });
    expect(read.ok && read.config).toMatchObject({
      queue: { concurrency: 8, dbConnections: 6 },
      ssePingMs: 2000,
      auth: { mode: "security_key" },
      model: "ollama:llama3.2:3b",
      queueBound: false,
    });
    expect(readEnvConfig({ AGNO_AUTH: "none" })).toMatchObject({ ok: true, config: { auth: { mode: "none" } } });
    const secret = btoa("x".repeat(32)).replace(/=+$/, "");
    const jwt = readEnvConfig({
      OS_SECURITY_KEY: "k",
      JWT_VERIFICATION_KEYS: JSON.stringify({ kty: "oct", k: secret }),
      AGNO_USER_ISOLATION: "true",
    });
    expect(jwt).toMatchObject({ ok: true, config: { auth: { mode: "jwt", userIsolation: true } } });
  });

  it("names every bad variable in one error, once each, without their values", () => {
    const read = readEnvConfig({
      AGNO_QUEUE_MAX_DEPTH: "lots",
      AGNO_QUEUE_SHARDS: "0",
      AGNO_DB_CONNECT_TIMEOUT_MS: "1e3",
      AGNO_USER_ISOLATION: "yes",
      JWT_VERIFICATION_KEYS: "secret-value-not-json",
      MODEL: "workers-ai:@cf/m",
      JOB_QUEUE: queue,
    });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.problems.map((p) => p.variable).sort()).toEqual([
      "AGNO_DB_CONNECT_TIMEOUT_MS",
      "AGNO_QUEUE_MAX_DEPTH",
      "AGNO_QUEUE_SHARDS",
      "AGNO_USER_ISOLATION",
      "DATABASE_URL",
      "JWT_VERIFICATION_KEYS",
      "MODEL",
    ]);
    expect(read.error.message).not.toContain("secret-value");
    expect(read.error.concernsAuth).toBe(true);
  });

  it("refuses settings that contradict each other", () => {
    const problems = (env: WorkerEnv) =>
      ((r) => (r.ok ? [] : r.error.problems.map((p) => p.variable)))(readEnvConfig(env));
    expect(problems({ JOB_QUEUE: queue })).toEqual(["DATABASE_URL"]);
    expect(problems({ MODEL: "workers-ai:@cf/m" })).toEqual(["MODEL"]);
    expect(problems({ MODEL: "workers-ai:@cf/m", AI: {} })).toEqual([]);
    expect(problems({ AGNO_USER_ISOLATION: "true", OS_SECURITY_KEY: "k" })).toEqual(["AGNO_USER_ISOLATION"]);
    expect(problems({ JWT_AUDIENCE: "aud" })).toEqual(["JWT_AUDIENCE"]);
    expect(problems({ XAI_TOKEN_ENCRYPTION_KEY: FERNET_KEY })).toEqual(["DATABASE_URL"]);
  });

  it("turns SuperGrok sign-in on with a Fernet key, and refuses a key that is not one without quoting it", () => {
    const on = readEnvConfig({ DATABASE_URL: "postgres://x", XAI_TOKEN_ENCRYPTION_KEY: FERNET_KEY });
    expect(on).toMatchObject({ ok: true, config: { xai: { encryptionKey: FERNET_KEY } } });
    const off = readEnvConfig({ DATABASE_URL: "postgres://x" });
    expect(off.ok && off.config.xai).toBeUndefined();
    for (const bad of ["not-a-key", FERNET_KEY.slice(0, 40), "A".repeat(44)]) {
      const read = readEnvConfig({ DATABASE_URL: "postgres://x", XAI_TOKEN_ENCRYPTION_KEY: bad });
      expect(read.ok).toBe(false);
      if (read.ok) continue;
      expect(read.error.problems.map((p) => p.variable)).toEqual(["XAI_TOKEN_ENCRYPTION_KEY"]);
      expect(read.error.message).not.toContain(bad);
    }
  });
});

/** 32 bytes in URL-safe base64, as generateEncryptionKey() writes a Fernet key. */
const FERNET_KEY = "d29ya2Vycy10ZXN0LXhhaS1mZXJuZXQta2V5LTMyYnk=";
