import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "@neondatabase/serverless";
import { afterAll, describe, expect, inject, it } from "vitest";
import ws from "ws";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { startDev, type DevServer } from "../support/dev-server.js";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

/**
 * Database outages through the real runtime: `npm run dev` whose DATABASE_URL is a fault proxy in
 * front of the database (the embedded Postgres, and the real server when TEST_DATABASE_URL is set).
 * The proxy closes its port, then swallows connections without answering, then forwards again; the
 * runtime must answer 503 `database_unavailable` promptly in the first case, within its configured
 * timeouts in the second, say so in /health, never report a migration it could not make, and come
 * back by itself in the third: jobs and schedules waiting through the outage then run.
 */

const CONNECT_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 2_000;
/** The longest a request may take when the database does not answer: both timeouts (a connect, then a statement), twice over. */
const BOUNDED_MS = 2 * (CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS);
const JSON_BODY = { "content-type": "application/json" };

const targets = [
  { name: "pglite", url: inject("pgliteUrl") },
  ...(inject("realPgUrl") ? [{ name: "postgresql", url: inject("realPgUrl") }] : []),
];
const dataDirs: string[] = [];
afterAll(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
  ms: number;
}

describe.each(targets)("database outage on $name", (target) => {
  it("answers 503 database_unavailable (refused, then blackholed), reports it in /health and migrate, and recovers by itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agno-outage-"));
    dataDirs.push(dir);
    const schema = `outage_${process.pid}_${target.name}`;
    const fault: FaultProxy = await startFaultProxy(target.url);
    // Job A answers slowly, so with one job at a time job B is still queued when the database goes.
    const slow = { text: "A done", delayMs: 1_500 };
    const script = await scriptModel(inject("modelServerUrl"), [
      slow,
      { text: "done" },
      { text: "done" },
      { text: "done" },
      { text: "done" },
      { text: "done" },
    ]);
    let dev: DevServer | undefined;
    try {
      dev = await startDev(
        {
          DATABASE_URL: fault.url,
          AGNO_DEV_DATA: dir,
          AGNO_DB_SCHEMA: schema,
          MODEL: "openai:gpt-test",
          OPENAI_BASE_URL: script.baseURL,
          OPENAI_API_KEY: "sk-local",
          AGNO_BACKGROUND_MAX_CONCURRENCY: "1",
          AGNO_QUEUE_LEASE_SECONDS: "3",
          // The test fires the cron trigger itself, at the moments it means to.
          AGNO_DEV_CRON: "off",
        },
        [
          "--test-scheduled",
          "--var",
          `AGNO_DB_CONNECT_TIMEOUT_MS:${CONNECT_TIMEOUT_MS}`,
          "--var",
          `AGNO_DB_STATEMENT_TIMEOUT_MS:${STATEMENT_TIMEOUT_MS}`,
        ],
      );
      const url = dev.url;
      /** A request that never answers fails the test after `limit` instead of hanging it. */
      const api = async (method: string, path: string, body?: unknown, limit = 60_000): Promise<Answer> => {
        const started = performance.now();
        const res = await fetch(`${url}${path}`, {
          method,
          signal: AbortSignal.timeout(limit),
          ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return {
          status: res.status,
          headers: res.headers,
          body: res.headers.get("content-type")?.includes("json")
            ? (JSON.parse(text) as Record<string, unknown>)
            : null,
          ms: performance.now() - started,
        };
      };
      const fire = () => api("GET", "/__scheduled?cron=*+*+*+*+*", undefined, BOUNDED_MS * 3);
      const expectUnavailable = (answer: Answer, what: string) => {
        expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
        expect(answer.body, what).toMatchObject({ error_id: "database_unavailable" });
        expect(Number(answer.headers.get("retry-after")), `${what}: Retry-After`).toBeGreaterThan(0);
      };

      // Up: the database routes work and /health says so.
      expect((await api("GET", "/sessions")).status).toBe(200);
      expect((await api("GET", "/health")).body).toMatchObject({
        status: "ok",
        databases: [{ id: "default", status: "ok" }],
      });
      const schedule = await api("POST", "/schedules", {
        name: "through-the-outage",
        cron_expr: "* * * * *",
        endpoint: "/agents/assistant/runs",
        payload: { message: "scheduled" },
      });
      expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
      const scheduleId = schedule.body!.id as string;
      // Due a minute ago; only the cron trigger dispatches it, and it fires next during the outage.
      expect(
        (await api("PATCH", `/schedules/${scheduleId}`, { next_run_at: Math.floor(Date.now() / 1000) - 60 })).status,
      ).toBe(200);
      const enqueue = (message: string) =>
        api("POST", "/agents/assistant/runs", { message, background: true, stream: false });
      const jobA = await enqueue("job A");
      const jobB = await enqueue("job B");
      expect([jobA.status, jobB.status]).toEqual([202, 202]);
      const job = (j: Answer) => api("GET", `/queue/jobs/${j.body!.run_id as string}`);
      await until(
        () => job(jobA),
        (j) => j.body?.status === "running",
        "job A to start",
        { ms: 30_000 },
      );

      // Refused (the port is closed): every database route answers 503 at once, before any timeout could fire.
      await fault.set("refuse");
      for (const [method, path] of [
        ["GET", "/sessions"],
        ["GET", "/agents/assistant/runs?session_id=none"],
        ["GET", `/schedules/${scheduleId}`],
        ["GET", "/queue/stats"],
      ] as const) {
        const answer = await api(method, path, undefined, BOUNDED_MS * 3);
        expectUnavailable(answer, `${method} ${path} (refused)`);
        expect(answer.ms, `${method} ${path} (refused) answers before the connect timeout`).toBeLessThan(
          CONNECT_TIMEOUT_MS,
        );
      }
      expectUnavailable(await enqueue("while refused"), "background run (refused)");
      expectUnavailable(
        await api("POST", "/databases/default/migrate", undefined, BOUNDED_MS * 3),
        "migrate one (refused)",
      );
      expectUnavailable(
        await api("POST", "/databases/all/migrate", undefined, BOUNDED_MS * 3),
        "migrate all (refused)",
      );
      const health = await until(
        () => api("GET", "/health", undefined, BOUNDED_MS * 3),
        (h) => (h.body?.databases as { status: string }[] | undefined)?.[0]?.status === "unavailable",
        "/health to report the database down",
        { ms: 20_000, every: 500 },
      );
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: "degraded", databases: [{ id: "default", status: "unavailable" }] });
      expectUnavailable(
        await api("PATCH", `/schedules/${scheduleId}`, { name: "renamed" }, BOUNDED_MS * 3),
        "a write (refused)",
      );

      // Blackholed (connections accepted, never answered): 503 within the configured timeouts instead of hanging.
      await fault.set("blackhole");
      for (const [method, path] of [
        ["GET", "/sessions"],
        ["GET", `/schedules/${scheduleId}`],
      ] as const) {
        const answer = await api(method, path, undefined, BOUNDED_MS * 3);
        expectUnavailable(answer, `${method} ${path} (blackholed)`);
        expect(answer.ms, `${method} ${path} (blackholed) answers within the configured timeouts`).toBeLessThan(
          BOUNDED_MS,
        );
      }
      const blackholedEnqueue = await enqueue("while blackholed");
      expectUnavailable(blackholedEnqueue, "background run (blackholed)");
      expect(blackholedEnqueue.ms).toBeLessThan(BOUNDED_MS);
      const blackholedMigrate = await api("POST", "/databases/default/migrate", undefined, BOUNDED_MS * 3);
      expectUnavailable(blackholedMigrate, "migrate (blackholed)");
      expect(blackholedMigrate.ms).toBeLessThan(BOUNDED_MS);
      const tick = await fire();
      // One wait for the database, not one per step of the tick.
      expect(tick.ms, "a cron tick with the database blackholed stops after its first wait").toBeLessThan(
        CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS,
      );
      const blackholedHealth = await api("GET", "/health", undefined, BOUNDED_MS * 3);
      expect(blackholedHealth.ms).toBeLessThan(BOUNDED_MS);
      expect(blackholedHealth.body).toMatchObject({
        status: "degraded",
        databases: [{ id: "default", status: "unavailable" }],
      });

      // Back: routes work at once, /health follows, and what waited through the outage runs without anyone's help.
      await fault.set("forward");
      expect((await api("GET", "/sessions")).status).toBe(200);
      await until(
        () => api("GET", "/health"),
        (h) => h.body?.status === "ok",
        "/health to report the database back",
        { ms: 20_000, every: 500 },
      );
      for (const j of [jobA, jobB]) {
        const done = await until(
          () => job(j),
          (r) => r.body?.status === "completed" || r.body?.status === "failed",
          `job ${j.body!.run_id as string} to end`,
          { ms: 120_000, every: 500, retryErrors: true },
        );
        expect(done.body).toMatchObject({ status: "completed" });
      }
      // The next tick dispatches the schedule that fell due while the database was away.
      await fire();
      const [attempt] = (
        await until(
          () => api("GET", `/schedules/${scheduleId}/runs`),
          (r) => (r.body?.data as unknown[]).length > 0,
          "the schedule's dispatch",
          { ms: 60_000, every: 500 },
        )
      ).body!.data as { run_id: string }[];
      const run = await until(
        () => api("GET", `/agents/assistant/runs/${attempt!.run_id}`),
        (r) => r.body?.status === "COMPLETED",
        "the scheduled run",
        { ms: 60_000, every: 500 },
      );
      expect(run.body).toMatchObject({ status: "COMPLETED", content: "done" });

      // Meanwhile the queue object backed off instead of looping on failing claims: each retry
      // waited twice as long as the one before (up to its cap), and nothing crashed.
      const delays = [
        ...dev.output().matchAll(/job queue: the database is unavailable; claiming again in (\d+) s/g),
      ].map((m) => Number(m[1]));
      expect(delays.length, "the queue's alarm found the database down").toBeGreaterThanOrEqual(2);
      expect(delays).toEqual(delays.map((_, i) => Math.min(30, 2 ** i)));
      expect(dev.output()).not.toMatch(/Uncaught/);
    } catch (error) {
      console.log(`[db-outage ${target.name}] dev output:\n${dev?.output().slice(-6_000)}`);
      throw error;
    } finally {
      if (dev) expect(await dev.stop()).toBe(0);
      await fault.stop();
      await dropSchema(target.url, schema);
    }
  }, 300_000);
});

/** The databases outlive the test (the real server, the suite's embedded one): the schema it made goes. */
async function dropSchema(url: string, schema: string) {
  useLocalWsProxy(inject("wsProxy"), ws);
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
}
