/**
 * `npm run bench`: the figures of BENCHMARKS.md, one JSON line per figure on stdout (progress
 * goes to stderr): the storage figures, then the agent figures (scripts/bench/agents.ts, against
 * Mastra, VoltAgent and LangGraph.js installed on demand in scripts/bench/peers), then the
 * request-overhead figures (scripts/bench/http-overhead.ts, against `npm run dev`'s runtime), then
 * the durable queue figures (scripts/bench/queue.ts: throughput and enqueue latency beside pg-boss,
 * recovery after kill -9, on a real PostgreSQL).
 * The `offload` group (scripts/bench/offload.ts) measures a 1 MiB tool result with and without offload.
 * The `media` group (scripts/bench/media.ts) measures a run row carrying a 113 KB JPEG, inline vs by reference.
 * The `run-writes` group (scripts/bench/run-writes.ts) replays a run's opening and final writes plainly and prepared, and
 * times the log flush a durable commit waits for.
 * The `scheduler` group (scripts/bench/scheduler.ts) times one cron tick claiming and dispatching 10,000 due schedules, with its round trips.
 * The `codemode` group (scripts/bench/codemode.ts) compares 20 lookups by classic tool calling and by CodeMode, and times a cell.
 * The `teams` group (scripts/bench/teams.ts) times a coordinate-mode team (leader + 2 members, one delegation, 3 scripted
 * model calls) above the same 3 requests made with fetch, beside Mastra's supervisor agent and LangGraph.js's
 * supervisor; agno-edge also with PostgresDb on each Postgres target.
 * The `workflows` group (scripts/bench/workflows.ts) times workflows of 10 and of 1 function steps (per step, and the
 * marginal step) beside Mastra workflows and a LangGraph.js StateGraph; agno-edge also with PostgresDb, with and
 * without a checkpoint per step; then (scripts/bench/workflow-recovery.ts) background workflow runs killed with
 * kill -9 mid-way and the time until they all completed after the restart.
 * Their figures, and how they were taken, are in BENCHMARKS.md ("Teams and workflows").
 * The `knowledge` group (scripts/bench/knowledge.ts) measures Markdown ingestion into PgVector (embedder time excluded
 * and included), vector/full-text/hybrid search latency and HNSW recall@10, and search_knowledge_base's prompt size
 * against the whole document, on PGlite with pgvector and on a BENCH_DATABASE_URL server that offers pgvector.
 * The `interfaces` group (scripts/bench/interfaces.ts) measures the Telegram webhook's acknowledgement latency at a
 * steady rate through `npm run dev` and the time from a message to the first text posted back.
 * The `console` group (scripts/bench/console-load.ts) times the browser console (/ui) opening in headless Chromium, on
 * the Worker's first request after its runtime started and on a warm one, over loopback and an emulated slow 4G link.
 * `npm run bench -- storage`, `-- agents`, `-- teams`, `-- workflows`, `-- offload`, `-- media`, `-- run-writes`, `-- http`, `-- queue`, `-- knowledge` or `-- interfaces` runs one group.
 * It starts its own embedded Postgres (PGlite) and WebSocket proxy, as the tests do; with
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) it measures that server too.
 * Every measurement gets a schema of its own, dropped afterwards. Nothing here asserts a time.
 */
import { Pool } from "@neondatabase/serverless";
import ws from "ws";
import { MigrationManager } from "../src/db/migration-manager.js";
import { useLocalWsProxy } from "../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../src/db/postgres/postgres-db.js";
import type { RunRecord } from "../src/db/types.js";
import {
  legacyInsertSQL,
  legacySessionsDDL,
  legacyStampedVersion,
  legacyVersionsDDL,
  makeLegacySession,
  type LegacySessionRow,
} from "../test/fixtures/legacy-2x.js";
import { benchAgents } from "./bench/agents.js";
import { benchCodeMode } from "./bench/codemode.js";
import { benchHttp } from "./bench/http-overhead.js";
import { benchKnowledge } from "./bench/knowledge.js";
import { benchInterfaces } from "./bench/interfaces.js";
import { benchMedia } from "./bench/media.js";
import { benchOffload } from "./bench/offload.js";
import { benchRunWrites } from "./bench/run-writes.js";
import { benchQueue } from "./bench/queue.js";
import { benchScheduler } from "./bench/scheduler.js";
import { benchTeams } from "./bench/teams.js";
import { benchWorkflows } from "./bench/workflows.js";
import { benchWorkflowRecovery } from "./bench/workflow-recovery.js";
import { benchTracing } from "./bench/tracing.js";
import { benchConsoleLoad } from "./bench/console-load.js";
import { emit, inFreshSchema, log, median, round, secondsSince } from "./bench/util.js";
import { startEmbeddedPostgres } from "../src/cli/local/pglite-server.js";
import { startWsProxy } from "../src/cli/local/ws-proxy.js";

interface Target {
  name: "pglite" | "postgresql";
  url: string;
  /** `server_version` as the server reports it (PGlite 0.5.14 embeds PostgreSQL 18) */
  version: string;
}

// -- figure 1: WAL bytes per run -----------------------------------------------------------

const SESSION_RUNS = 1000;
/** Each figure is the median of five consecutive runs: runs 8..12 around run 10, the last five for run 1,000. */
const WINDOWS = [
  { n: 10, first: 8, last: 12 },
  { n: 1000, first: 996, last: 1000 },
];
/** Unmeasured runs between the CHECKPOINT and a window: they take the first-touch full-page images. */
const WARMUP_RUNS = 5;

/** Writes run n (1-based) of the bench session the way one layout persists it. */
interface Writer {
  write(n: number): Promise<void>;
  /**
   * True when a write stores the whole session as it stands after run n (the 2.x blob). Its cost
   * then depends only on that state, so the state before a window takes one write instead of
   * one per earlier run (which would resend every earlier state's JSON, quadratic in the window).
   */
  wholeSession: boolean;
}

interface WindowResult {
  /** the meter's bytes, one per run of the window */
  samples: number[];
  /** the plain LSN difference of the same runs (equal to `samples` where the meter is that difference) */
  lsnDiffs: number[];
  checkpointed: boolean;
}

/** Measures the WAL one write produces. */
interface WalMeter {
  metric: "pg_wal_lsn_diff" | "own_wal_records";
  mark(): Promise<string>;
  since(mark: string): Promise<{ bytes: number; lsnDiff: number }>;
}

const lsnNow = async (pool: Pool, fn: string) => String((await pool.query(`SELECT ${fn}()::text AS lsn`)).rows[0].lsn);

async function lsnDiffSince(pool: Pool, mark: string): Promise<number> {
  // The insert position, not the write/flush one: it counts every record inserted so far.
  const { rows } = await pool.query(
    "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint AS bytes",
    [mark],
  );
  return Number(rows[0].bytes);
}

/**
 * The LSN difference counts every session's WAL. The embedded Postgres belongs to this process,
 * so there it is exact. A real server may be shared (on this machine other work runs its tests
 * against it), so there, when pg_walinspect can be installed, the meter adds up only the records
 * between the two positions that touch this schema's relations (tables, indexes, TOAST) or
 * belong to a transaction that does (its commit record). Each record counts with its alignment
 * padding, as in the LSN difference; on an idle server the two agree to the byte.
 */
async function walMeter(pool: Pool, schema: string, target: Target): Promise<WalMeter> {
  const plain: WalMeter = {
    metric: "pg_wal_lsn_diff",
    mark: () => lsnNow(pool, "pg_current_wal_insert_lsn"),
    since: async (mark) => {
      const bytes = await lsnDiffSince(pool, mark);
      return { bytes, lsnDiff: bytes };
    },
  };
  if (target.name === "pglite") return plain;
  let walinspect: string;
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    // In the bench schema, so dropping the schema removes it; one installed earlier stays where it is.
    await pool.query(`CREATE EXTENSION IF NOT EXISTS pg_walinspect SCHEMA "${schema}"`);
    const { rows } = await pool.query(
      "SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_walinspect'",
    );
    walinspect = String(rows[0].schema);
  } catch (e) {
    log(
      `${target.name}: pg_walinspect unavailable (${(e as Error).message}); the plain LSN difference also counts other sessions' writes`,
    );
    return plain;
  }
  const ownRecords = `
    WITH ours AS (
      SELECT c.relfilenode FROM pg_class c WHERE c.relnamespace = $3::regnamespace
      UNION ALL SELECT t.relfilenode FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid WHERE c.relnamespace = $3::regnamespace
      UNION ALL SELECT i.relfilenode FROM pg_class c JOIN pg_index x ON x.indrelid = c.reltoastrelid JOIN pg_class i ON i.oid = x.indexrelid
        WHERE c.relnamespace = $3::regnamespace
    ), recs AS (
      SELECT xid::text AS xid, pg_wal_lsn_diff(end_lsn, start_lsn) AS bytes,
        EXISTS (SELECT 1 FROM regexp_matches(block_ref, 'rel \\d+/\\d+/(\\d+)', 'g') m WHERE m[1]::oid IN (SELECT relfilenode FROM ours)) AS touches
      FROM ${walinspect}.pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
    )
    SELECT COALESCE(sum(bytes), 0)::bigint AS bytes FROM recs
    WHERE touches OR xid IN (SELECT xid FROM recs WHERE touches AND xid <> '0')`;
  return {
    metric: "own_wal_records",
    mark: plain.mark,
    since: async (mark) => {
      // The flush position bounds what pg_walinspect (PostgreSQL 15) may read; the write's own commit is flushed.
      const end = await lsnNow(pool, "pg_current_wal_flush_lsn");
      const lsnDiff = await lsnDiffSince(pool, mark);
      const { rows } = await pool.query(ownRecords, [mark, end, schema]);
      return { bytes: Number(rows[0].bytes), lsnDiff };
    },
  };
}

/** CHECKPOINT needs superuser or pg_checkpoint; without it a window still gets its warm-up runs. */
async function checkpoint(pool: Pool): Promise<boolean> {
  try {
    await pool.query("CHECKPOINT");
    return true;
  } catch (e) {
    log(`CHECKPOINT refused (${(e as Error).message}); measuring without it`);
    return false;
  }
}

/**
 * Writes runs 1..SESSION_RUNS of one session and measures the WAL of each run in a window.
 * Before each window: CHECKPOINT, then WARMUP_RUNS unmeasured runs, so the window does not pay
 * the full-page images a checkpoint makes the next change to each page write.
 */
async function walPerRun(
  pool: Pool,
  meter: WalMeter,
  { write, wholeSession }: Writer,
): Promise<Map<number, WindowResult>> {
  const out = new Map<number, WindowResult>();
  let next = 1;
  for (const w of WINDOWS) {
    const warmupFrom = w.first - WARMUP_RUNS;
    if (wholeSession && next < warmupFrom) next = warmupFrom - 1;
    while (next < warmupFrom) await write(next++);
    const checkpointed = await checkpoint(pool);
    while (next < w.first) await write(next++);
    const samples: number[] = [];
    const lsnDiffs: number[] = [];
    const millis: number[] = [];
    while (next <= w.last) {
      const mark = await meter.mark();
      const started = performance.now();
      await write(next++);
      millis.push(performance.now() - started);
      const { bytes, lsnDiff } = await meter.since(mark);
      samples.push(bytes);
      lsnDiffs.push(lsnDiff);
    }
    // Latency is context for the reader, not a figure: this machine is shared and small.
    log(`  run ${w.n}: ${samples.join(", ")} bytes; ${median(millis).toFixed(1)} ms per write (median)`);
    out.set(w.n, { samples, lsnDiffs, checkpointed });
  }
  return out;
}

const WORDS = (
  "the model answered with a short summary of weather data for each city and noted that rain is likely tomorrow " +
  "while temperatures stay mild across the region so travel plans should include an umbrella plus some time buffer " +
  "because trains may run late after storms according to local reports from yesterday evening"
).split(" ");

/**
 * Deterministic pseudo-prose (xorshift over a word list). The fixture's texts are one template
 * for every run, which pglz compresses across a blob far better than real turns, which differ; so
 * each run gets its own question and answer and the compressor meets new text in every run, as it would.
 */
function prose(seed: number, chars: number): string {
  let x = (seed * 2654435761 + 1) >>> 0;
  let text = "";
  while (text.length < chars) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    text += `${WORDS[x % WORDS.length]} `;
  }
  return text.slice(0, chars);
}

/** One agent session of 2.x run dicts (system/user/assistant+tool call/tool/assistant, tools, metrics). */
function benchSession(): LegacySessionRow {
  const session = makeLegacySession({
    sessionId: "bench-session",
    kind: "agent",
    runs: SESSION_RUNS,
    userId: "bench-user",
  });
  session.runs!.forEach((run, i) => {
    const messages = run.messages as { role: string; content?: unknown }[];
    const question = prose(2 * i, 80);
    const answer = prose(2 * i + 1, 300);
    messages.find((m) => m.role === "user")!.content = question;
    messages.findLast((m) => m.role === "assistant")!.content = answer;
    run.input = { input_content: question };
    run.content = answer;
  });
  return session;
}

/** The session as it stands after run n: runs 1..n, and token totals that grow with them. */
function sessionAfter(session: LegacySessionRow, n: number): LegacySessionRow {
  const runs = session.runs!.slice(0, n);
  const tokens = runs.reduce((sum, r) => sum + Number((r.metrics as { total_tokens: number }).total_tokens), 0);
  return {
    ...session,
    runs,
    session_data: { session_state: {}, session_metrics: { total_tokens: tokens } },
    updated_at: Number(runs[runs.length - 1]!.created_at),
  };
}

/** agno 3.0's layout through the adapter: per run, the session row (its metrics) and the run's own row. */
async function runRowsWriter(pool: Pool, schema: string, session: LegacySessionRow): Promise<Writer> {
  const db = new PostgresDb({ pool, schema, id: "bench" });
  await db.init();
  return {
    wholeSession: false,
    write: async (n) => {
      const { runs, ...row } = sessionAfter(session, n);
      await db.upsertSession(row);
      await db.upsertRun(runs![n - 1] as RunRecord);
    },
  };
}

/** agno 2.x: per run, the session row upserted with the whole runs array (2.9's PostgresDb.upsert_session). */
async function sessionBlobWriter(pool: Pool, schema: string, session: LegacySessionRow): Promise<Writer> {
  for (const statement of legacySessionsDDL(schema)) await pool.query(statement);
  return {
    wholeSession: true,
    write: async (n) => {
      const { text, values } = legacyInsertSQL(schema, sessionAfter(session, n));
      await pool.query(
        `${text} ON CONFLICT (session_id) DO UPDATE SET agent_data = EXCLUDED.agent_data, session_data = EXCLUDED.session_data,
           metadata = EXCLUDED.metadata, runs = EXCLUDED.runs, summary = EXCLUDED.summary, updated_at = EXCLUDED.updated_at`,
        values,
      );
    },
  };
}

async function benchWal(target: Target): Promise<void> {
  const session = benchSession();
  const runJsonBytes = Math.round(JSON.stringify(session.runs).length / SESSION_RUNS);
  const layouts = [
    ["run_rows", runRowsWriter],
    ["session_blob", sessionBlobWriter],
  ] as const;
  for (const [layout, makeWriter] of layouts) {
    log(`${target.name}: WAL per run, ${layout} (${SESSION_RUNS} runs of one session)`);
    const started = performance.now();
    const { metric, windows } = await inFreshSchema(target.url, async (pool, schema) => {
      const meter = await walMeter(pool, schema, target);
      return { metric: meter.metric, windows: await walPerRun(pool, meter, await makeWriter(pool, schema, session)) };
    });
    log(`  done in ${secondsSince(started).toFixed(1)} s`);
    const medians = new Map<number, number>();
    for (const w of WINDOWS) {
      const { samples, lsnDiffs, checkpointed } = windows.get(w.n)!;
      medians.set(w.n, median(samples));
      emit({
        bench: "wal_bytes_per_run",
        target: target.name,
        server_version: target.version,
        metric,
        statistic: "median",
        layout,
        n: w.n,
        bytes: medians.get(w.n),
        runs_measured: [w.first, w.last],
        samples,
        ...(metric === "pg_wal_lsn_diff" ? {} : { lsn_diff_samples: lsnDiffs }),
        checkpoint: checkpointed,
        run_json_bytes: runJsonBytes,
      });
    }
    emit({
      bench: "wal_bytes_per_run_ratio",
      target: target.name,
      server_version: target.version,
      metric,
      layout,
      ratio_1000_over_10: round(medians.get(1000)! / medians.get(10)!),
    });
  }
}

// -- figure 2: migration throughput --------------------------------------------------------

/** One pass over 10,000 runs is short, so one sample is noisy: repeat on fresh copies. */
const MIGRATION_REPEATS = 3;

/** 10,000 runs in 2.x blobs: 400 agent sessions x 20 runs, 50 team sessions x 20 (8 team + 12 member runs), 50 workflow sessions x 20. */
function migrationFixture(): LegacySessionRow[] {
  const rows: LegacySessionRow[] = [];
  const t0 = 1_750_000_000;
  const user = (i: number) => `user-${i % 37}`;
  for (let i = 0; i < 400; i++)
    rows.push(
      makeLegacySession({ sessionId: `agent-${i}`, kind: "agent", runs: 20, userId: user(i), createdAt: t0 + i }),
    );
  for (let i = 0; i < 50; i++)
    rows.push(makeLegacySession({ sessionId: `team-${i}`, kind: "team", runs: 8, userId: user(i), createdAt: t0 + i }));
  for (let i = 0; i < 50; i++)
    rows.push(
      makeLegacySession({ sessionId: `workflow-${i}`, kind: "workflow", runs: 20, userId: null, createdAt: t0 + i }),
    );
  return rows;
}

/** Lays down an agno 2.9 database: its tables, its version stamp, and the rows in one transaction. */
async function seedLegacy(pool: Pool, schema: string, rows: LegacySessionRow[]): Promise<void> {
  for (const statement of [...legacySessionsDDL(schema), ...legacyVersionsDDL(schema)]) await pool.query(statement);
  await pool.query(
    `INSERT INTO "${schema}".agno_schema_versions (table_name, version, created_at) VALUES ('agno_sessions', $1, $2)`,
    [legacyStampedVersion("2.9"), "2025-06-01T00:00:00"],
  );
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    for (const row of rows) {
      const { text, values } = legacyInsertSQL(schema, row);
      await client.query(text, values);
    }
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

/** One timed `MigrationManager.up()` on a fresh fixture; fails unless every run landed in agno_runs. */
async function migrateOnce(
  target: Target,
  rows: LegacySessionRow[],
  expected: number,
): Promise<{ seconds: number; inTable: number }> {
  return inFreshSchema(target.url, async (pool, schema) => {
    await seedLegacy(pool, schema, rows);
    const db = new PostgresDb({ pool, schema, id: "bench" });
    // An app checks the schema (creating agno_runs) at startup, before anyone calls up().
    const state = await db.init();
    if (state !== "migration_required") throw new Error(`the fixture reads as ${state}, not migration_required`);
    const started = performance.now();
    const result = await new MigrationManager(db).up();
    const seconds = secondsSince(started);

    // A throughput over runs that were never copied would measure nothing: stop instead.
    const { rows: counted } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".agno_runs`);
    const inTable = Number(counted[0].n);
    const copied = result.bench!.runsCopied;
    if (inTable !== expected || copied !== expected) {
      throw new Error(`migration copied ${copied} runs and agno_runs holds ${inTable}; expected ${expected}`);
    }
    log(`${target.name}: migrated ${inTable} runs in ${seconds.toFixed(3)} s`);
    return { seconds, inTable };
  });
}

async function benchMigration(target: Target): Promise<void> {
  const rows = migrationFixture();
  const expected = rows.reduce(
    (sum, r) => sum + (r.runs ?? []).filter((run) => typeof run.run_id === "string").length,
    0,
  );
  const passes: { seconds: number; inTable: number }[] = [];
  for (let i = 0; i < MIGRATION_REPEATS; i++) passes.push(await migrateOnce(target, rows, expected));
  const seconds = median(passes.map((p) => p.seconds));
  emit({
    bench: "migration_throughput",
    target: target.name,
    server_version: target.version,
    sessions: rows.length,
    runs: expected,
    runs_in_agno_runs: passes.map((p) => p.inTable),
    fixture_runs_json_bytes: rows.reduce((sum, r) => sum + JSON.stringify(r.runs).length, 0),
    seconds: round(seconds, 3),
    runs_per_second: Math.round(expected / seconds),
    samples_seconds: passes.map((p) => round(p.seconds, 3)),
  });
}

// -- main ----------------------------------------------------------------------------------

async function serverVersion(url: string): Promise<string> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query("SHOW server_version");
    return String(rows[0].server_version);
  } finally {
    await pool.end();
  }
}

const GROUPS = [
  "storage",
  "agents",
  "teams",
  "workflows",
  "offload",
  "media",
  "run-writes",
  "http",
  "queue",
  "scheduler",
  "codemode",
  "knowledge",
  "interfaces",
  "tracing",
  "console",
] as const;

/** The groups that measure against the embedded Postgres and BENCH_DATABASE_URL's server. */
const DATABASE_GROUPS = new Set<(typeof GROUPS)[number]>([
  "storage",
  "agents",
  "teams",
  "workflows",
  "offload",
  "media",
  "run-writes",
  "knowledge",
]);

/** `npm run bench [-- storage|agents|offload|media|http|queue ...]`: the groups to run, all by default. */
function groups(args: string[]): Set<(typeof GROUPS)[number]> {
  const unknown = args.filter((a) => !(GROUPS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`unknown bench group ${unknown.join(", ")}; use ${GROUPS.join(" or ")}`);
  return new Set(args.length ? (args as (typeof GROUPS)[number][]) : GROUPS);
}

async function main(): Promise<void> {
  const run = groups(process.argv.slice(2));
  if ([...run].some((g) => DATABASE_GROUPS.has(g))) await benchDatabases(run);
  // Last, and with nothing of the groups above still running: it starts runtimes of its own.
  if (run.has("http")) await benchHttp();
  if (run.has("workflows")) await benchWorkflowRecovery();
  if (run.has("queue")) await benchQueue();
  if (run.has("scheduler")) await benchScheduler();
  if (run.has("codemode")) await benchCodeMode();
  if (run.has("interfaces")) await benchInterfaces();
  if (run.has("tracing")) await benchTracing();
  if (run.has("console")) await benchConsoleLoad();
}

/** The storage and agent groups, against the embedded Postgres and BENCH_DATABASE_URL's server. */
async function benchDatabases(run: Set<(typeof GROUPS)[number]>): Promise<void> {
  const realUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || "";
  const pglite = await startEmbeddedPostgres();
  const urls: [Target["name"], string][] = [["pglite", pglite.url]];
  const allow = [`${pglite.host}:${pglite.port}`];
  if (realUrl) {
    const u = new URL(realUrl);
    allow.push(`${u.hostname}:${u.port || "5432"}`);
    urls.push(["postgresql", realUrl]);
  } else {
    log("BENCH_DATABASE_URL is not set: measuring the embedded Postgres (PGlite) only");
  }
  const proxy = await startWsProxy({ allow });
  useLocalWsProxy(proxy.address, ws);
  try {
    if (run.has("storage")) {
      for (const [name, url] of urls) {
        const target: Target = { name, url, version: await serverVersion(url) };
        log(`${name}: PostgreSQL ${target.version}`);
        await benchWal(target);
        await benchMigration(target);
      }
    }
    if (run.has("agents"))
      await benchAgents({ dbTargets: urls.map(([name, url]) => ({ name, url })), wsProxy: proxy.address });
    if (run.has("teams"))
      await benchTeams({ dbTargets: urls.map(([name, url]) => ({ name, url })), wsProxy: proxy.address });
    if (run.has("workflows"))
      await benchWorkflows({ dbTargets: urls.map(([name, url]) => ({ name, url })), wsProxy: proxy.address });
    if (run.has("offload")) await benchOffload({ dbTargets: urls.map(([name, url]) => ({ name, url })) });
    if (run.has("media")) await benchMedia({ dbTargets: urls.map(([name, url]) => ({ name, url })) });
    if (run.has("run-writes")) await benchRunWrites({ dbTargets: urls.map(([name, url]) => ({ name, url })) });
    // The embedded wire server has no pgvector: the group runs its own PGlite with it, and the real server if it offers it.
    if (run.has("knowledge"))
      await benchKnowledge({
        servers: urls.filter(([name]) => name !== "pglite").map(([name, url]) => ({ name, url })),
      });
  } finally {
    await proxy.stop();
    await pglite.stop();
  }
}

main().catch((e: unknown) => {
  log(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exitCode = 1;
});
