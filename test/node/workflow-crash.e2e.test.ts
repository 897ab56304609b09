import { Pool } from "@neondatabase/serverless";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStepRecorder, type StepRecorder } from "../support/step-recorder.js";
import { until } from "../support/until.js";
import {
  startOutlivingDatabase,
  startWranglerRuntime,
  type OutlivingDatabase,
  type WranglerRuntime,
} from "../support/wrangler-runtime.js";

/**
 * Durable workflows against a real crash: `wrangler dev` of a Worker with one workflow of ten
 * function steps (test/workers/fixtures/durable-workflow-worker.ts) runs background workflow runs;
 * each step reports itself to a recorder in this process, which answers it after a short while.
 * The whole runtime is killed with SIGKILL while runs are mid-way, then started again on the same
 * Durable Object state and database (which outlives the runtime, as Neon does).
 *
 * Each cycle checks that every run completes with all ten steps, that every step the database
 * had checkpointed when the runtime died ran exactly once, and that only the step in flight at
 * the kill ran again (at most once more).
 */

const CYCLES = 3;
const RUNS_PER_CYCLE = 6;
const STEPS = 10;
const LEASE_SECONDS = 3;
const JSON_BODY = { "content-type": "application/json" };

describe("durable workflow runs survive kill -9 of the runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "agno-wf-crash-"));
  const runtimes = new Set<WranglerRuntime>();
  let db: OutlivingDatabase | undefined;
  let direct: Pool | undefined;
  let recorder: StepRecorder | undefined;

  beforeAll(async () => {
    db = await startOutlivingDatabase(join(dir, "pglite"));
    direct = db.direct;
    recorder = await startStepRecorder({ delayMs: 100, jitterMs: 100 });
  }, 180_000);

  afterAll(async () => {
    for (const runtime of runtimes) await runtime.kill().catch(() => undefined);
    await recorder?.close();
    await db?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startRuntime(): Promise<WranglerRuntime> {
    const runtime = await startWranglerRuntime({
      config: "test/workers/fixtures/durable-workflow-wrangler.toml",
      stateDir: join(dir, "wrangler"),
      vars: {
        DATABASE_URL: db!.url,
        DB_WS_PROXY: db!.proxyAddress,
        AGNO_AUTH: "none",
        RECORDER_URL: recorder!.url,
        AGNO_QUEUE_LEASE_SECONDS: String(LEASE_SECONDS),
      },
    });
    runtimes.add(runtime);
    return runtime;
  }

  /** Where each run stood in the database: its status and the top-level step it would run next. */
  const standing = async (runIds: string[]) =>
    (
      await direct!.query<{ run_id: string; status: string; next: number | null }>(
        `SELECT run_id, status, (run_data->'checkpoint'->>'index')::int AS next
           FROM ai.agno_runs WHERE run_id = ANY($1) ORDER BY run_id`,
        [runIds],
      )
    ).rows;

  it(`completes every run across ${CYCLES} kill -9 / restart cycles, running no checkpointed step twice`, async () => {
    let runtime = await startRuntime();
    const report: Record<string, unknown>[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const keys = Array.from({ length: RUNS_PER_CYCLE }, (_, i) => `c${cycle} run ${i}`);
      const runs = await Promise.all(
        keys.map(async (key) => {
          const res = await fetch(`${runtime.url}/workflows/ten-steps/runs`, {
            method: "POST",
            headers: JSON_BODY,
            body: JSON.stringify({ message: key, background: true, stream: false }),
          });
          const body = (await res.json()) as { run_id: string };
          expect(res.status, JSON.stringify(body)).toBe(202);
          return { key, runId: body.run_id };
        }),
      );
      const ofCycle = () => recorder!.calls.filter((c) => keys.includes(c.run));

      // A random moment mid-way: once 20-60% of the cycle's steps were called.
      const target = Math.floor(RUNS_PER_CYCLE * STEPS * (0.2 + Math.random() * 0.4));
      await until(
        async () => ofCycle().length,
        (n) => n >= target,
        "the kill moment",
        { ms: 60_000, every: 20 },
      );
      await sleep(Math.random() * 100);
      await runtime.kill();

      // What the dead runtime left: read until stable (a statement on its way may still land).
      const ids = runs.map((r) => r.runId);
      let snapshot = await standing(ids);
      for (let same = 0; same < 2;) {
        await sleep(200);
        const again = await standing(ids);
        same = JSON.stringify(again) === JSON.stringify(snapshot) ? same + 1 : 0;
        snapshot = again;
      }
      const savedNext = new Map(
        snapshot.map((r) => [r.run_id, r.status === "COMPLETED" ? STEPS : Number(r.next ?? 0)]),
      );
      const midway = snapshot.filter((r) => r.status === "RUNNING" && (r.next ?? 0) > 0).length;
      expect(midway, `runs with checkpointed steps at the kill: ${JSON.stringify(snapshot)}`).toBeGreaterThan(0);

      const restartedAt = Date.now();
      runtime = await startRuntime();
      const readyMs = Date.now() - restartedAt;
      const finished = await until(
        () => standing(ids),
        (rows) => rows.every((r) => r.status === "COMPLETED" || r.status === "ERROR" || r.status === "CANCELLED"),
        "every run to end after the restart",
        { ms: 120_000, every: 100, retryErrors: true },
      );
      const recoveryMs = Date.now() - restartedAt;
      expect(finished.map((r) => r.status)).toEqual(ids.map(() => "COMPLETED"));

      let reRuns = 0;
      for (const { key, runId } of runs) {
        const run = (await (await fetch(`${runtime.url}/workflows/ten-steps/runs/${runId}`)).json()) as {
          status: string;
          content: string;
          step_results: Array<{ step_name: string }>;
        };
        expect(run, key).toMatchObject({ status: "COMPLETED", content: `step ${STEPS} of ${key}` });
        expect(run.step_results.map((s) => s.step_name)).toEqual(
          Array.from({ length: STEPS }, (_, i) => `step-${i + 1}`),
        );
        const counts = Array.from(
          { length: STEPS },
          (_, i) => recorder!.calls.filter((c) => c.run === key && c.step === i + 1).length,
        );
        const saved = savedNext.get(runId)!;
        // Checkpointed steps ran once; the one in flight at most twice; the rest once.
        counts.forEach((n, i) => {
          const step = i + 1;
          expect(n, `${key} step ${step} (checkpointed up to ${saved}): ${counts.join(",")}`).toBe(
            step === saved + 1 ? Math.min(Math.max(n, 1), 2) : 1,
          );
        });
        reRuns += counts.reduce((sum, n) => sum + n - 1, 0);
      }
      report.push({ cycle, midway, reRuns, readyMs, recoveryMs });
    }
    // The figures, for BENCHMARKS.md's recovery line: time from restart to every run completed.
    console.log(JSON.stringify({ workflowCrash: report }));
  }, 600_000);
});
