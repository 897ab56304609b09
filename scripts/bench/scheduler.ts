/**
 * The scheduler figures of BENCHMARKS.md (`npm run bench -- scheduler`): one cron tick that finds
 * 10,000 schedules due in the same minute, claims them and dispatches each occurrence to the
 * durable queue, on a real PostgreSQL (BENCH_DATABASE_URL, TEST_DATABASE_URL, or
 * postgres://postgres@127.0.0.1:5432/test) through the Neon driver and the local WebSocket
 * proxy, as the Worker reaches Neon. Round trips are counted at the driver (every statement a
 * client sends, BEGIN and COMMIT included), split into the scheduler's own statements and the
 * queue's enqueue transactions. Side by side, on a schema of its own, the baseline: the same tick
 * with each occurrence enqueued by its own transaction (`enqueueRun`, four at a time, as a Worker's
 * six connections allow), which is how the scheduler dispatched before batches. Then the same
 * minute again: what a duplicate invocation costs. The schemas are dropped at the end. Nothing
 * here asserts a time.
 */
import { Client, Pool } from "@neondatabase/serverless";
import ws from "ws";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { runDueSchedules, type TickReport } from "../../src/scheduler/run-due.js";
import type { ScheduleTicks } from "../../src/scheduler/types.js";
import type { EnqueueOutcome, EnqueueRunInput, JobStore } from "../../src/queue/types.js";
import { startWsProxy } from "../../src/cli/local/ws-proxy.js";
import { emit, log, round } from "./util.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";
const SCHEDULES = Number(process.env.BENCH_SCHEDULER_SCHEDULES ?? 10_000);

/** Every statement any client of the driver sends: one round trip each. */
let statements = 0;
const query = Client.prototype.query as (...args: unknown[]) => unknown;
Client.prototype.query = function (this: Client, ...args: unknown[]) {
  statements++;
  return query.apply(this, args);
} as typeof Client.prototype.query;

/** The tick's own statements (each ScheduleTicks call is one), counted and timed. */
function metered(ticks: ScheduleTicks) {
  const m = { calls: 0, seconds: 0 };
  const proxy = new Proxy(ticks, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        m.calls++;
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          m.seconds += (performance.now() - started) / 1000;
        }
      };
    },
  });
  return { proxy, m };
}

/** The baseline: a batch enqueued one transaction per input, four in flight. */
function oneByOne(jobs: JobStore): Pick<JobStore, "enqueueRuns" | "enqueueJob" | "cancelJob"> {
  return {
    cancelJob: (id) => jobs.cancelJob(id),
    enqueueJob: (input) => jobs.enqueueJob(input),
    async enqueueRuns(inputs: EnqueueRunInput[]): Promise<EnqueueOutcome[]> {
      const out = new Array<EnqueueOutcome>(inputs.length);
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < inputs.length; i = next++)
          out[i] = await jobs.enqueueRun(inputs[i]!).catch((error: Error) => ({ error }));
      };
      await Promise.all([lane(), lane(), lane(), lane()]);
      return out;
    },
  };
}

async function tick(
  db: PostgresDb,
  at: number,
  batched = true,
): Promise<{ report: TickReport; seconds: number; roundTrips: number; tickStatements: number; tickSeconds: number }> {
  const { proxy, m } = metered(db.schedules);
  const before = statements;
  const started = performance.now();
  const jobs = batched ? db.jobs : oneByOne(db.jobs);
  const report = await runDueSchedules(
    { schedules: proxy, jobs },
    { maxDepth: 1_000_000_000, now: () => at },
    at * 1000,
  );
  return {
    report,
    seconds: (performance.now() - started) / 1000,
    roundTrips: statements - before,
    tickStatements: m.calls,
    tickSeconds: m.seconds,
  };
}

export async function benchScheduler(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || DEFAULT_URL;
  const u = new URL(url);
  const proxy = await startWsProxy({ allow: [`${u.hostname}:${u.port || "5432"}`] });
  useLocalWsProxy(proxy.address, ws);
  const pool = new Pool({ connectionString: url, max: 10 });
  const schemas: string[] = [];
  try {
    let version: string;
    try {
      version = String((await pool.query("SHOW server_version")).rows[0].server_version);
    } catch (e) {
      emit({
        bench: "scheduler_claim_dispatch",
        skipped: `no PostgreSQL reachable at ${u.host} (${(e as Error).message}); set BENCH_DATABASE_URL`,
      });
      return;
    }
    const minute = Math.floor(Date.now() / 60_000) * 60;
    /** A fresh schema with SCHEDULES schedules due this minute, every minute, from a hundred owners. */
    const seeded = async (tag: string) => {
      const schema = `bench_sched_${tag}_${process.pid}_${Date.now().toString(36)}`;
      schemas.push(schema);
      const db = new PostgresDb({ pool, schema });
      await db.init();
      await pool.query(
        `INSERT INTO "${schema}".agno_schedules (id, name, endpoint, payload, cron_expr, timezone, next_run_at, user_id, created_at)
         SELECT 'bench-' || i, 'bench-' || i, '/agents/assistant/runs', '{"message":"scheduled"}'::jsonb, '* * * * *', 'UTC', $1, 'user-' || (i % 100), $1
         FROM generate_series(1, $2::int) AS i`,
        [minute, SCHEDULES],
      );
      return db;
    };
    log(`scheduler: ${SCHEDULES} schedules due at one minute, PostgreSQL ${version} at ${u.host}`);
    let db!: PostgresDb;
    for (const mode of ["one_enqueue_per_occurrence", "batched"] as const) {
      db = await seeded(mode === "batched" ? "b" : "o");
      const first = await tick(db, minute, mode === "batched");
      emit({
        bench: "scheduler_claim_dispatch",
        mode,
        postgres: version,
        schedules_due: SCHEDULES,
        dispatched: first.report.dispatched,
        failed: first.report.failed,
        seconds: round(first.seconds, 2),
        schedules_per_s: round(first.report.dispatched / first.seconds, 1),
        round_trips: first.roundTrips,
        round_trips_scheduler: first.tickStatements,
        round_trips_enqueue: first.roundTrips - first.tickStatements,
        round_trips_per_schedule: round(first.roundTrips / SCHEDULES, 3),
        scheduler_statements_seconds: round(first.tickSeconds, 2),
        // the part of the tick that is the claim and settle, against the enqueues it feeds
        scheduler_share_of_time: round(first.tickSeconds / first.seconds, 3),
      });
    }
    const again = await tick(db, minute);
    emit({
      bench: "scheduler_duplicate_tick",
      schedules_due: 0,
      claimed: again.report.claimed,
      seconds: round(again.seconds, 3),
      round_trips: again.roundTrips,
    });
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
    await proxy.stop();
  }
}
