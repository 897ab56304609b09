import type { RunRow, SessionRecord } from "../types.js";

/** Postgres hands BIGINT back as a string through the wire driver; ours are epoch seconds. */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}

export function str(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

export function toRunRow(row: Record<string, unknown>): RunRow {
  return {
    run_id: String(row.run_id),
    session_id: String(row.session_id),
    run_type: row.run_type as RunRow["run_type"],
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    user_id: str(row.user_id),
    parent_run_id: str(row.parent_run_id),
    status: str(row.status),
    run_index: num(row.run_index ?? 0),
    created_at: num(row.created_at),
    updated_at: numOrNull(row.updated_at),
    run_data: row.run_data as RunRow["run_data"],
  };
}

export function toSessionRecord(row: Record<string, unknown>): SessionRecord {
  return {
    session_id: String(row.session_id),
    session_type: row.session_type as SessionRecord["session_type"],
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    user_id: str(row.user_id),
    session_data: (row.session_data as SessionRecord["session_data"]) ?? null,
    agent_data: (row.agent_data as SessionRecord["agent_data"]) ?? null,
    team_data: (row.team_data as SessionRecord["team_data"]) ?? null,
    workflow_data: (row.workflow_data as SessionRecord["workflow_data"]) ?? null,
    metadata: (row.metadata as SessionRecord["metadata"]) ?? null,
    summary: (row.summary as SessionRecord["summary"]) ?? null,
    created_at: num(row.created_at),
    updated_at: numOrNull(row.updated_at),
  };
}

export const SESSION_COLUMNS =
  "session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, agent_data, team_data, workflow_data, metadata, summary, created_at, updated_at";
export const RUN_COLUMNS =
  "run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at";
