import type { ApprovalRecord } from "./ports/approval-store.js";
import type { RunRow } from "./types.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/**
 * The approvals a run's PAUSED write creates: what the Postgres trigger of migrations/0008 inserts,
 * for adapters without one (MemoryDb). One per distinct `approval_id` stamped on an unresolved
 * requirement's tool call, described by its first such requirement; a team's member run makes
 * none (its team's run carries the same requirements).
 */
export function approvalsFromPause(row: RunRow): ApprovalRecord[] {
  if (row.status !== "PAUSED" || row.parent_run_id) return [];
  const data = row.run_data as unknown as Json;
  const requirements = Array.isArray(data.requirements) ? (data.requirements as unknown[]).filter(isObject) : [];
  const source = row.team_id ? "team" : row.workflow_id ? "workflow" : "agent";
  const sourceName = text(data[`${source}_name`]);
  const ts = row.updated_at ?? row.created_at;
  const out = new Map<string, ApprovalRecord>();
  for (const req of requirements) {
    const execution = isObject(req.tool_execution) ? req.tool_execution : {};
    const id = text(execution.approval_id);
    if (id === null || req.resolved === true || out.has(id)) continue;
    const toolNames = requirements
      .filter((r) => isObject(r.tool_execution) && r.tool_execution.approval_id === id)
      .map((r) => (r.tool_execution as Json).tool_name ?? null);
    const context: Json = { tool_names: toolNames };
    if (sourceName !== null) context.source_name = sourceName;
    out.set(id, {
      id,
      run_id: row.run_id,
      session_id: row.session_id,
      status: "pending",
      source_type: source,
      approval_type: "required",
      pause_type: text(req.kind) ?? "confirmation",
      tool_name: text(execution.tool_name),
      tool_args: isObject(execution.tool_args) ? execution.tool_args : null,
      expires_at: typeof req.approval_expires_at === "number" ? Math.trunc(req.approval_expires_at) : null,
      agent_id: row.agent_id,
      team_id: row.team_id,
      workflow_id: row.workflow_id,
      user_id: row.user_id,
      schedule_id: null,
      schedule_run_id: null,
      source_name: sourceName,
      requirements: requirements,
      context,
      resolution_data: null,
      resolved_by: null,
      resolved_at: null,
      created_at: ts,
      updated_at: ts,
      run_status: "PAUSED",
    });
  }
  return [...out.values()];
}
