import type { Page } from "../types.js";

/**
 * Trace storage (issue 23): agno's `agno_traces` and `agno_spans` rows. Times are ISO 8601
 * strings and durations milliseconds, as agno stores them, so agno's UI reads them as they are.
 */

/** One trace: the summary row of a tree of spans. */
export interface TraceRecord {
  trace_id: string;
  /** the root span's name, e.g. `Agent.run` */
  name: string;
  /** `OK` or `ERROR` */
  status: string;
  start_time: string;
  end_time: string;
  duration_ms: number;
  run_id: string | null;
  session_id: string | null;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  created_at: string;
}

/** One span of a trace. */
export interface SpanRecord {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  name: string;
  /** OpenTelemetry's kind: `INTERNAL`, `CLIENT`, `SERVER`, … */
  span_kind: string;
  /** `OK`, `ERROR` or `UNSET` */
  status_code: string;
  status_message: string | null;
  start_time: string;
  end_time: string;
  duration_ms: number;
  /** OpenTelemetry attributes (GenAI semantic conventions for model and tool calls) */
  attributes: Record<string, unknown>;
  created_at: string;
}

/**
 * What a tracing exporter writes. Spans of one trace may arrive in several batches (a background
 * job continues its request's trace), so a trace row is merged as agno merges it: the earliest
 * start, the latest end and the duration between them; the status of the latest write; the name
 * of the highest-level component seen (workflow over team over agent over anything else); and the
 * first non-null run, session, user and component ids, which a later child span never replaces.
 */
export interface TraceWriter {
  /**
   * upserts the traces (merged as above) and inserts the spans; a span already stored is kept.
   * Each span's trace must be in the same call or already stored, else nothing is written
   * (ValidationError). Times are compared as stored text, so write them as `toISOString` does.
   */
  writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void>;
}

/** A stored trace as read back: its row and the counts agno derives from its spans. */
export interface TraceRow extends TraceRecord {
  total_spans: number;
  /** spans whose status_code is `ERROR` */
  error_count: number;
}

/** The columns a filter expression may name (agno's TRACE_COLUMNS). */
export const TRACE_FILTER_COLUMNS = [
  "trace_id",
  "name",
  "status",
  "start_time",
  "end_time",
  "duration_ms",
  "run_id",
  "session_id",
  "user_id",
  "agent_id",
  "team_id",
  "workflow_id",
  "created_at",
] as const;
export type TraceFilterColumn = (typeof TRACE_FILTER_COLUMNS)[number];

/**
 * agno's filter expression (agno.filters) over trace columns, already checked by
 * `parseTraceFilter` (src/db/trace-filter.ts): times normalised to UTC ISO strings, duration a
 * number, everything else a string. String matches are case-insensitive, as agno's are.
 */
export type TraceFilter =
  | { op: "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE"; key: TraceFilterColumn; value: string | number }
  | { op: "CONTAINS" | "STARTSWITH"; key: TraceFilterColumn; value: string }
  | { op: "IN"; key: TraceFilterColumn; values: (string | number)[] }
  | { op: "AND" | "OR"; conditions: TraceFilter[] }
  | { op: "NOT"; condition: TraceFilter };

/** What a list of traces is narrowed by; times are UTC ISO strings, compared as agno compares them. */
export interface TraceQuery {
  run_id?: string;
  session_id?: string;
  /** exact owner: a trace with no user is never a user's */
  user_id?: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  status?: string;
  /** traces starting at or after this */
  start_time?: string;
  /** traces ending at or before this */
  end_time?: string;
  filter?: TraceFilter;
  page?: number;
  limit?: number;
}

/** What the per-session statistics are narrowed by; times bound the traces' `created_at`. */
export interface TraceStatsQuery {
  user_id?: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  start_time?: string;
  end_time?: string;
  filter?: TraceFilter;
  page?: number;
  limit?: number;
}

/** One session's traces in sum (agno's TraceSessionStats); the ids are the greatest seen, as agno's MAX. */
export interface TraceSessionStatsRow {
  session_id: string;
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  total_traces: number;
  first_trace_at: string;
  last_trace_at: string;
}

/** Trace storage, reached as `db.traces`: the exporter's writes and the trace routes' reads. */
export interface TraceStore extends TraceWriter {
  /**
   * One trace by its id, or (without one) the run's latest by start time. No user filter: the
   * routes check ownership, as agno's do.
   */
  getTrace(by: { trace_id?: string; run_id?: string }): Promise<TraceRow | null>;
  /** a page of traces, latest start first */
  getTraces(query?: TraceQuery): Promise<Page<TraceRow>>;
  getSpan(spanId: string): Promise<SpanRecord | null>;
  /** a trace's spans, earliest start first */
  getSpans(traceId: string): Promise<SpanRecord[]>;
  /** a page of per-session sums over the traces that have a session, latest activity first */
  getTraceStats(query?: TraceStatsQuery): Promise<Page<TraceSessionStatsRow>>;
}

/** Trace storage (src/db/ports). */
export interface TraceStorage {
  readonly traces: TraceStore;
}
