import { afterEach, describe, expect, it, vi } from "vitest";
import { auth, call } from "./worker-client.js";

/** A deployment whose settings are wrong, through the Worker's own fetch: closed, and one error names every bad variable. */
describe("a misconfigured deployment stays closed", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers protected routes 503 with one error naming every bad variable, logged once; public routes still answer", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const bad = {
      AGNO_QUEUE_MAX_DEPTH: "ten thousand",
      AGNO_USER_MAX_JOBS: "-3",
      AGNO_SSE_PING_SECONDS: "1.5",
      AGNO_DB_SCHEMA: "ai; drop table x",
    };
    const first = await call("/sessions", {}, bad);
    expect(first).toMatchObject({ status: 503, body: { error_id: "misconfigured" } });
    for (const name of Object.keys(bad)) expect(first.body.detail).toContain(name);
    // Not a silent fallback to the defaults: background runs, runs and the queue are all refused.
    expect(
      (
        await call(
          "/agents/assistant/runs",
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ message: "hi", stream: false }),
          },
          bad,
        )
      ).status,
    ).toBe(503);
    expect((await call("/queue/stats", {}, bad)).status).toBe(503);
    const health = await call("/health", {}, bad, {});
    expect(health).toMatchObject({
      status: 200,
      body: { status: "misconfigured", detail: expect.stringContaining("AGNO_QUEUE_MAX_DEPTH") },
    });
    expect((await call("/info", {}, bad, {})).status).toBe(200);
    const lines = logged.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("misconfigured"));
    expect(lines).toHaveLength(1);
    for (const name of Object.keys(bad)) expect(lines[0]).toContain(name);
  });

  it("answers 401 when the authentication settings are what is wrong, also with valid credentials of another kind", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const res = await call(
      "/sessions",
      {},
      { JWT_VERIFICATION_KEYS: '[{"kty":"oct","k":"c2hvcnQ"}]', AGNO_QUEUE_LEASE_SECONDS: "0" },
      auth,
    );
    expect(res).toMatchObject({ status: 401, body: { error_id: "unauthorized" } });
    expect(res.body.detail).toMatch(/JWT_VERIFICATION_KEYS.*32 bytes/);
    expect(res.body.detail).toContain("AGNO_QUEUE_LEASE_SECONDS");
    // AGNO_AUTH accepts only "none": a typo does not quietly leave auth as it was.
    expect((await call("/sessions", {}, { OS_SECURITY_KEY: undefined, AGNO_AUTH: "off" }, {})).body.detail).toMatch(
      /AGNO_AUTH must be "none"/,
    );
  });

  it("refuses contradictory settings: a queue binding without DATABASE_URL, workers-ai without the AI binding, isolation without JWT", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const noDb = await call("/sessions", {}, { DATABASE_URL: undefined });
    expect(noDb).toMatchObject({
      status: 503,
      body: { detail: expect.stringMatching(/DATABASE_URL is required by the JOB_QUEUE binding/) },
    });
    const noAi = await call("/sessions", {}, { MODEL: "workers-ai:@cf/x" });
    expect(noAi).toMatchObject({
      status: 503,
      body: { detail: expect.stringMatching(/MODEL names Workers AI .*\[ai\] binding/) },
    });
    const isolation = await call("/sessions", {}, { AGNO_USER_ISOLATION: "true" });
    expect(isolation).toMatchObject({
      status: 401,
      body: { detail: expect.stringMatching(/AGNO_USER_ISOLATION needs JWT_VERIFICATION_KEYS/) },
    });
  });

  it("serves as before once the settings are valid, with given limits applied", async () => {
    const ok = await call("/sessions", {}, { AGNO_QUEUE_MAX_DEPTH: "500", AGNO_SSE_PING_SECONDS: "20" });
    expect(ok.status).toBe(200);
  });
});
