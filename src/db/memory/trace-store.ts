import { pageOf, resolvePage } from "../pagination.js";
import type {
  SpanRecord,
  TraceFilter,
  TraceQuery,
  TraceRecord,
  TraceRow,
  TraceSessionStatsRow,
  TraceStatsQuery,
  TraceStore,
} from "../ports/trace-store.js";
import { mergeTrace, orphanSpan } from "../trace-merge.js";
import type { Page } from "../types.js";
import { copy } from "./tables.js";

/** SQL's three truth values: a comparison with a missing (NULL) column is neither true nor false. */
type Truth = boolean | null;

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** A filter expression as Postgres evaluates it (three-valued, case-insensitive matching), so both adapters agree. */
export function traceFilterTruth(f: TraceFilter, t: TraceRecord): Truth {
  switch (f.op) {
    case "AND": {
      const all = f.conditions.map((c) => traceFilterTruth(c, t));
      return all.includes(false) ? false : all.includes(null) ? null : true;
    }
    case "OR": {
      const all = f.conditions.map((c) => traceFilterTruth(c, t));
      return all.includes(true) ? true : all.includes(null) ? null : false;
    }
    case "NOT": {
      const inner = traceFilterTruth(f.condition, t);
      return inner === null ? null : !inner;
    }
    default:
  }
  const column = t[f.key];
  if (column === null) return null;
  switch (f.op) {
    case "IN":
      return f.values.some((v) => cmp(column, v) === 0);
    case "CONTAINS":
      return String(column).toLowerCase().includes(f.value.toLowerCase());
    case "STARTSWITH":
      return String(column).toLowerCase().startsWith(f.value.toLowerCase());
    case "EQ":
      return cmp(column, f.value) === 0;
    case "NEQ":
      return cmp(column, f.value) !== 0;
    case "GT":
      return cmp(column, f.value) > 0;
    case "GTE":
      return cmp(column, f.value) >= 0;
    case "LT":
      return cmp(column, f.value) < 0;
    case "LTE":
      return cmp(column, f.value) <= 0;
  }
}

/** Trace storage in memory (`db.traces`), with the Postgres adapter's merge rule and orderings. */
export class MemoryTraceStore implements TraceStore {
  private readonly traces = new Map<string, TraceRecord>();
  private readonly spans = new Map<string, SpanRecord>();

  async writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void> {
    const batch = new Set(traces.map((t) => t.trace_id));
    const orphan = spans.find((s) => !batch.has(s.trace_id) && !this.traces.has(s.trace_id));
    if (orphan) throw orphanSpan(orphan);
    for (const t of traces) {
      const existing = this.traces.get(t.trace_id);
      this.traces.set(t.trace_id, copy(existing ? mergeTrace(existing, t) : t));
    }
    for (const s of spans) if (!this.spans.has(s.span_id)) this.spans.set(s.span_id, copy(s));
  }

  async getTrace(by: { trace_id?: string; run_id?: string }): Promise<TraceRow | null> {
    if (by.trace_id !== undefined) {
      const t = this.traces.get(by.trace_id);
      return t ? this.row(t) : null;
    }
    if (by.run_id === undefined) return null;
    const latest = this.sorted([...this.traces.values()].filter((t) => t.run_id === by.run_id))[0];
    return latest ? this.row(latest) : null;
  }

  async getTraces(query: TraceQuery = {}): Promise<Page<TraceRow>> {
    const page = resolvePage(query);
    const eq = (want: string | undefined, have: string | null) => want === undefined || have === want;
    const rows = this.sorted(
      [...this.traces.values()].filter(
        (t) =>
          eq(query.run_id, t.run_id) &&
          eq(query.session_id, t.session_id) &&
          eq(query.user_id, t.user_id) &&
          eq(query.agent_id, t.agent_id) &&
          eq(query.team_id, t.team_id) &&
          eq(query.workflow_id, t.workflow_id) &&
          eq(query.status, t.status) &&
          (query.start_time === undefined || t.start_time >= query.start_time) &&
          (query.end_time === undefined || t.end_time <= query.end_time) &&
          (query.filter === undefined || traceFilterTruth(query.filter, t) === true),
      ),
    );
    return pageOf(
      rows.slice(page.offset, page.offset + page.limit).map((t) => this.row(t)),
      rows.length,
      page,
    );
  }

  async getSpan(spanId: string): Promise<SpanRecord | null> {
    const s = this.spans.get(spanId);
    return s ? copy(s) : null;
  }

  async getSpans(traceId: string): Promise<SpanRecord[]> {
    return copy(
      [...this.spans.values()]
        .filter((s) => s.trace_id === traceId)
        .sort((a, b) => cmp(a.start_time, b.start_time) || cmp(a.span_id, b.span_id)),
    );
  }

  async getTraceStats(query: TraceStatsQuery = {}): Promise<Page<TraceSessionStatsRow>> {
    const page = resolvePage(query);
    const groups = new Map<string, TraceSessionStatsRow>();
    const max = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
    for (const t of this.traces.values()) {
      if (t.session_id === null) continue;
      if (query.user_id !== undefined && t.user_id !== query.user_id) continue;
      if (query.agent_id !== undefined && t.agent_id !== query.agent_id) continue;
      if (query.team_id !== undefined && t.team_id !== query.team_id) continue;
      if (query.workflow_id !== undefined && t.workflow_id !== query.workflow_id) continue;
      if (query.start_time !== undefined && t.created_at < query.start_time) continue;
      if (query.end_time !== undefined && t.created_at > query.end_time) continue;
      if (query.filter !== undefined && traceFilterTruth(query.filter, t) !== true) continue;
      const g = groups.get(t.session_id);
      groups.set(
        t.session_id,
        g
          ? {
              session_id: g.session_id,
              user_id: max(g.user_id, t.user_id),
              agent_id: max(g.agent_id, t.agent_id),
              team_id: max(g.team_id, t.team_id),
              workflow_id: max(g.workflow_id, t.workflow_id),
              total_traces: g.total_traces + 1,
              first_trace_at: t.created_at < g.first_trace_at ? t.created_at : g.first_trace_at,
              last_trace_at: t.created_at > g.last_trace_at ? t.created_at : g.last_trace_at,
            }
          : {
              session_id: t.session_id,
              user_id: t.user_id,
              agent_id: t.agent_id,
              team_id: t.team_id,
              workflow_id: t.workflow_id,
              total_traces: 1,
              first_trace_at: t.created_at,
              last_trace_at: t.created_at,
            },
      );
    }
    const rows = [...groups.values()].sort(
      (a, b) => cmp(b.last_trace_at, a.last_trace_at) || cmp(b.session_id, a.session_id),
    );
    return pageOf(rows.slice(page.offset, page.offset + page.limit), rows.length, page);
  }

  /** latest start first; the trace id breaks ties, as in Postgres */
  private sorted(traces: TraceRecord[]): TraceRecord[] {
    return traces.sort((a, b) => cmp(b.start_time, a.start_time) || cmp(b.trace_id, a.trace_id));
  }

  private row(t: TraceRecord): TraceRow {
    let total = 0;
    let errors = 0;
    for (const s of this.spans.values()) {
      if (s.trace_id !== t.trace_id) continue;
      total++;
      if (s.status_code === "ERROR") errors++;
    }
    return { ...copy(t), total_spans: total, error_count: errors };
  }
}
