/**
 * The durable queue figures of BENCHMARKS.md (`npm run bench -- queue`), on a real PostgreSQL
 * (BENCH_DATABASE_URL, TEST_DATABASE_URL, or postgres://postgres@127.0.0.1:5432/test):
 *
 * - throughput (jobs/s, enqueue to completed) and enqueue latency at fixed arrival rates, agno-edge
 *   (`npm run dev`'s runtime: wrangler dev, DATABASE_URL at that server; a job is a background run
 *   of the example agent against the scripted model, which answers at once) side by side with
 *   pg-boss (scripts/bench/peers) on the same server, whose workers do nothing. Rates go up until
 *   one is not sustained;
 * - agno-edge's executor alone: a backlog committed beforehand, drained after one wake;
 * - recovery after kill -9: slow-ish jobs, the runtime's process group killed mid-way, restarted,
 *   and the time from the restart until every job is terminal.
 *
 * Completion is read from the tables themselves (agno_jobs, pg-boss's job) every 50 ms, the same
 * way for both. Each system gets a schema of its own, dropped at the end; the runtimes' process
 * groups and the pg-boss children are stopped at the end and on an error.
 */
import { Pool as NeonPool } from "@neondatabase/serverless";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ws from "ws";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { startModelServer, type ModelServer } from "../../test/support/model-server.js";
import { scriptModel } from "../../test/support/model-script.js";
import { startWsProxy } from "../../src/cli/local/ws-proxy.js";
import type { LoadConfig, LoadResult } from "./http-load-child.js";
import { startRuntime, type Runtime } from "./http-runtime.js";
import { ensurePeers, importPeer, peerVersion } from "./peers.js";
import type { ProducerConfig, WorkerConfig } from "./queue-pgboss-child.js";
import { emit, log, median, percentile, round } from "./util.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";
const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const RATES = () =>
  env("BENCH_QUEUE_RATES", "10,25,50,100,200,300,400,500")
    .split(",")
    .map(Number)
    .filter((n) => n > 0);
const SECONDS = () => Number(env("BENCH_QUEUE_SECONDS", "10"));
const CONCURRENCY = () => Number(env("BENCH_QUEUE_CONCURRENCY", "32"));
/**
 * Enqueue requests in flight at most, as a client with a connection limit would send them. An
 * enqueue opens no Postgres connection of its own (the JobQueue object commits it over its pool,
 * BENCHMARKS.md run B), so the cap bounds only the requests waiting on that object.
 */
const MAX_IN_FLIGHT = () => Number(env("BENCH_QUEUE_MAX_IN_FLIGHT", "40"));
/** Longest the bench waits for a round's backlog to drain before it reports what completed. */
const DRAIN_TIMEOUT_MS = 240_000;
const POLL_MS = 50;
const WARMUP_JOBS = 40;
const BACKLOG_JOBS = 600;
/** A job is slow-ish when its model answers after 2 s (the runs are not streamed, so the answer is one reply). */
const RECOVERY_JOBS = 200;
const RECOVERY_MODEL_DELAY_MS = 2000;
/** Leases of the recovery runs: the default, then a short one, to show what the lease costs. */
const RECOVERY_LEASES = () =>
  env("BENCH_QUEUE_RECOVERY_LEASES", "30,5")
    .split(",")
    .map(Number)
    .filter((n) => n > 0);
const ANSWER = "bench-answer-ok";
const TSX = import.meta.resolve("tsx");
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
interface Counts {
  total: number;
  open: number;
  running: number;
  completed: number;
  failed: number;
  backends: number;
  lock_waiters: number;
}
type Peaks = { running: number; backends: number; lock_waiters: number };
const noPeaks = (): Peaks => ({ running: 0, backends: 0, lock_waiters: 0 });
interface Ctx {
  url: string;
  pool: Pool;
  schemas: string[];
  dataRoot: string;
  runtimes: Runtime[];
  model: ModelServer;
}

const children = new Set<ChildProcess>();
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

function child(args: string[]): ChildProcess {
  const c = spawn(process.execPath, ["--import", TSX, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  children.add(c);
  c.once("exit", () => children.delete(c));
  return c;
}

/** Runs a child that prints one JSON line, and returns it. */
function runJson<T>(args: string[], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = child(args);
    let out = "";
    c.stdout!.on("data", (d: Buffer) => (out += d.toString("utf8")));
    const timer = setTimeout(() => c.kill("SIGKILL"), timeoutMs);
    c.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${args[0]} exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`${args[0]} printed no result: ${out.slice(0, 300)}`));
      }
    });
  });
}

/** A jobs table counted by state, with the database's backends and those waiting for an advisory lock. */
function counter(pool: Pool, from: string, s: { open: string; running: string; completed: string; failed: string }) {
  const q = `SELECT count(*)::int AS total, count(*) FILTER (WHERE ${s.open})::int AS open, count(*) FILTER (WHERE ${s.running})::int AS running,
    count(*) FILTER (WHERE ${s.completed})::int AS completed, count(*) FILTER (WHERE ${s.failed})::int AS failed,
    (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database()) AS backends,
    (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory') AS lock_waiters FROM ${from}`;
  return async (): Promise<Counts> => (await pool.query(q)).rows[0] as unknown as Counts;
}
const agnoCounts = (pool: Pool, schema: string) =>
  counter(pool, `"${schema}".agno_jobs`, {
    open: "status IN ('PENDING', 'RUNNING')",
    running: "status = 'RUNNING'",
    completed: "status = 'COMPLETED'",
    failed: "status = 'FAILED'",
  });

function track(peaks: Peaks, c: Counts): void {
  peaks.running = Math.max(peaks.running, c.running);
  peaks.backends = Math.max(peaks.backends, c.backends);
  peaks.lock_waiters = Math.max(peaks.lock_waiters, c.lock_waiters);
}

/** Each process on the machine: its group, command line and CPU seconds (its own, and its reaped children's); null when not Linux. */
function processes(): Array<{ pid: number; pgrp: number; cmd: string; own: number; children: number }> | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  return pids.flatMap((d) => {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      // from field 3 (state): pgrp f[2], utime f[11], stime f[12], cutime f[13], cstime f[14], in USER_HZ
      const f = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      return [{ pid: Number(d), pgrp: f[2]!, cmd, own: (f[11]! + f[12]!) / 100, children: (f[13]! + f[14]!) / 100 }];
    } catch {
      return []; // gone
    }
  });
}

/**
 * CPU seconds used so far by the processes of a group (the runtime's: dev.ts with the WebSocket
 * proxy, wrangler, workerd) or by one process (the pg-boss worker), by what they run.
 */
function cpu(id: { pgid: number } | { pid: number }): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of processes() ?? []) {
    if ("pid" in id ? p.pid !== id.pid : p.pgrp !== id.pgid) continue;
    // wrangler dev runs two workerd: the Worker (with the inspector) and its dev proxy in front
    const kind = p.cmd.includes("workerd")
      ? p.cmd.includes("--inspector-addr")
        ? "workerd_worker"
        : "workerd_dev_proxy"
      : p.cmd.includes("wrangler")
        ? "wrangler_node"
        : p.cmd.includes("dev.ts")
          ? "dev_ts_ws_proxy"
          : p.cmd.includes("pgboss")
            ? "pgboss_worker"
            : "other";
    out[kind] = (out[kind] ?? 0) + p.own;
  }
  return out;
}

/**
 * CPU seconds used so far by the machine's PostgreSQL server (the postmaster with the backends it
 * has reaped, and the live ones), and by the whole machine, busy and total: the server and the
 * bench's own processes share the cores with the system measured.
 */
function serverAndMachineCpu(): { db_server: number; machine_busy: number; machine_total: number } | null {
  const all = processes();
  if (!all) return null;
  let db = 0;
  for (const p of all) {
    if (/\/bin\/postgres\0/.test(p.cmd)) db += p.own + p.children;
    else if (p.cmd.startsWith("postgres:")) db += p.own;
  }
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number); // user nice system idle iowait irq softirq steal …
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = ticks[3]! + ticks[4]!;
  return { db_server: db, machine_busy: (total - idle) / 100, machine_total: total / 100 };
}

/** The database server's CPU per job and the machine's busy cores between two readings. */
function serverAndMachine(
  before: ReturnType<typeof serverAndMachineCpu>,
  after: ReturnType<typeof serverAndMachineCpu>,
  jobs: number,
) {
  if (!before || !after) return {};
  const cores =
    (after.machine_busy - before.machine_busy) / ((after.machine_total - before.machine_total) / cpus().length);
  return {
    db_server_cpu_ms_per_job: round(((after.db_server - before.db_server) * 1000) / jobs, 1),
    machine_cores_busy: round(cores, 2),
  };
}

/** CPU milliseconds per job by kind of process between two readings, and the cores they kept busy. */
function cpuPerJob(before: Record<string, number>, after: Record<string, number>, jobs: number, seconds: number) {
  const used = Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));
  const total = Object.values(used).reduce((a, b) => a + b, 0);
  return {
    cpu_ms_per_job: Object.fromEntries(Object.entries(used).map(([k, v]) => [k, round((v * 1000) / jobs, 1)])),
    cpu_cores_busy: round(total / seconds, 2),
  };
}

/** Waits until no job is open: when it saw that (epoch ms; null past the timeout) and the counts. */
async function drain(counts: () => Promise<Counts>, peaks: Peaks, timeoutMs = DRAIN_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await counts();
    track(peaks, c);
    if (c.open === 0) return { at: Date.now() as number | null, c };
    if (Date.now() > deadline) return { at: null, c };
    await sleep(POLL_MS);
  }
}

interface Round {
  system: "agno-edge" | "pg-boss";
  config: Record<string, unknown>;
  rate: number;
  seconds: number;
  enqueue: (rate: number, seconds: number) => Promise<LoadResult>;
  counts: () => Promise<Counts>;
  runtime?: Runtime;
  /** whose CPU to report: the runtime's process group, or the pg-boss worker */
  cpuOf: { pgid: number } | { pid: number };
}
interface RoundResult {
  rate: number;
  throughput: number;
  sustained: boolean;
}

/** One fixed-rate load, then the wait until every job it made is terminal; one JSON line. */
async function measure(r: Round): Promise<RoundResult> {
  log(`  ${r.system}: ${r.rate} jobs/s for ${r.seconds} s`);
  const before = await r.counts();
  const peaks = noPeaks();
  const load0 = loadavg()[0]!;
  const reloads0 = r.runtime?.reloads() ?? 0;
  const cpu0 = cpu(r.cpuOf);
  const machine0 = serverAndMachineCpu();
  let loading = true;
  const watching = (async () => {
    while (loading) {
      track(peaks, await r.counts());
      await sleep(POLL_MS);
    }
  })();
  const res = await r.enqueue(r.rate, r.seconds).finally(() => (loading = false));
  await watching;
  const done = await drain(r.counts, peaks);
  const cpu1 = cpu(r.cpuOf);
  const machine1 = serverAndMachineCpu();
  const t = res.targets[0]!;
  const ended = done.c.completed + done.c.failed - before.completed - before.failed;
  const end = done.at ?? Date.now();
  const throughput = ended / ((end - res.t0_epoch_ms) / 1000);
  const lastDue = res.t0_epoch_ms + ((t.sent - 1) * 1000) / r.rate;
  const afterLast = (end - lastDue) / 1000;
  // Kept up: every job done within 2 s of the last one's due time.
  const sustained = done.at !== null && afterLast <= 2;
  const errors = Object.values(t.errors).reduce((a, b) => a + b, 0);
  const lat = t.latency_ms.length ? t.latency_ms : [NaN];
  const reloads = (r.runtime?.reloads() ?? 0) - reloads0;
  emit({
    bench: "queue_throughput",
    system: r.system,
    ...r.config,
    rate_jobs_per_s: r.rate,
    seconds: r.seconds,
    sent: t.sent,
    enqueue_errors: errors,
    ...(errors && { enqueue_error_kinds: t.errors, first_errors: t.first_errors }),
    jobs: done.c.total - before.total,
    completed: done.c.completed - before.completed,
    failed: done.c.failed - before.failed,
    drained: done.at !== null,
    throughput_jobs_per_s: round(throughput, 1),
    last_completion_after_last_due_s: round(afterLast, 2),
    sustained,
    enqueue_median_ms: round(median(lat), 2),
    enqueue_p99_ms: round(percentile(lat, 99), 2),
    enqueue_max_ms: round(Math.max(...lat), 2),
    send_lag_p99_ms: round(percentile(t.send_lag_ms.length ? t.send_lag_ms : [NaN], 99), 2),
    running_peak: peaks.running,
    pg_backends_peak: peaks.backends,
    advisory_lock_waiters_peak: peaks.lock_waiters,
    ...cpuPerJob(cpu0, cpu1, Math.max(1, ended), (end - res.t0_epoch_ms) / 1000),
    ...serverAndMachine(machine0, machine1, Math.max(1, ended)),
    loadavg_1m: [round(load0), round(loadavg()[0]!)],
    ...(reloads && { worker_reloads: reloads }),
  });
  return { rate: r.rate, throughput, sustained };
}

/** The rates in order, up to and including the first one not sustained. */
async function sweep(rates: number[], round: (rate: number) => Promise<RoundResult>): Promise<RoundResult[]> {
  const out: RoundResult[] = [];
  for (const rate of rates) {
    out.push(await round(rate));
    // BENCH_QUEUE_ALL_RATES=1 keeps going, to see what happens well past capacity.
    if (!out[out.length - 1]!.sustained && !process.env.BENCH_QUEUE_ALL_RATES) break;
  }
  return out;
}

/** Rows written and index/sequential scans per job, per table, from pg_stat_user_tables (after the writers disconnected). */
async function writesPerJob(pool: Pool, schema: string, system: string): Promise<void> {
  await sleep(1500); // a backend reports its counters when it goes idle for a second or exits
  const { rows } = await pool.query(
    `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del, COALESCE(idx_scan, 0) AS idx_scan, seq_scan
     FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`,
    [schema],
  );
  const jobsTable = system === "agno-edge" ? "agno_jobs" : null;
  const jobs = jobsTable
    ? Number(rows.find((r) => r.relname === jobsTable)?.ins ?? 0)
    : Number((await pool.query(`SELECT count(*) AS n FROM "${schema}".job`)).rows[0]!.n);
  const per = (x: unknown) => round(Number(x) / jobs, 2);
  const tables = Object.fromEntries(
    rows
      .filter((r) => Number(r.ins) + Number(r.upd) + Number(r.del) + Number(r.idx_scan) > 0)
      .map((r) => [
        r.relname,
        { ins: per(r.ins), upd: per(r.upd), del: per(r.del), idx_scan: per(r.idx_scan), seq_scan: per(r.seq_scan) },
      ]),
  );
  const written = rows.reduce((n, r) => n + Number(r.ins) + Number(r.upd) + Number(r.del), 0);
  emit({ bench: "queue_rows_written_per_job", system, jobs, rows_written_per_job: per(written), tables });
}

function enqueueLoad(url: string, auth: string): (rate: number, seconds: number) => Promise<LoadResult> {
  return (rate, seconds) => {
    const cfg: LoadConfig = {
      targets: [
        {
          url: `${url}/agents/assistant/runs`,
          method: "POST",
          headers: { authorization: auth, "content-type": "application/json" },
          body: JSON.stringify({ message: "Say the bench answer.", background: true, stream: false }),
          expectStatus: 202,
          expectBody: '"job_id"',
        },
      ],
      rate,
      warmupSeconds: 0,
      seconds,
      timeoutMs: 60_000,
      maxInFlight: MAX_IN_FLIGHT(),
    };
    return runJson<LoadResult>([here("./http-load-child.ts"), JSON.stringify(cfg)], DRAIN_TIMEOUT_MS + seconds * 1000);
  };
}

/** `npm run dev` on the real server with its own schema, the scripted model and the queue's settings. */
async function agnoRuntime(
  ctx: Ctx,
  schema: string,
  dataDir: string,
  turns: { text: string; delayMs?: number; chunkSize?: number }[],
  leaseSeconds = 30,
) {
  const script = await scriptModel(ctx.model.url, turns);
  const key = randomBytes(32).toString("base64url");
  const vars = {
    DATABASE_URL: ctx.url,
    AGNO_DB_SCHEMA: schema,
    OS_SECURITY_KEY: key,
    MODEL: "openai:bench-model",
    OPENAI_BASE_URL: script.baseURL,
    OPENAI_API_KEY: "sk-bench",
    AGNO_BACKGROUND_MAX_CONCURRENCY: String(CONCURRENCY()),
    AGNO_QUEUE_MAX_DEPTH: "1000000",
    AGNO_USER_MAX_JOBS: "1000000",
    AGNO_QUEUE_LEASE_SECONDS: String(leaseSeconds),
    // the queue object's connection cap, when set for a comparison run (the default follows concurrency)
    ...(process.env.AGNO_QUEUE_DB_CONNECTIONS
      ? { AGNO_QUEUE_DB_CONNECTIONS: process.env.AGNO_QUEUE_DB_CONNECTIONS }
      : {}),
  };
  const rt = await startRuntime(vars, dataDir);
  ctx.runtimes.push(rt);
  return { rt, auth: `Bearer ${key}`, script, restart: () => startRuntime(vars, dataDir) };
}

const newSchema = (ctx: Ctx, prefix: string) => {
  const schema = `${prefix}_${process.pid}_${randomBytes(3).toString("hex")}`;
  ctx.schemas.push(schema);
  return schema;
};
const plainTurns = (n: number) => Array.from({ length: n }, () => ({ text: ANSWER }));

async function benchAgno(ctx: Ctx, rates: number[], seconds: number): Promise<RoundResult[]> {
  const schema = newSchema(ctx, "bench_queue");
  const turns = WARMUP_JOBS + rates.reduce((n, r) => n + Math.round(r * seconds), 0);
  log(
    `agno-edge: npm run dev on ${new URL(ctx.url).host}, schema ${schema}, AGNO_BACKGROUND_MAX_CONCURRENCY=${CONCURRENCY()}`,
  );
  const { rt, auth, script } = await agnoRuntime(
    ctx,
    schema,
    join(ctx.dataRoot, "agno"),
    plainTurns(Math.ceil(turns * 1.2)),
  );
  const counts = agnoCounts(ctx.pool, schema);
  const enqueue = enqueueLoad(rt.url, auth);
  // Warm-up: workerd compiles the routes, the queue object starts.
  await enqueue(WARMUP_JOBS / 2, 2);
  await drain(counts, noPeaks(), 60_000);
  const config = {
    concurrency: CONCURRENCY(),
    max_in_flight: MAX_IN_FLIGHT(),
    db: "postgresql",
    server: "wrangler dev (npm run dev)",
  };
  const out = await sweep(rates, (rate) =>
    measure({ system: "agno-edge", config, rate, seconds, enqueue, counts, runtime: rt, cpuOf: { pgid: rt.pid } }),
  );
  // agno's stats answer: jobs by status, only the statuses some job is in.
  const stats = (await (await fetch(`${rt.url}/queue/stats`, { headers: { authorization: auth } })).json()) as {
    counts: Record<string, number>;
  };
  const final = await counts();
  if ((stats.counts.completed ?? 0) !== final.completed)
    throw new Error(`GET /queue/stats says ${stats.counts.completed} completed, agno_jobs ${final.completed}`);
  const requests = (await script.requests()).length;
  if (requests !== final.total) log(`  the model server saw ${requests} model requests for ${final.total} jobs`);
  await rt.stop();
  await writesPerJob(ctx.pool, schema, "agno-edge");
  return out;
}

/**
 * The executor alone: BACKLOG_JOBS committed beforehand by the product's own enqueue
 * (PostgresDb in this process, through a WebSocket proxy as the Worker reaches Postgres), then
 * the runtime started and woken by one more background run; jobs/s until all are terminal.
 */
async function benchBacklog(ctx: Ctx): Promise<void> {
  const schema = newSchema(ctx, "bench_queue_backlog");
  const u = new URL(ctx.url);
  const proxy = await startWsProxy({ allow: [`${u.hostname}:${u.port || "5432"}`] });
  useLocalWsProxy(proxy.address, ws);
  const neon = new NeonPool({ connectionString: ctx.url, max: 2 });
  const staged = performance.now();
  try {
    const db = new PostgresDb({ pool: neon, schema });
    await db.init();
    for (let i = 0; i < BACKLOG_JOBS; i++) {
      await db.jobs.enqueueRun({
        component_type: "agent",
        component_id: "assistant",
        session_id: randomUUID(),
        user_id: null,
        payload: { run_id: randomUUID(), message: "Say the bench answer." },
        max_attempts: 3,
        max_depth: 1_000_000,
        session_name: "bench",
      });
    }
  } finally {
    await neon.end();
    await proxy.stop();
  }
  const stageSeconds = (performance.now() - staged) / 1000;
  log(
    `agno-edge backlog: ${BACKLOG_JOBS} jobs committed in ${stageSeconds.toFixed(1)} s (one at a time, in process); draining`,
  );
  const { rt, auth } = await agnoRuntime(ctx, schema, join(ctx.dataRoot, "backlog"), plainTurns(BACKLOG_JOBS + 50));
  const counts = agnoCounts(ctx.pool, schema);
  const peaks = noPeaks();
  const load0 = loadavg()[0]!;
  const cpu0 = cpu({ pgid: rt.pid });
  const woken = Date.now();
  const res = await fetch(`${rt.url}/agents/assistant/runs`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ message: "Say the bench answer.", background: true, stream: false }),
  });
  if (res.status !== 202) throw new Error(`the waking enqueue answered ${res.status}: ${await res.text()}`);
  const done = await drain(counts, peaks);
  const seconds = ((done.at ?? Date.now()) - woken) / 1000;
  const cpu1 = cpu({ pgid: rt.pid });
  emit({
    bench: "queue_backlog_drain",
    system: "agno-edge",
    concurrency: CONCURRENCY(),
    jobs: done.c.total,
    completed: done.c.completed,
    failed: done.c.failed,
    drained: done.at !== null,
    seconds: round(seconds, 2),
    throughput_jobs_per_s: round((done.c.completed + done.c.failed) / seconds, 1),
    in_process_enqueue_ms_per_job: round((stageSeconds * 1000) / BACKLOG_JOBS, 2),
    running_peak: peaks.running,
    pg_backends_peak: peaks.backends,
    ...cpuPerJob(cpu0, cpu1, done.c.completed + done.c.failed, seconds),
    loadavg_1m: [round(load0), round(loadavg()[0]!)],
    ...(rt.reloads() && { worker_reloads: rt.reloads() }),
  });
  await rt.stop();
}

async function benchPgBoss(
  ctx: Ctx,
  rates: number[],
  seconds: number,
  workers: number,
  batchSize: number,
  label: string,
): Promise<RoundResult[]> {
  const schema = newSchema(ctx, "bench_pgboss");
  const queue = "bench";
  const wcfg: WorkerConfig = { url: ctx.url, schema, queue, workers, batchSize, pollingIntervalSeconds: 0.5 };
  log(
    `pg-boss ${peerVersion("pg-boss")} (${label}): schema ${schema}, ${workers} work() loop(s) x batchSize ${batchSize}, polling every 0.5 s`,
  );
  const w = child([here("./queue-pgboss-child.ts"), "worker", JSON.stringify(wcfg)]);
  try {
    await new Promise<void>((resolve, reject) => {
      w.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
      w.once("exit", (code) => reject(new Error(`pg-boss worker exited with ${code}`)));
    });
    const counts = counter(ctx.pool, `"${schema}".job WHERE name = '${queue}'`, {
      open: "state IN ('created', 'retry', 'active')",
      running: "state = 'active'",
      completed: "state = 'completed'",
      failed: "state = 'failed'",
    });
    const enqueue = (rate: number, s: number) =>
      runJson<LoadResult>(
        [
          here("./queue-pgboss-child.ts"),
          "producer",
          JSON.stringify({ url: ctx.url, schema, queue, rate, seconds: s } satisfies ProducerConfig),
        ],
        DRAIN_TIMEOUT_MS + s * 1000,
      );
    await enqueue(WARMUP_JOBS / 2, 2);
    await drain(counts, noPeaks(), 60_000);
    const config = {
      pgboss: peerVersion("pg-boss"),
      pgboss_config: label,
      workers,
      batch_size: batchSize,
      concurrency: workers * batchSize,
      polling_interval_s: 0.5,
      db: "postgresql",
    };
    return await sweep(rates, (rate) =>
      measure({ system: "pg-boss", config, rate, seconds, enqueue, counts, cpuOf: { pid: w.pid! } }),
    );
  } finally {
    w.kill("SIGTERM");
    await new Promise((r) => (w.exitCode === null && w.signalCode === null ? w.once("exit", r) : r(null)));
    await writesPerJob(ctx.pool, schema, `pg-boss (${label})`).catch((e: Error) => log(`pg-boss stats: ${e.message}`));
  }
}

/** Slow-ish jobs, kill -9 of the runtime's process group mid-way, restart: time until every job is terminal. */
async function benchRecovery(ctx: Ctx, leaseSeconds: number): Promise<void> {
  const schema = newSchema(ctx, "bench_queue_recovery");
  log(
    `recovery: ${RECOVERY_JOBS} jobs (the model answers after ${RECOVERY_MODEL_DELAY_MS} ms), lease ${leaseSeconds} s, kill -9 once all are queued and a third are done`,
  );
  // Twice the turns: the jobs the kill interrupted run again.
  const turns = Array.from({ length: RECOVERY_JOBS * 2 }, () => ({ text: ANSWER, delayMs: RECOVERY_MODEL_DELAY_MS }));
  const first = await agnoRuntime(ctx, schema, join(ctx.dataRoot, `recovery-${leaseSeconds}`), turns, leaseSeconds);
  const counts = agnoCounts(ctx.pool, schema);
  const enqueued = await enqueueLoad(first.rt.url, first.auth)(50, RECOVERY_JOBS / 50);
  let atKill: Counts;
  while ((atKill = await counts()).completed < RECOVERY_JOBS / 3) await sleep(20);
  const killedAt = Date.now();
  await first.rt.kill();
  log(
    `  killed with ${atKill.completed} completed, ${atKill.running} running, ${atKill.open - atKill.running} pending; restarting`,
  );
  const restartAt = Date.now();
  const second = await first.restart();
  ctx.runtimes.push(second);
  const readyAt = Date.now();
  const done = await drain(counts, noPeaks());
  const end = done.at ?? Date.now();
  const { rows } = await ctx.pool.query(
    `SELECT attempt, status, count(*)::int AS n, min(locked_at)::int AS first_claim FROM "${schema}".agno_jobs GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const reclaimed = rows.filter((r) => Number(r.attempt) > 1).map((r) => Number(r.first_claim));
  // How long a job takes uncrashed (whole seconds, as agno_jobs keeps them), so the work left at the kill can be told from the recovery.
  const { rows: took } = await ctx.pool.query(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY completed_at - locked_at) AS s FROM "${schema}".agno_jobs WHERE attempt = 1 AND status = 'COMPLETED'`,
  );
  const jobSeconds = Number(took[0]!.s);
  const left = atKill.open;
  emit({
    bench: "queue_recovery_after_kill9",
    jobs: done.c.total,
    enqueue_errors: Object.values(enqueued.targets[0]!.errors).reduce((a, b) => a + b, 0),
    model_delay_ms: RECOVERY_MODEL_DELAY_MS,
    concurrency: CONCURRENCY(),
    lease_seconds: leaseSeconds,
    at_kill: { completed: atKill.completed, running: atKill.running, pending: atKill.open - atKill.running },
    job_seconds_median: jobSeconds,
    // the jobs left at the kill, run in waves of `concurrency` with no crash
    work_left_at_kill_s: Math.ceil(left / CONCURRENCY()) * jobSeconds,
    recovered: done.at !== null,
    restart_to_ready_s: round((readyAt - restartAt) / 1000, 2),
    restart_to_all_terminal_s: round((end - restartAt) / 1000, 2),
    kill_to_all_terminal_s: round((end - killedAt) / 1000, 2),
    // agno_jobs keeps whole seconds
    kill_to_first_reclaim_s: reclaimed.length ? Math.min(...reclaimed) - Math.floor(killedAt / 1000) : null,
    final: { completed: done.c.completed, failed: done.c.failed, open: done.c.open },
    jobs_by_attempt_and_status: rows.map(({ attempt, status, n }) => ({ attempt, status, n })),
    model_requests: (await first.script.requests()).length,
    loadavg_1m: round(loadavg()[0]!),
  });
  await second.stop();
}

export async function benchQueue(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || DEFAULT_URL;
  const skip = (reason: string) => void emit({ bench: "queue_throughput", skipped: reason });
  const peers = ensurePeers(log);
  if (!peers.ok) return skip(`pg-boss (and its pg client) could not be installed: ${peers.reason}`);
  const pg = await importPeer<{ default: { Pool: new (o: object) => Pool } }>("pg");
  const pool = new pg.default.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
  try {
    const { rows } = await pool.query("SHOW server_version");
    log(`queue: PostgreSQL ${String(rows[0]!.server_version)} at ${new URL(url).host}`);
  } catch (e) {
    await pool.end();
    return skip(
      `no PostgreSQL reachable at ${new URL(url).host} (${(e as Error).message}); set BENCH_DATABASE_URL. ` +
        "The embedded PGlite is not measured: it runs every connection on one backend, so the figure would be PGlite's, not the queue's",
    );
  }
  const ctx: Ctx = {
    url,
    pool,
    schemas: [],
    dataRoot: mkdtempSync(join(tmpdir(), "agno-bench-queue-")),
    runtimes: [],
    model: await startModelServer(),
  };
  const rates = RATES();
  const seconds = SECONDS();
  try {
    const agno = await benchAgno(ctx, rates, seconds);
    // BENCH_QUEUE_ONLY_AGNO=1: agno-edge's rates alone, for a quick look at a change (no comparison, no summary).
    if (process.env.BENCH_QUEUE_ONLY_AGNO) return;
    await benchBacklog(ctx);
    const same = await benchPgBoss(ctx, rates, seconds, CONCURRENCY(), 1, "same_concurrency");
    const batched = await benchPgBoss(ctx, rates, seconds, 4, 100, "batched");
    const best = (xs: RoundResult[]) => Math.max(...xs.map((x) => x.throughput));
    const sustained = (xs: RoundResult[]) => Math.max(0, ...xs.filter((x) => x.sustained).map((x) => x.rate));
    const capped = (xs: RoundResult[]) => xs.every((x) => x.sustained);
    emit({
      bench: "queue_throughput_summary",
      rates_jobs_per_s: rates,
      agno_edge_best_jobs_per_s: round(best(agno), 1),
      agno_edge_highest_sustained_rate: sustained(agno),
      pgboss_same_concurrency_best_jobs_per_s: round(best(same), 1),
      pgboss_same_concurrency_highest_sustained_rate: sustained(same),
      pgboss_batched_best_jobs_per_s: round(best(batched), 1),
      pgboss_batched_highest_sustained_rate: sustained(batched),
      // when a system kept up with every rate, its best is the arrival rate, not its capacity
      capped_by_highest_rate: {
        agno_edge: capped(agno),
        pgboss_same_concurrency: capped(same),
        pgboss_batched: capped(batched),
      },
      ratio_to_pgboss_same_concurrency: round(best(agno) / best(same), 3),
      ratio_to_pgboss_batched: round(best(agno) / best(batched), 3),
      expected_jobs_per_s: 300,
      meets_expected: best(agno) >= 300,
    });
    for (const lease of RECOVERY_LEASES()) await benchRecovery(ctx, lease);
  } finally {
    for (const rt of ctx.runtimes) await rt.stop();
    for (const c of children) c.kill("SIGKILL");
    await ctx.model.stop();
    for (const s of ctx.schemas)
      await pool
        .query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`)
        .catch((e: Error) => log(`DROP SCHEMA ${s}: ${e.message}`));
    await pool.end();
    rmSync(ctx.dataRoot, { recursive: true, force: true, maxRetries: 5 });
  }
}
