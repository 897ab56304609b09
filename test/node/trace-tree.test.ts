import { describe, expect, it } from "vitest";
import type { SpanRecord, TraceRow } from "../../src/db/port.js";
import { formatDuration, spanNode, traceDetail, traceSummary } from "../../src/tracing/trace-tree.js";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const row = (extra: Partial<TraceRow> = {}): TraceRow => ({
  trace_id: "t",
  name: "Flow.run",
  status: "OK",
  start_time: at(0),
  end_time: at(3000),
  duration_ms: 3000,
  run_id: null,
  session_id: null,
  user_id: null,
  agent_id: null,
  team_id: null,
  workflow_id: "flow",
  created_at: at(0),
  total_spans: 0,
  error_count: 0,
  ...extra,
});
const span = (
  id: string,
  parent: string | null,
  start: number,
  attributes: Record<string, unknown>,
  extra: Partial<SpanRecord> = {},
): SpanRecord => ({
  span_id: id,
  trace_id: "t",
  parent_span_id: parent,
  name: id,
  span_kind: "INTERNAL",
  status_code: "OK",
  status_message: null,
  start_time: at(start),
  end_time: at(start + 100),
  duration_ms: 100,
  attributes,
  created_at: at(start),
  ...extra,
});

describe("trace-tree: agno's TraceSummary, TraceDetail and TraceNode from stored rows", () => {
  it("formats durations as agno's format_duration_ms", () => {
    expect([0, 999, 1000, 1234, 61_005].map(formatDuration)).toEqual(["0ms", "999ms", "1.00s", "1.23s", "61.01s"]);
  });

  it("types spans: CHAIN is a workflow, AGENT with a team id a team, other kinds as they are", () => {
    expect(spanNode(span("w", null, 0, { "openinference.span.kind": "CHAIN" })).type).toBe("WORKFLOW");
    expect(spanNode(span("t", null, 0, { "openinference.span.kind": "AGENT", "agno.team.id": "desk" })).type).toBe(
      "TEAM",
    );
    expect(spanNode(span("a", null, 0, { "openinference.span.kind": "AGENT" })).type).toBe("AGENT");
    expect(spanNode(span("x", null, 0, {})).type).toBe("UNKNOWN");
  });

  it("a failed span shows its error (status message, else the exception's) and no output; falsy metadata is left out", () => {
    const failed = spanNode(
      span(
        "f",
        null,
        0,
        {
          "openinference.span.kind": "LLM",
          "output.value": "partial",
          "exception.message": "boom",
          "llm.token_count.prompt": 0,
        },
        { status_code: "ERROR" },
      ),
    );
    expect(failed).toEqual({
      id: "f",
      name: "f",
      type: "LLM",
      duration: "100ms",
      start_time: "2026-01-01T00:00:00Z",
      end_time: "2026-01-01T00:00:00.100000Z",
      status: "ERROR",
      error: "boom",
    });
    expect(spanNode(span("g", null, 0, {}, { status_code: "ERROR", status_message: "said so" })).error).toBe("said so");
  });

  it("a workflow's output is its last step's when its own is empty; steps are typed by position; an orphan is in no tree", () => {
    const spans = [
      span("root", null, 0, {
        "openinference.span.kind": "CHAIN",
        "input.value": "go",
        "output.value": "None",
        "agno.workflow.step_types": ["Step", "Condition"],
        "agno.workflow.steps_count": 2,
      }),
      span("second", "root", 2000, { "openinference.span.kind": "AGENT", "output.value": "final" }),
      span("first", "root", 1000, { "openinference.span.kind": "AGENT", "output.value": "early" }),
      span("orphan", "gone", 500, { "openinference.span.kind": "TOOL" }),
    ];
    const detail = traceDetail(row({ total_spans: 4 }), spans);
    expect(detail).toMatchObject({ input: "go", output: "final", workflow_id: "flow", total_spans: 4 });
    expect(detail).not.toHaveProperty("error");
    expect(detail.tree).toHaveLength(1);
    expect(detail.tree[0]).toMatchObject({
      id: "root",
      type: "WORKFLOW",
      duration: "3.00s",
      end_time: "2026-01-01T00:00:03Z",
      metadata: { steps_count: 2, step_types: ["Step", "Condition"] },
    });
    expect(detail.tree[0]!.spans!.map((n) => [n.id, n.step_type])).toEqual([
      ["first", "Step"],
      ["second", "Condition"],
    ]);
    expect(detail.tree[0]).not.toHaveProperty("input");
  });

  it("an errored trace takes its root's error; a summary carries the root's input and leaves out what is None", () => {
    const spans = [
      span(
        "root",
        null,
        0,
        { "openinference.span.kind": "AGENT", "input.value": "hi", "output.value": "never" },
        { status_message: "failed late" },
      ),
    ];
    expect(traceDetail(row({ status: "ERROR" }), spans)).toMatchObject({ error: "failed late" });
    expect(traceDetail(row({ status: "ERROR" }), spans)).not.toHaveProperty("output");
    const summary = traceSummary(row(), spans);
    expect(summary.input).toBe("hi");
    expect(Object.keys(summary)).not.toContain("run_id");
    expect(traceSummary(row(), [])).not.toHaveProperty("input");
  });
});
