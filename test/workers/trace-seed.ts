import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import type { SpanRecord, TraceRecord } from "../../src/db/port.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";

/** Writes traces and spans through the Db port into the Worker's database, as the tracer's exporter will. */
export async function writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void> {
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    await new PostgresDb({ pool }).traces.writeTraces(traces, spans);
  } finally {
    await pool.end();
  }
}

/** A time `seconds` after a fixed instant, as the tracer writes times. */
export const traceAt = (seconds: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + seconds * 1000).toISOString();

/** A trace row with `extra` over plain defaults. */
export const traceRow = (trace_id: string, extra: Partial<TraceRecord> = {}): TraceRecord => ({
  trace_id,
  name: "Assistant.run",
  status: "OK",
  start_time: traceAt(0),
  end_time: traceAt(1.5),
  duration_ms: 1500,
  run_id: null,
  session_id: null,
  user_id: null,
  agent_id: "assistant",
  team_id: null,
  workflow_id: null,
  created_at: traceAt(0),
  ...extra,
});

/**
 * A three-level trace's spans: the agent's run (root) → a model call → a tool the model called,
 * with OpenInference's attributes, as agno's instrumentation writes them.
 */
export function nestedSpans(traceId: string, input: string): SpanRecord[] {
  const base = { trace_id: traceId, span_kind: "INTERNAL", status_code: "OK", status_message: null };
  return [
    {
      ...base,
      span_id: `${traceId}-root`,
      parent_span_id: null,
      name: "Assistant.run",
      start_time: traceAt(0),
      end_time: traceAt(1.5),
      duration_ms: 1500,
      attributes: {
        "openinference.span.kind": "AGENT",
        "input.value": input,
        "output.value": `answer to ${input}`,
        "agno.run.id": `${traceId}-run`,
      },
      created_at: traceAt(0),
    },
    {
      ...base,
      span_id: `${traceId}-llm`,
      parent_span_id: `${traceId}-root`,
      name: "gpt-test.invoke",
      span_kind: "CLIENT",
      start_time: traceAt(0.1),
      end_time: traceAt(1.2),
      duration_ms: 1100,
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-test",
        "llm.token_count.prompt": 12,
        "llm.token_count.completion": 7,
        "input.value": input,
        "output.value": "calling a tool",
      },
      created_at: traceAt(0.1),
    },
    {
      ...base,
      span_id: `${traceId}-tool`,
      parent_span_id: `${traceId}-llm`,
      name: "lookup",
      start_time: traceAt(0.2),
      end_time: traceAt(0.25),
      duration_ms: 50,
      attributes: {
        "openinference.span.kind": "TOOL",
        "tool.name": "lookup",
        "tool.parameters": '{"q":"x"}',
        "output.value": "found",
      },
      created_at: traceAt(0.2),
    },
  ];
}
