/**
 * Recovery of durable workflow runs (BENCHMARKS.md, `npm run bench -- workflows`): background runs
 * of a ten-step workflow (test/workers/fixtures/durable-workflow-worker.ts, each step waiting on
 * a recorder that answers after a fixed delay) under `wrangler dev`, the runtime's process group
 * killed with SIGKILL once a third of the steps were called, restarted on the same state and
 * database; reported: the time from the restart until every run completed, and how many step
 * calls were repeated (only steps in flight at the kill may be; a checkpointed step never).
 */
import { Pool } from "@neondatabase/serverless";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import ws from "ws";
import { startEmbeddedPostgres } from "../../src/cli/local/pglite-server.js";
import { startWsProxy } from "../../src/cli/local/ws-proxy.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { startStepRecorder } from "../../test/support/step-recorder.js";
import { startWranglerRuntime, type WranglerRuntime } from "../../test/support/wrangler-runtime.js";
import { emit, log, round } from "./util.js";

const RUNS = 32;
const STEPS = 10;
const STEP_DELAY_MS = 200;
const LEASE_SECONDS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchWorkflowRecovery(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agno-bench-wf-recovery-"));
  const pg = await startEmbeddedPostgres({ dataDir: join(dir, "pglite") });
  const proxy = await startWsProxy({ allow: [`${pg.host}:${pg.port}`] });
  useLocalWsProxy(proxy.address, ws);
  const pool = new Pool({ connectionString: pg.url, max: 2 });
  const recorder = await startStepRecorder({ delayMs: STEP_DELAY_MS });
  const runtimes: WranglerRuntime[] = [];
  const start = async () => {
    const rt = await startWranglerRuntime({
      config: "test/workers/fixtures/durable-workflow-wrangler.toml",
      stateDir: join(dir, "wrangler"),
      vars: {
        DATABASE_URL: pg.url,
        DB_WS_PROXY: proxy.address,
        AGNO_AUTH: "none",
        RECORDER_URL: recorder.url,
        AGNO_QUEUE_LEASE_SECONDS: String(LEASE_SECONDS),
      },
    });
    runtimes.push(rt);
    return rt;
  };
  try {
    await new PostgresDb({ pool }).init();
    log(`workflow recovery: ${RUNS} background runs of ${STEPS} steps (${STEP_DELAY_MS} ms each), kill -9 at a third`);
    const first = await start();
    const keys = Array.from({ length: RUNS }, (_, i) => `bench run ${i}`);
    const ids = await Promise.all(
      keys.map(async (message) => {
        const res = await fetch(`${first.url}/workflows/ten-steps/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message, background: true, stream: false }),
        });
        if (res.status !== 202) throw new Error(`enqueue: ${res.status} ${await res.text()}`);
        return ((await res.json()) as { run_id: string }).run_id;
      }),
    );
    while (recorder.calls.length < (RUNS * STEPS) / 3) await sleep(10);
    const killedAt = Date.now();
    await first.kill();
    const callsAtKill = recorder.calls.length;
    const stood = await pool.query<{ next: number | null; status: string }>(
      `SELECT status, (run_data->'checkpoint'->>'index')::int AS next FROM ai.agno_runs WHERE run_id = ANY($1)`,
      [ids],
    );
    const checkpointed = stood.rows.reduce((n, r) => n + (r.status === "COMPLETED" ? STEPS : (r.next ?? 0)), 0);
    const restartAt = Date.now();
    const second = await start();
    const readyAt = Date.now();
    let done = 0;
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ai.agno_runs WHERE run_id = ANY($1) AND status = 'COMPLETED'`,
        [ids],
      );
      done = rows[0]!.n;
      if (done === RUNS || Date.now() - restartAt > 300_000) break;
      await sleep(50);
    }
    const end = Date.now();
    const perStep = new Map<string, number>();
    for (const c of recorder.calls) perStep.set(`${c.run}#${c.step}`, (perStep.get(`${c.run}#${c.step}`) ?? 0) + 1);
    emit({
      bench: "workflow_recovery_after_kill9",
      runs: RUNS,
      steps_per_run: STEPS,
      step_delay_ms: STEP_DELAY_MS,
      lease_seconds: LEASE_SECONDS,
      completed: done,
      step_calls_at_kill: callsAtKill,
      steps_checkpointed_at_kill: checkpointed,
      steps_repeated: [...perStep.values()].reduce((n, c) => n + c - 1, 0),
      steps_missing: RUNS * STEPS - perStep.size,
      restart_to_ready_s: round((readyAt - restartAt) / 1000),
      restart_to_all_completed_s: round((end - restartAt) / 1000),
      kill_to_all_completed_s: round((end - killedAt) / 1000),
      loadavg_1m: round(loadavg()[0]!),
    });
    await second.kill();
  } finally {
    for (const rt of runtimes) await rt.kill().catch(() => undefined);
    await recorder.close();
    await pool.end().catch(() => undefined);
    await proxy.stop().catch(() => undefined);
    await pg.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
