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
  /** upserts the traces (merged as above) and inserts the spans; a span already stored is kept */
  writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void>;
}
