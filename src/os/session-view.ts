import type { Session } from "../db/session.js";
import type { SessionRecord } from "../db/types.js";

/** agno names a session after its first message when it has no name; "" when there is none. */
function sessionName(record: SessionRecord): string {
  const name = record.session_data?.session_name;
  return typeof name === "string" ? name : "";
}

/** One entry of `GET /sessions`: agno's summary fields, never the runs. */
export function sessionSummary(session: Session) {
  const r = session.record;
  return {
    session_id: r.session_id,
    session_name: sessionName(r),
    session_type: r.session_type,
    agent_id: r.session_type === "agent" ? (r.agent_id ?? null) : null,
    team_id: r.session_type === "team" ? (r.team_id ?? null) : null,
    workflow_id: r.session_type === "workflow" ? (r.workflow_id ?? null) : null,
    user_id: r.user_id ?? null,
    session_state: (r.session_data?.session_state as Record<string, unknown> | undefined) ?? null,
    summary: r.summary ?? null,
    created_at: r.created_at ?? null,
    updated_at: r.updated_at ?? null,
  };
}

/** `GET /sessions/{id}`: the summary plus the component data, metadata and chat history. */
export function sessionDetail(session: Session) {
  const r = session.record;
  return {
    ...sessionSummary(session),
    ...(r.session_type === "agent" ? { agent_session_id: r.session_id } : {}),
    agent_data: r.agent_data ?? null,
    team_data: r.team_data ?? null,
    workflow_data: r.workflow_data ?? null,
    metadata: r.metadata ?? null,
    session_data: r.session_data ?? null,
    chat_history: session.getChatHistory(),
  };
}
