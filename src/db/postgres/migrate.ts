import { sql, type SQL } from "drizzle-orm";
import { CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { ConfirmationRequiredError, MigrationRequiredError } from "../../errors.js";
import type { MigrateOptions, MigrationResult } from "../port.js";
import { idList } from "./id-list.js";
import { LEGACY_RUN_TYPE_SQL } from "./legacy.js";
import { qualified, type TableNames } from "./names.js";
import { stampVersions, type Exec, type Inspection } from "./schema-state.js";

export interface MigrationContext {
  exec: Exec;
  transaction: <T>(fn: (exec: Exec) => Promise<T>) => Promise<T>;
  schema: string;
  names: TableNames;
}

/** Sessions whose legacy blob still holds runs. */
const HAS_LEGACY_RUNS = sql.raw(`jsonb_typeof(runs::jsonb) = 'array' AND jsonb_array_length(runs::jsonb) > 0`);

/**
 * Copies runs out of agno 2.x session blobs into `agno_runs`, a batch of sessions per
 * transaction, in the way agno 3.0's migration does: `run_data` is the legacy dict unchanged,
 * `run_index` its position in the array, `run_type` agent/team/workflow from its ids,
 * `user_id` from the session row, runs without a `run_id` skipped. `ON CONFLICT DO NOTHING`
 * makes it idempotent and resumable: a run already in the table (copied by an earlier,
 * interrupted pass, or written after the upgrade) wins. The legacy column stays as a backup;
 * the version stamp is written last, so an interrupted pass leaves the database readable
 * (merged reads) and still marked as needing migration.
 */
export async function copyLegacyRuns(
  ctx: MigrationContext,
  before: Inspection,
  opts: MigrateOptions,
): Promise<MigrationResult> {
  const sessions = sql.raw(qualified(ctx.schema, ctx.names.sessions));
  const runs = sql.raw(qualified(ctx.schema, ctx.names.runs));
  const result: MigrationResult = {
    fromVersion: before.version,
    toVersion: CURRENT_SCHEMA_VERSION,
    sessionsScanned: 0,
    runsCopied: 0,
  };
  // A completed migration is stamped; copying again could only bring back deleted runs.
  if (!before.hasLegacyRunsColumn || before.state === "current") return result;

  const [totalRow] = await ctx.exec(sql`SELECT count(*) AS n FROM ${sessions} WHERE ${HAS_LEGACY_RUNS}`);
  const sessionsTotal = Number(totalRow?.n ?? 0);
  const batchSize = opts.batchSize ?? 200;
  let cursor = "";
  for (;;) {
    opts.signal?.throwIfAborted();
    const batch = await ctx.exec(
      sql`SELECT session_id FROM ${sessions} WHERE session_id > ${cursor} AND ${HAS_LEGACY_RUNS} ORDER BY session_id LIMIT ${batchSize}`,
    );
    if (batch.length === 0) break;
    const ids = batch.map((r) => String(r.session_id));
    const copied = await ctx.transaction(async (tx) => {
      const [row] = await tx(copyStatement(sessions, runs, ids));
      return Number(row?.n ?? 0);
    });
    cursor = ids[ids.length - 1]!;
    result.sessionsScanned += ids.length;
    result.runsCopied += copied;
    opts.onProgress?.({ sessionsDone: result.sessionsScanned, sessionsTotal, runsCopied: result.runsCopied });
  }
  await stampVersions(ctx.exec, ctx.schema, ctx.names, [ctx.names.sessions], CURRENT_SCHEMA_VERSION);
  return result;
}

function copyStatement(sessions: SQL, runs: SQL, ids: string[]): SQL {
  const list = idList(ids);
  return sql`
    WITH copied AS (
      INSERT INTO ${runs} (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
      SELECT v->>'run_id', s.session_id, ${sql.raw(LEGACY_RUN_TYPE_SQL)}, v->>'agent_id', v->>'team_id', v->>'workflow_id', s.user_id,
        v->>'parent_run_id', v->>'status', e.ord - 1, v,
        CASE WHEN jsonb_typeof(v->'created_at') = 'number' THEN trunc((v->>'created_at')::numeric)::bigint ELSE s.created_at END,
        CASE WHEN jsonb_typeof(v->'updated_at') = 'number' THEN trunc((v->>'updated_at')::numeric)::bigint END
      FROM ${sessions} s CROSS JOIN LATERAL jsonb_array_elements(s.runs::jsonb) WITH ORDINALITY AS e(v, ord)
      WHERE s.session_id IN (${list}) AND jsonb_typeof(s.runs::jsonb) = 'array'
        AND jsonb_typeof(v) = 'object' AND COALESCE(v->>'run_id', '') <> ''
      ON CONFLICT (run_id) DO NOTHING
      RETURNING 1
    )
    SELECT count(*) AS n FROM copied`;
}

/**
 * Drops the legacy runs column (SPEC M3). Refuses without `force: true`, and refuses while any
 * run in it is missing from `agno_runs`: dropping it then would lose data.
 */
export async function cleanupLegacyRuns(
  ctx: MigrationContext,
  state: Inspection,
  opts: { force: boolean },
): Promise<void> {
  if (opts?.force !== true) {
    throw new ConfirmationRequiredError(
      "cleanupLegacyRunsColumn drops the legacy runs column and the 2.x backup it holds: call it with { force: true } to confirm",
    );
  }
  if (!state.hasLegacyRunsColumn) return;
  const sessions = sql.raw(qualified(ctx.schema, ctx.names.sessions));
  const runs = sql.raw(qualified(ctx.schema, ctx.names.runs));
  await ctx.transaction(async (tx) => {
    const [row] = await tx(sql`
      SELECT count(*) AS n FROM ${sessions} s CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.runs::jsonb) = 'array' THEN s.runs::jsonb ELSE '[]'::jsonb END) AS e(v)
      WHERE jsonb_typeof(v) = 'object' AND COALESCE(v->>'run_id', '') <> ''
        AND NOT EXISTS (SELECT 1 FROM ${runs} r WHERE r.run_id = v->>'run_id')`);
    const uncopied = Number(row?.n ?? 0);
    if (uncopied > 0) {
      throw new MigrationRequiredError(
        `${uncopied} run(s) in the legacy runs column are not in ${ctx.names.runs} yet: run MigrationManager.up() before the cleanup`,
      );
    }
    await tx(sql`ALTER TABLE ${sessions} DROP COLUMN IF EXISTS runs`);
  });
}
