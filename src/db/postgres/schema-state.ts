import { sql, type SQL } from "drizzle-orm";
import { MIGRATIONS, CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { SchemaMismatchError } from "../../errors.js";
import type { SchemaState } from "../types.js";
import { LEGACY_RUNS_COLUMN } from "./legacy.js";
import { qualified, type TableNames } from "./names.js";

export type Rows = Record<string, unknown>[];
/**
 * Runs one statement. `name` marks a statement sent on every run (a run's opening and final
 * writes): where the adapter keeps prepared statements, it is prepared once per connection
 * under that name, so the server does not parse and plan it again. `values` fill the
 * `sql.placeholder`s of a statement template built once (see runStatement).
 */
export type Exec = (query: SQL, name?: string, values?: Record<string, unknown>) => Promise<Rows>;

/** Columns the code relies on; a table without them was made by something else. */
const REQUIRED_COLUMNS = {
  sessions: [
    "session_id",
    "session_type",
    "agent_id",
    "team_id",
    "workflow_id",
    "user_id",
    "session_data",
    "created_at",
    "updated_at",
  ],
  runs: [
    "run_id",
    "session_id",
    "run_type",
    "agent_id",
    "team_id",
    "workflow_id",
    "user_id",
    "parent_run_id",
    "status",
    "run_index",
    "run_data",
    "created_at",
    "updated_at",
  ],
} as const;

export interface Inspection {
  state: SchemaState;
  version: string | null;
  hasLegacyRunsColumn: boolean;
}

/** Compares dotted versions numerically ("3.0.0" > "2.10.1"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The migration SQL with `{schema}`, `{sessions}`, `{sessions_idx}`, … filled in. */
export function renderStatements(schema: string, names: TableNames): string[] {
  const map: Record<string, string> = {
    schema: `"${schema}"`,
    versions: qualified(schema, names.versions),
    sessions: qualified(schema, names.sessions),
    runs: qualified(schema, names.runs),
    jobs: qualified(schema, names.jobs),
    tool_results: qualified(schema, names.toolResults),
    memories: qualified(schema, names.memories),
    run_events: qualified(schema, names.runEvents),
    schedules: qualified(schema, names.schedules),
    schedule_runs: qualified(schema, names.scheduleRuns),
    learnings: qualified(schema, names.learnings),
    knowledge: qualified(schema, names.knowledge),
    approvals: qualified(schema, names.approvals),
    // the trigger that writes a paused run's approval, and its function (per table name: one database may host several deployments)
    approvals_fn: qualified(schema, `${names.approvals}_from_pause`),
    approvals_trigger: `${names.approvals}_from_pause`,
    service_accounts: qualified(schema, names.serviceAccounts),
    audit_log: qualified(schema, names.auditLog),
    metrics: qualified(schema, names.metrics),
    evals: qualified(schema, names.evals),
    traces: qualified(schema, names.traces),
    spans: qualified(schema, names.spans),
    components: qualified(schema, names.components),
    component_configs: qualified(schema, names.componentConfigs),
    component_links: qualified(schema, names.componentLinks),
    sessions_idx: `idx_${names.sessions}`,
    runs_idx: `idx_${names.runs}`,
    jobs_idx: `idx_${names.jobs}`,
    tool_results_idx: `idx_${names.toolResults}`,
    memories_idx: `idx_${names.memories}`,
    run_events_idx: `idx_${names.runEvents}`,
    schedules_idx: `idx_${names.schedules}`,
    schedule_runs_idx: `idx_${names.scheduleRuns}`,
    learnings_idx: `idx_${names.learnings}`,
    knowledge_idx: `idx_${names.knowledge}`,
    approvals_idx: `idx_${names.approvals}`,
    service_accounts_idx: `idx_${names.serviceAccounts}`,
    audit_log_idx: `idx_${names.auditLog}`,
    metrics_idx: `idx_${names.metrics}`,
    evals_idx: `idx_${names.evals}`,
    traces_idx: `idx_${names.traces}`,
    spans_idx: `idx_${names.spans}`,
    components_idx: `idx_${names.components}`,
    component_configs_idx: `idx_${names.componentConfigs}`,
    component_links_idx: `idx_${names.componentLinks}`,
  };
  return MIGRATIONS.flatMap((m) =>
    m.statements.map((s) => s.replace(/\{(\w+)\}/g, (_, k: string) => map[k] ?? `{${k}}`)),
  );
}

async function columnsOf(exec: Exec, schema: string, names: TableNames): Promise<Map<string, Set<string>>> {
  const rows = await exec(
    sql`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ${schema}
        AND table_name IN (${names.sessions}, ${names.runs}, ${names.versions})`,
  );
  const out = new Map<string, Set<string>>();
  for (const row of rows) {
    const table = String(row.table_name);
    if (!out.has(table)) out.set(table, new Set());
    out.get(table)!.add(String(row.column_name));
  }
  return out;
}

function requireColumns(table: string, present: Set<string> | undefined, needed: readonly string[]): void {
  if (!present) return;
  const missing = needed.filter((c) => !present.has(c));
  if (missing.length > 0) {
    throw new SchemaMismatchError(
      `table ${table} lacks column(s) ${missing.join(", ")}: it was not created by agno 3.0 or agno-edge; ` +
        `point the adapter at another schema or table name, or fix the table`,
    );
  }
}

/**
 * Reads what the database holds and brings a fresh or partly created one up to the current
 * layout. DDL runs under an advisory lock, so isolates that start together do not race.
 * A database with agno 2.x's runs blob is left readable and reported as `migration_required`:
 * copying its runs is `MigrationManager.up()`'s job, never a side effect of a read.
 */
export async function ensureSchema(
  exec: Exec,
  transaction: <T>(fn: (exec: Exec) => Promise<T>) => Promise<T>,
  schema: string,
  names: TableNames,
): Promise<Inspection> {
  const quick = await isCurrent(exec, schema, names);
  if (quick)
    return { state: "current", version: CURRENT_SCHEMA_VERSION, hasLegacyRunsColumn: quick.hasLegacyRunsColumn };
  return transaction(async (tx) => {
    await tx(sql`SELECT pg_advisory_xact_lock(hashtext(${`agno:${schema}`}))`);
    const before = await columnsOf(tx, schema, names);
    const stamped = before.has(names.versions) ? await readVersions(tx, schema, names) : new Map<string, string>();
    for (const [table, version] of stamped) {
      if (compareVersions(version, CURRENT_SCHEMA_VERSION) > 0) {
        throw new SchemaMismatchError(
          `table ${table} is at schema version ${version}, newer than this code's ${CURRENT_SCHEMA_VERSION}: upgrade agno-edge`,
        );
      }
    }
    requireColumns(
      names.sessions,
      before.get(names.sessions),
      REQUIRED_COLUMNS.sessions.filter((c) => c !== "updated_at"),
    );
    requireColumns(names.runs, before.get(names.runs), REQUIRED_COLUMNS.runs);

    for (const statement of renderStatements(schema, names)) await tx(sql.raw(statement));

    const hasLegacyRunsColumn = before.get(names.sessions)?.has(LEGACY_RUNS_COLUMN) ?? false;
    const sessionsVersion = stamped.get(names.sessions) ?? null;
    const legacyPending =
      hasLegacyRunsColumn && (sessionsVersion === null || compareVersions(sessionsVersion, CURRENT_SCHEMA_VERSION) < 0);
    // Sessions keep their old stamp while agno 2.x runs still wait in them: that is what says "migrate".
    const toStamp = stampedTables(names).filter((t) => !legacyPending || t !== names.sessions);
    await stampVersions(tx, schema, names, toStamp, CURRENT_SCHEMA_VERSION);
    return {
      state: legacyPending ? "migration_required" : "current",
      version: legacyPending ? sessionsVersion : CURRENT_SCHEMA_VERSION,
      hasLegacyRunsColumn,
    };
  });
}

/** The common case, answered without DDL or locks: every table exists and is stamped current. */
async function isCurrent(
  exec: Exec,
  schema: string,
  names: TableNames,
): Promise<{ hasLegacyRunsColumn: boolean } | null> {
  const columns = await columnsOf(exec, schema, names);
  if (!columns.has(names.versions) || !columns.has(names.runs) || !columns.has(names.sessions)) return null;
  const stamped = await readVersions(exec, schema, names);
  // A table added since a database was stamped has no stamp yet: that sends it through the DDL.
  if (!stampedTables(names).every((t) => stamped.get(t) === CURRENT_SCHEMA_VERSION)) return null;
  requireColumns(names.runs, columns.get(names.runs), REQUIRED_COLUMNS.runs);
  return { hasLegacyRunsColumn: columns.get(names.sessions)!.has(LEGACY_RUNS_COLUMN) };
}

/** The tables that carry a version stamp: each migration's `tables`, by their configured names, and the versions table. */
function stampedTables(names: TableNames): string[] {
  return [...MIGRATIONS.flatMap((m) => m.tables.map((t) => names[t])), names.versions];
}

async function readVersions(exec: Exec, schema: string, names: TableNames): Promise<Map<string, string>> {
  const rows = await exec(sql.raw(`SELECT table_name, version FROM ${qualified(schema, names.versions)}`));
  return new Map(rows.map((r) => [String(r.table_name), String(r.version)]));
}

/** Records `version` for each table (callers have already refused a database that is ahead). */
export async function stampVersions(
  exec: Exec,
  schema: string,
  names: TableNames,
  tables: string[],
  version: string,
): Promise<void> {
  const now = new Date().toISOString();
  const target = sql.raw(qualified(schema, names.versions));
  for (const table of tables) {
    await exec(sql`INSERT INTO ${target} (table_name, version, created_at) VALUES (${table}, ${version}, ${now})
      ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version, updated_at = ${now}
      WHERE ${target}.version <> EXCLUDED.version`);
  }
}
