import { sql, type SQL } from "drizzle-orm";
import type { RunRecord, RunRow, RunType } from "../types.js";
import { idList } from "./id-list.js";
import type { Exec } from "./schema-state.js";

/**
 * agno 2.x kept every run of a session in a `runs` JSONB array on the session row. These
 * helpers read that blob the way agno 3.0's migration copies it, so a read before migration
 * and a read after it give the same runs.
 */
export const LEGACY_RUNS_COLUMN = "runs";

/** agno 3.0's migration rule: agent if it names an agent, team if a team, else workflow. */
export function legacyRunType(run: RunRecord): RunType {
  if (run.agent_id) return "agent";
  if (run.team_id) return "team";
  return "workflow";
}

/** The SQL twin of `legacyRunType`, over a jsonb value named `v`. */
export const LEGACY_RUN_TYPE_SQL = `CASE WHEN v->>'agent_id' IS NOT NULL THEN 'agent' WHEN v->>'team_id' IS NOT NULL THEN 'team' ELSE 'workflow' END`;

function epochOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : fallback;
}

/** A row for a legacy run at `index` in its session's array; null for runs without a run_id. */
export function legacyRunRow(
  run: unknown,
  index: number,
  session: { session_id: string; user_id: string | null; created_at: number },
): RunRow | null {
  if (!run || typeof run !== "object") return null;
  const r = run as RunRecord;
  if (typeof r.run_id !== "string" || r.run_id === "") return null;
  return {
    run_id: r.run_id,
    session_id: session.session_id,
    run_type: legacyRunType(r),
    agent_id: r.agent_id ?? null,
    team_id: r.team_id ?? null,
    workflow_id: r.workflow_id ?? null,
    user_id: session.user_id,
    parent_run_id: r.parent_run_id ?? null,
    status: r.status ?? null,
    run_index: index,
    created_at: epochOr(r.created_at, session.created_at),
    updated_at: typeof r.updated_at === "number" ? Math.trunc(r.updated_at) : null,
    run_data: r,
  };
}

/**
 * Runs from the table and from the legacy blob, de-duplicated by run_id (the table wins), in
 * run order. The table's copy of a migrated run keeps the blob position as its run_index, so
 * the two orders agree.
 */
export function mergeRuns(tableRows: RunRow[], legacy: RunRow[]): RunRow[] {
  const seen = new Set(tableRows.map((r) => r.run_id));
  const merged = [...tableRows, ...legacy.filter((r) => !seen.has(r.run_id))];
  return merged.sort((a, b) => a.run_index - b.run_index);
}

/**
 * After migration the legacy column is only a backup, but a deleted run must not live on in
 * it: it would come back through a re-copy and hold up the cleanup. So deletes scrub it too.
 */
export async function scrubLegacyRuns(exec: Exec, sessions: SQL, runIds: string[]): Promise<void> {
  const ids = idList(runIds);
  await exec(sql`
    UPDATE ${sessions} s SET runs = (
      SELECT COALESCE(jsonb_agg(e.v ORDER BY e.ord), '[]'::jsonb)
      FROM jsonb_array_elements(s.runs::jsonb) WITH ORDINALITY AS e(v, ord)
      WHERE COALESCE(e.v->>'run_id', '') NOT IN (${ids}))
    WHERE jsonb_typeof(s.runs::jsonb) = 'array'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(s.runs::jsonb) AS x(v) WHERE x.v->>'run_id' IN (${ids}))`);
}
