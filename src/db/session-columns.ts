import type { SessionRecord } from "./types.js";

/** A session's stored columns: what every adapter writes for a validated session (without its runs). */
export type SessionColumns = Required<Omit<SessionRecord, "runs">>;

/**
 * The columns a session write stores, from a validated session at time `ts`: absent fields null,
 * `created_at` kept when given, and every JSON column passed through `json` (the adapter's way of
 * storing what jsonb refuses, and, in memory, of keeping a copy no caller shares).
 */
export function sessionColumns(session: SessionRecord, ts: number, json: <T>(value: T) => T): SessionColumns {
  return {
    session_id: session.session_id,
    session_type: session.session_type,
    agent_id: session.agent_id ?? null,
    team_id: session.team_id ?? null,
    workflow_id: session.workflow_id ?? null,
    user_id: session.user_id ?? null,
    session_data: json(session.session_data ?? null),
    agent_data: json(session.agent_data ?? null),
    team_data: json(session.team_data ?? null),
    workflow_data: json(session.workflow_data ?? null),
    metadata: json(session.metadata ?? null),
    summary: json(session.summary ?? null),
    created_at: session.created_at ?? ts,
    updated_at: ts,
  };
}
