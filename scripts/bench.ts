/**
 * `npm run bench`: the storage figures of BENCHMARKS.md, one JSON line per figure on stdout
 * (progress goes to stderr). It starts its own embedded Postgres and WebSocket proxy, as the
 * tests do; with BENCH_DATABASE_URL (or TEST_DATABASE_URL) it measures that server as well.
 * Every measurement gets a schema of its own, dropped afterwards.
 */
import { Pool } from "@neondatabase/serverless";
import ws from "ws";
import { MigrationManager } from "../src/db/migration-manager.js";
import { useLocalWsProxy } from "../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../src/db/postgres/postgres-db.js";
import {
  legacyInsertSQL,
  legacySessionsDDL,
  legacyStampedVersion,
  legacyVersionsDDL,
  makeLegacySession,
  type LegacySessionRow,
} from "../test/fixtures/legacy-2x.js";
import { startEmbeddedPostgres } from "./local/pglite-server.js";
import { startWsProxy } from "./local/ws-proxy.js";

interface Target {
  name: "pglite" | "postgresql";
  url: string;
}

const emit = (figure: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(figure)}\n`);
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

let schemaCounter = 0;

/** Runs `fn` in a fresh schema on `target` and drops the schema afterwards, whatever happens. */
async function inFreshSchema<T>(target: Target, fn: (pool: Pool, schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  const pool = new Pool({ connectionString: target.url, max: 4 });
  try {
    return await fn(pool, schema);
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

// -- figure 1: WAL bytes per run -----------------------------------------------------------

const SESSION_RUNS = 1000;
/** Each figure is the median of five consecutive runs around N (runs N-2 .. N+2, or the last five). */
const WINDOWS = [
  { n: 10, first: 8, last: 12 },
  { n: 1000, first: 996, last: 1000 },
];
/** Runs written between the CHECKPOINT and a window, so the window's pages already carry their full-page images. */
const WARMUP_RUNS = 5;

type WriteRun = (n: number) => Promise<void>;

async function walPosition(pool: Pool): Promise<string> {
  // The insert position, not the flushed one: it counts every record this write produced.
  const { rows } = await pool.query("SELECT pg_current_wal_insert_lsn()::text AS lsn");
  return String(rows[0].lsn);
}

async function walSince(pool: Pool, lsn: string): Promise<number> {
  const { rows } = await pool.query("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint AS bytes", [lsn]);
  return Number(rows[0].bytes);
}

/** CHECKPOINT needs superuser or pg_checkpoint; without it the window still gets its warm-up. */
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
 * Writes runs 1..SESSION_RUNS of one session with `write`, and measures the WAL each run of a
 * window produces. Before each window: CHECKPOINT, then WARMUP_RUNS unmeasured runs, so the
 * first-touch full-page images land outside the window.
 */
async function walPerRun(pool: Pool, write: WriteRun): Promise<Map<number, { samples: number[]; checkpointed: boolean }>> {
  const out = new Map<number, { samples: number[]; checkpointed: boolean }>();
  let next = 1;
  for (const w of WINDOWS) {
    while (next < w.first - WARMUP_RUNS) await write(next++);
    const checkpointed = await checkpoint(pool);
    while (next < w.first) await write(next++);
    const samples: number[] = [];
    while (next <= w.last) {
      const before = await walPosition(pool);
      await write(next++);
      samples.push(await walSince(pool, before));
    }
    out.set(w.n, { samples, checkpointed });
    log(`  run ${w.n}: ${samples.join(", ")} bytes`);
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** One agent session with SESSION_RUNS realistic 2.x run dicts (~2.2 KB each: system/user/assistant/tool/assistant). */
function benchSession(): LegacySessionRow {
  return makeLegacySession({ sessionId: "bench-session", kind: "agent", runs: SESSION_RUNS, userId: "bench-user" });
}

/** The session as it stands after run n: runs 1..n and token totals that grow with them, as agno keeps them. */
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

/** agno 3.0's layout through the adapter: per run, the session row (metrics) and the run's own row. */
async function runRowsWriter(pool: Pool, schema: string, session: LegacySessionRow): Promise<WriteRun> {
  const db = new PostgresDb({ pool, schema, id: "bench" });
  await db.init();
  return async (n) => {
    const { runs, ...row } = sessionAfter(session, n);
    await db.upsertSession(row);
    await db.upsertRun(runs[n - 1]!);
  };
}

/** agno 2.x: per run, upsert the session row with the whole runs array (PostgresDb.upsert_session in 2.9). */
async function sessionBlobWriter(pool: Pool, schema: string, session: LegacySessionRow): Promise<WriteRun> {
  for (const statement of legacySessionsDDL(schema)) await pool.query(statement);
  return async (n) => {
    const { text, values } = legacyInsertSQL(schema, sessionAfter(session, n));
    await pool.query(
      `${text} ON CONFLICT (session_id) DO UPDATE SET agent_data = EXCLUDED.agent_data, session_data = EXCLUDED.session_data,
         metadata = EXCLUDED.metadata, runs = EXCLUDED.runs, summary = EXCLUDED.summary, updated_at = EXCLUDED.updated_at`,
      values,
    );
  };
}

async function benchWal(target: Target): Promise<void> {
  const session = benchSession();
  const layouts = [
    ["run_rows", runRowsWriter],
    ["session_blob", sessionBlobWriter],
  ] as const;
  for (const [layout, makeWriter] of layouts) {
    log(`${target.name}: WAL per run, ${layout}, ${SESSION_RUNS} runs`);
    const started = performance.now();
    const windows = await inFreshSchema(target, async (pool, schema) => walPerRun(pool, await makeWriter(pool, schema, session)));
    log(`  ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const medians = new Map<number, number>();
    for (const w of WINDOWS) {
      const { samples, checkpointed } = windows.get(w.n)!;
      medians.set(w.n, median(samples));
      emit({
        bench: "wal_bytes_per_run",
        target: target.name,
        metric: "pg_wal_lsn_diff(pg_current_wal_insert_lsn)",
        layout,
        n: w.n,
        bytes: medians.get(w.n),
        runs_measured: [w.first, w.last],
        samples,
        checkpoint: checkpointed,
      });
    }
    emit({ bench: "wal_bytes_per_run_ratio", target: target.name, layout, ratio_1000_over_10: round(medians.get(1000)! / medians.get(10)!) });
  }
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

// -- figure 2: migration throughput --------------------------------------------------------

/** ~10,000 runs in agno 2.x blobs: 400 agent sessions x 20 runs, 50 team sessions x 20 entries (8 team runs + 12 member runs), 50 workflow sessions x 20 runs. */
function migrationFixture(): LegacySessionRow[] {
  const rows: LegacySessionRow[] = [];
  const t0 = 1_750_000_000;
  for (let i = 0; i < 400; i++) rows.push(makeLegacySession({ sessionId: `agent-${i}`, kind: "agent", runs: 20, userId: `user-${i % 37}`, createdAt: t0 + i }));
  for (let i = 0; i < 50; i++) rows.push(makeLegacySession({ sessionId: `team-${i}`, kind: "team", runs: 8, userId: `user-${i % 37}`, createdAt: t0 + i }));
  for (let i = 0; i < 50; i++) rows.push(makeLegacySession({ sessionId: `workflow-${i}`, kind: "workflow", runs: 20, userId: null, createdAt: t0 + i }));
  return rows;
}

async function benchMigration(target: Target): Promise<void> {
  const rows = migrationFixture();
  const expected = rows.reduce((sum, r) => sum + (r.runs ?? []).filter((run) => typeof run.run_id === "string").length, 0);
  await inFreshSchema(target, async (pool, schema) => {
    log(`${target.name}: migration fixture, ${rows.length} sessions, ${expected} runs`);
    for (const statement of [...legacySessionsDDL(schema), ...legacyVersionsDDL(schema)]) await pool.query(statement);
    await pool.query(`INSERT INTO "${schema}".agno_schema_versions (table_name, version, created_at) VALUES ('agno_sessions', $1, $2)`, [
      legacyStampedVersion("2.9"),
      "2025-06-01T00:00:00",
    ]);
    // One transaction for the whole fixture: one commit instead of one per session.
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

    const db = new PostgresDb({ pool, schema, id: "bench" });
    // The schema check (and creation of agno_runs) happens at startup in an app, not in up().
    const state = await db.init();
    if (state !== "migration_required") throw new Error(`fixture reads as ${state}, not migration_required`);
    log(`${target.name}: migrating`);
    const started = performance.now();
    const result = await new MigrationManager(db).up();
    const seconds = (performance.now() - started) / 1000;

    const { rows: counted } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".agno_runs`);
    const inTable = Number(counted[0].n);
    const copied = result.bench!.runsCopied;
    // A throughput over runs that were never copied would be a fiction: stop instead.
    if (inTable !== expected || copied !== expected) {
      throw new Error(`migration copied ${copied} runs and agno_runs holds ${inTable}, expected ${expected}`);
    }
    emit({
      bench: "migration_throughput",
      target: target.name,
      sessions: rows.length,
      runs: inTable,
      runs_copied: copied,
      seconds: round(seconds, 3),
      runs_per_second: Math.round(inTable / seconds),
    });
  });
}

// -- main ----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const realUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || "";
  const pglite = await startEmbeddedPostgres();
  const allow = [`${pglite.host}:${pglite.port}`];
  const targets: Target[] = [{ name: "pglite", url: pglite.url }];
  if (realUrl) {
    const u = new URL(realUrl);
    allow.push(`${u.hostname}:${u.port || "5432"}`);
    targets.push({ name: "postgresql", url: realUrl });
  } else {
    log("BENCH_DATABASE_URL is not set: measuring the embedded Postgres (PGlite) only");
  }
  const proxy = await startWsProxy({ allow });
  useLocalWsProxy(proxy.address, ws);
  try {
    for (const target of targets) {
      await benchWal(target);
      await benchMigration(target);
    }
  } finally {
    await proxy.stop();
    await pglite.stop();
  }
}

main().catch((e: unknown) => {
  log(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exitCode = 1;
});
