import type { SpanRecord, TraceRecord, TraceWriter } from "../db/ports/trace-store.js";
import type { SpanExporter } from "./span-exporter.js";
import type { FinishedSpan } from "./span.js";

const iso = (ms: number) => new Date(ms).toISOString();

/** First present string among `keys` of `attributes` (agno reads its own keys, then openinference's). */
function firstOf(attributes: Record<string, unknown>, keys: string[]): string | null {
  for (const key of keys) {
    const value = attributes[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}

/** A finished span as agno's `agno_spans` row. */
export function spanRecord(span: FinishedSpan, createdAt: string): SpanRecord {
  return {
    span_id: span.spanId,
    trace_id: span.traceId,
    parent_span_id: span.parentSpanId,
    name: span.name,
    span_kind: span.kind,
    status_code: span.status.code,
    status_message: span.status.message ?? null,
    start_time: iso(span.startMs),
    end_time: iso(span.endMs),
    duration_ms: Math.round(span.endMs - span.startMs),
    attributes: { ...span.attributes },
    created_at: createdAt,
  };
}

/**
 * The trace row for one trace's spans of a batch, as agno builds it (create_trace_from_spans):
 * earliest start, latest end, ERROR when any span failed. The ids come from the batch's root: a
 * span without a parent, else (the trace continues a caller's, or a job continues a request's)
 * the earliest span whose parent is not in the batch; a batch of only inner spans sets no ids,
 * so the merge keeps those its root's batch wrote.
 */
export function traceRecord(spans: FinishedSpan[], createdAt: string): TraceRecord {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => a.startMs - b.startMs);
  const root =
    byStart.find((s) => s.parentSpanId === null) ?? byStart.find((s) => !ids.has(s.parentSpanId ?? "")) ?? null;
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.endMs));
  const a = root?.attributes ?? {};
  return {
    trace_id: spans[0]!.traceId,
    name: (root ?? byStart[0]!).name,
    status: spans.some((s) => s.status.code === "ERROR") ? "ERROR" : "OK",
    start_time: iso(start),
    end_time: iso(end),
    duration_ms: Math.round(end - start),
    run_id: firstOf(a, ["agno.run.id", "run_id"]),
    session_id: firstOf(a, ["session.id", "agno.session.id", "session_id"]),
    user_id: firstOf(a, ["user.id", "agno.user.id", "user_id"]),
    agent_id: firstOf(a, ["agno.agent.id", "agent_id"]),
    team_id: firstOf(a, ["agno.team.id", "team_id"]),
    workflow_id: firstOf(a, ["agno.workflow.id", "workflow_id"]),
    created_at: createdAt,
  };
}

/**
 * Writes spans as agno's trace and span rows through the database's TraceWriter (`db.traces`),
 * so agno's UI and the `/traces` routes read them. One write per batch, traces grouped by id.
 */
export class DbSpanExporter implements SpanExporter {
  readonly name = "db";

  constructor(private readonly writer: TraceWriter) {}

  async export(spans: FinishedSpan[]): Promise<void> {
    if (spans.length === 0) return;
    const createdAt = new Date().toISOString();
    const byTrace = new Map<string, FinishedSpan[]>();
    for (const span of spans) {
      const list = byTrace.get(span.traceId);
      if (list) list.push(span);
      else byTrace.set(span.traceId, [span]);
    }
    await this.writer.writeTraces(
      [...byTrace.values()].map((group) => traceRecord(group, createdAt)),
      spans.map((span) => spanRecord(span, createdAt)),
    );
  }
}
