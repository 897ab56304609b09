import {
  legacyInsertSQL,
  legacySessionsDDL,
  legacyStampedVersion,
  legacyVersionsDDL,
  type LegacyLayout,
  type LegacySessionRow,
} from "../fixtures/legacy-2x.js";
import type { TestDb } from "./db-targets.js";

/** Lays down an agno 2.x database (tables, version stamp, rows) in the test db's schema. */
export async function seedLegacy(t: TestDb, layout: LegacyLayout, rows: LegacySessionRow[]): Promise<void> {
  for (const statement of legacySessionsDDL(t.schema, "agno_sessions", layout)) await t.query(statement);
  const stamp = legacyStampedVersion(layout);
  if (stamp) {
    for (const statement of legacyVersionsDDL(t.schema)) await t.query(statement);
    await t.query(
      `INSERT INTO "${t.schema}".agno_schema_versions (table_name, version, created_at) VALUES ('agno_sessions', $1, $2)`,
      [stamp, "2025-06-01T00:00:00"],
    );
  }
  for (const row of rows) {
    const { text, values } = legacyInsertSQL(t.schema, row);
    await t.query(text, values);
  }
}

/** Every run in the legacy rows that has a run_id, with its expected run_index. */
export function expectedRuns(rows: LegacySessionRow[]) {
  return rows.flatMap((row) =>
    (row.runs ?? []).flatMap((run, index) =>
      typeof run.run_id === "string" ? [{ run_id: run.run_id, session_id: row.session_id, run_index: index, run }] : [],
    ),
  );
}
