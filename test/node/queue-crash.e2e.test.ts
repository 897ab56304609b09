import { Pool } from "@neondatabase/serverless";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { scriptModel, type RecordedRequest, type Turn } from "../support/model-script.js";
import { until } from "../support/until.js";
import {
  startOutlivingDatabase,
  startWranglerRuntime,
  type OutlivingDatabase,
  type WranglerRuntime,
} from "../support/wrangler-runtime.js";

/**
 * The durable queue against a real crash: `wrangler dev` (workerd, with persisted Durable Object
 * state) runs a few hundred background runs against a slow scripted model, and the whole runtime
 * process group is killed with SIGKILL at a random moment while jobs are in flight, then started
 * again on the same state and the same database. The database outlives the runtime, as Neon does
 * in production: the embedded Postgres and the WebSocket proxy live in this test process.
 *
 * Each cycle checks that every accepted job ends COMPLETED with its run, that nothing is lost, and
 * that only jobs in flight at the kill (RUNNING in the database once the runtime is dead) ran again,
 * at most once more each. The model's recorded requests say how often each job executed: every
 * job's message is unique.
 */

const CYCLES = 3;
const JOBS_PER_CYCLE = 120;
const LEASE_SECONDS = 3;
const CONCURRENCY = 32;
const ANSWER = "done with the job";
const JSON_BODY = { "content-type": "application/json" };

interface Accepted {
  key: string;
  job_id: string;
  run_id: string;
}

/** agno's QueueJobSchema, as much as this test reads: the job's id is its run's run_id. */
interface JobView {
  id: string;
  status: string;
  attempt: number;
  error: string | null;
}

interface Stats {
  pending: number;
  running: number;
  completed: number;
  failed: number;
  cancelled: number;
}

/** Runs `fn` over `items`, `width` at a time. */
async function pool<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/** The job a model request was made for: the key in its last user message. */
function keyOf(request: RecordedRequest): string | undefined {
  const messages = (request.body.messages ?? []) as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === "user").at(-1);
  const text = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
  return /c\d+ job \d+/.exec(text)?.[0];
}

describe("durable background runs survive kill -9 of the runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "agno-crash-"));
  const stateDir = join(dir, "wrangler");
  const runtimes = new Set<WranglerRuntime>();
  let db: OutlivingDatabase | undefined;
  // The test reads the database directly too (what was RUNNING when the runtime died), as dev.ts does.
  let direct: Pool | undefined;

  beforeAll(async () => {
    db = await startOutlivingDatabase(join(dir, "pglite"));
    direct = db.direct;
  }, 180_000);

  afterAll(async () => {
    for (const runtime of runtimes) await runtime.kill().catch(() => undefined);
    await db?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The example Worker under `wrangler dev`, on the test's database, with a short lease. */
  async function startRuntime(modelUrl: string): Promise<WranglerRuntime> {
    const runtime = await startWranglerRuntime({
      stateDir,
      vars: {
        DATABASE_URL: db!.url,
        DB_WS_PROXY: db!.proxyAddress,
        AGNO_AUTH: "none",
        MODEL: "openai:gpt-test",
        OPENAI_BASE_URL: `${modelUrl}/c/crash/v1`,
        OPENAI_API_KEY: "sk-crash",
        AGNO_QUEUE_LEASE_SECONDS: String(LEASE_SECONDS),
        AGNO_BACKGROUND_MAX_CONCURRENCY: String(CONCURRENCY),
      },
    });
    runtimes.add(runtime);
    return runtime;
  }

  const stats = async (url: string): Promise<Stats> => {
    const res = await fetch(`${url}/queue/stats`);
    if (!res.ok) throw new Error(`/queue/stats: ${res.status} ${await res.text()}`);
    // agno's stats count only the states some job is in.
    const { counts } = (await res.json()) as { counts: Partial<Record<string, number>> };
    return {
      pending: counts.queued ?? 0,
      running: counts.running ?? 0,
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      cancelled: counts.cancelled ?? 0,
    };
  };

  it(`completes every job across ${CYCLES} kill -9 / restart cycles, re-running only the jobs in flight`, async () => {
    const modelUrl = inject("modelServerUrl");
    const report: Record<string, unknown>[] = [];
    const accepted: Accepted[] = [];
    let runtime = await startRuntime(modelUrl);

    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // A slow model: runs are not streamed, so each answer is one reply after 0.5-1 s, slow enough
      // that a loaded machine still enqueues the cycle and sees it mid-way before the queue drains
      // it. Twice the turns needed, so re-executions never exhaust the script (and if they did, the
      // counts below say so).
      const turns: Turn[] = Array.from({ length: JOBS_PER_CYCLE * 2 }, () => ({
        text: ANSWER,
        delayMs: 500 + Math.floor(Math.random() * 500),
      }));
      const script = await scriptModel(modelUrl, turns, { channel: "crash" });
      const before = await stats(runtime.url);
      const cycleStart = Date.now();

      // Enqueue the cycle's jobs (the queue starts on them at once), each with a unique message.
      const keys = Array.from({ length: JOBS_PER_CYCLE }, (_, i) => `c${cycle} job ${i}`);
      const mine = await pool(keys, 8, async (key) => {
        const res = await fetch(`${runtime.url}/agents/assistant/runs`, {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ message: key, background: true, stream: false }),
        });
        const body = (await res.json()) as { job_id: string; run_id: string; status: string };
        expect(res.status, JSON.stringify(body)).toBe(202);
        expect(body.status).toBe("PENDING");
        return { key, job_id: body.job_id, run_id: body.run_id };
      });
      accepted.push(...mine);

      // A random moment while jobs run: once 5-60% of this cycle's jobs finished, plus a little jitter.
      const target = before.completed + Math.floor(JOBS_PER_CYCLE * (0.05 + Math.random() * 0.55));
      const seen = await until(
        () => stats(runtime.url),
        (s) => s.completed >= target || s.pending === 0,
        "the kill moment",
        { ms: 60_000, every: 50, retryErrors: true },
      );
      await sleep(Math.random() * 100);
      const killedAt = Date.now();
      await runtime.kill();

      // The runtime is gone; what it held is what the database still says is RUNNING. A statement
      // already on its way may still land while the proxy sees the sockets close: read until stable.
      const running = async () =>
        (
          await direct!.query<{ id: string; attempt: number }>(
            `SELECT id, attempt FROM ai.agno_jobs WHERE status = 'RUNNING' ORDER BY id`,
          )
        ).rows;
      let snapshot = await running();
      for (let same = 0; same < 2;) {
        await sleep(200);
        const again = await running();
        same = JSON.stringify(again) === JSON.stringify(snapshot) ? same + 1 : 0;
        snapshot = again;
      }
      const inFlight = new Map(snapshot.map((r) => [r.id, Number(r.attempt)]));
      const requestsBeforeRestart = (await script.requests()).length;
      expect(inFlight.size, "jobs were running when the runtime was killed").toBeGreaterThan(0);
      expect([...inFlight.values()].every((attempt) => attempt === 1)).toBe(true);

      // Restart on the same state and database; nothing wakes the queue but its own alarm.
      const restartedAt = Date.now();
      runtime = await startRuntime(modelUrl);
      const readyMs = Date.now() - restartedAt;
      // Recovery: the jobs the dead runtime held are claimed again once their leases lapse; then the rest.
      let inFlightRecoveredMs: number | undefined;
      const ids = [...inFlight.keys()];
      const done = await until(
        async () => {
          if (inFlightRecoveredMs === undefined) {
            const open = await direct!.query(
              `SELECT 1 FROM ai.agno_jobs WHERE id = ANY($1) AND status IN ('PENDING', 'RUNNING')`,
              [ids],
            );
            if (open.rows.length === 0) inFlightRecoveredMs = Date.now() - restartedAt;
          }
          return stats(runtime.url);
        },
        (s) => s.pending + s.running === 0,
        "every job to end after the restart",
        { ms: 120_000, retryErrors: true },
      );
      const recoveryMs = Date.now() - restartedAt;
      inFlightRecoveredMs ??= recoveryMs;

      // Every job of the cycle ended COMPLETED; those in flight were claimed once more, the others never.
      const jobs = await pool(
        mine,
        8,
        async ({ run_id }) => (await (await fetch(`${runtime.url}/queue/jobs/${run_id}`)).json()) as JobView,
      );
      for (const [i, job] of jobs.entries()) {
        expect(job, mine[i]!.key).toMatchObject({
          id: mine[i]!.run_id,
          status: "completed",
          attempt: inFlight.has(job.id) ? 2 : 1,
        });
      }
      expect(done).toMatchObject({ failed: 0, cancelled: 0, completed: before.completed + JOBS_PER_CYCLE });

      // Executions per job, from the model's side: one request per execution.
      const requests = await script.requests();
      const executions = new Map<string, number>(keys.map((k) => [k, 0]));
      for (const request of requests) {
        const key = keyOf(request);
        expect(
          key !== undefined && executions.has(key),
          `a model request for an unknown job: ${JSON.stringify(request.body).slice(0, 300)}`,
        ).toBe(true);
        executions.set(key!, executions.get(key!)! + 1);
      }
      const reExecuted = mine.filter((m) => executions.get(m.key)! > 1);
      const reExecutions = mine.reduce((n, m) => n + Math.max(0, executions.get(m.key)! - 1), 0);
      for (const m of mine) {
        const n = executions.get(m.key)!;
        expect(n, `${m.key}: model requests`).toBeGreaterThanOrEqual(1);
        expect(n, `${m.key}: model requests (in flight at the kill: ${inFlight.has(m.run_id)})`).toBeLessThanOrEqual(
          inFlight.has(m.run_id) ? 2 : 1,
        );
      }
      expect(reExecutions).toBeLessThanOrEqual(inFlight.size);
      // A model call the kill cut off left its run unfinished: that job ran again (others in flight may
      // have too: an answer that arrived before the kill, an outcome not yet recorded).
      const cut = new Set(requests.filter((r) => r.disconnected).map(keyOf));
      for (const key of cut) expect(executions.get(key!), `${key}: its model call was cut by the kill`).toBe(2);

      // The runs: COMPLETED with the model's answer, the re-executed ones included.
      const runs = await direct!.query<{ run_id: string; status: string; content: string | null }>(
        `SELECT run_id, status, run_data->>'content' AS content FROM ai.agno_runs WHERE run_id = ANY($1)`,
        [mine.map((m) => m.run_id)],
      );
      expect(runs.rows).toHaveLength(JOBS_PER_CYCLE);
      for (const run of runs.rows) expect(run, run.run_id).toMatchObject({ status: "COMPLETED", content: ANSWER });
      for (const m of reExecuted) {
        const run = (await (await fetch(`${runtime.url}/agents/assistant/runs/${m.run_id}`)).json()) as {
          status: string;
          content: string;
        };
        expect(run, m.key).toMatchObject({ status: "COMPLETED", content: ANSWER });
      }

      const line = {
        cycle,
        jobs: JOBS_PER_CYCLE,
        killed_after_ms: killedAt - cycleStart,
        completed_before_kill: seen.completed - before.completed,
        running_seen_before_kill: seen.running,
        in_flight_at_kill: inFlight.size,
        model_requests_before_restart: requestsBeforeRestart,
        model_requests: requests.length,
        re_executed_jobs: reExecuted.length,
        model_calls_cut: cut.size,
        re_executions: reExecutions,
        ready_ms: readyMs,
        in_flight_recovered_ms: inFlightRecoveredMs,
        recovery_ms: recoveryMs,
      };
      report.push(line);
      console.log(`[queue-crash] ${JSON.stringify(line)}`);
    }

    // Nothing lost over the whole run: the database holds exactly the accepted jobs, all COMPLETED.
    const listed = (await (await fetch(`${runtime.url}/queue/jobs?limit=1000`)).json()) as {
      data: JobView[];
      meta: { total_count: number };
    };
    expect(listed.meta.total_count).toBe(accepted.length);
    expect(new Set(listed.data.map((j) => j.id))).toEqual(new Set(accepted.map((a) => a.run_id)));
    expect(listed.data.every((j) => j.status === "completed")).toBe(true);
    console.log(
      `[queue-crash] summary ${JSON.stringify({ cycles: CYCLES, jobs: accepted.length, in_flight_recovered_ms: report.map((r) => r.in_flight_recovered_ms), recovery_ms: report.map((r) => r.recovery_ms) })}`,
    );
    await runtime.kill();
  }, 600_000);
});
