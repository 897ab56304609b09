import { ValidationError } from "../errors.js";
import type { SpanRecord, TraceRecord } from "./ports/trace-store.js";

/**
 * How high a trace row's component ranks when two writes name it (agno's
 * _get_trace_component_level_expr): a root run span (`.run` or `.arun` in its name) of a
 * workflow 3, of a team 2, of an agent 1; anything else 0.
 */
export function traceLevel(t: Pick<TraceRecord, "name" | "workflow_id" | "team_id" | "agent_id">): number {
  if (!t.name.includes(".run") && !t.name.includes(".arun")) return 0;
  if (t.workflow_id !== null) return 3;
  if (t.team_id !== null) return 2;
  if (t.agent_id !== null) return 1;
  return 0;
}

/**
 * A stored trace row with a later write of the same trace folded in, by the rule TraceWriter
 * documents (agno's upsert_trace): times compare as stored strings (agno's LEAST and GREATEST),
 * and the duration is the span between the merged start and end.
 */
export function mergeTrace(existing: TraceRecord, next: TraceRecord): TraceRecord {
  const start_time = next.start_time < existing.start_time ? next.start_time : existing.start_time;
  const end_time = next.end_time > existing.end_time ? next.end_time : existing.end_time;
  return {
    ...existing,
    start_time,
    end_time,
    duration_ms: Math.round(Date.parse(end_time) - Date.parse(start_time)),
    status: next.status,
    name: traceLevel(next) > traceLevel(existing) ? next.name : existing.name,
    run_id: existing.run_id ?? next.run_id,
    session_id: existing.session_id ?? next.session_id,
    user_id: existing.user_id ?? next.user_id,
    agent_id: existing.agent_id ?? next.agent_id,
    team_id: existing.team_id ?? next.team_id,
    workflow_id: existing.workflow_id ?? next.workflow_id,
  };
}

/** The refusal of a write whose span names a trace neither in the write nor stored (the span table's foreign key). */
export function orphanSpan(s: SpanRecord): ValidationError {
  return new ValidationError(
    `span ${s.span_id} names trace ${s.trace_id}, which is neither in this write nor stored`,
    "trace_id",
  );
}
