import type { SpanRecord, TraceRow } from "../db/ports/trace-store.js";

/**
 * What agno's trace routes answer, built from stored rows (agno's os/routers/traces/schemas.py:
 * TraceSummary, TraceDetail and its TraceNode tree). The routes answer with
 * `response_model_exclude_none`, so a field that would be None is left out here.
 */

type Attributes = Record<string, unknown>;

/** One node of a trace's tree (agno's TraceNode). */
export interface TraceNodeView {
  id: string;
  name: string;
  /** AGENT, TEAM, WORKFLOW, LLM, TOOL, … */
  type: string;
  duration: string;
  start_time: string;
  end_time: string;
  status: string;
  input?: string;
  output?: string;
  error?: string;
  spans?: TraceNodeView[];
  step_type?: string;
  metadata?: Attributes;
  extra_data?: Attributes;
}

/** A trace in a list (agno's TraceSummary). */
export interface TraceSummaryView {
  trace_id: string;
  name: string;
  status: string;
  duration: string;
  start_time: string;
  end_time: string;
  total_spans: number;
  error_count: number;
  input?: string;
  run_id?: string;
  session_id?: string;
  user_id?: string;
  agent_id?: string;
  team_id?: string;
  workflow_id?: string;
  created_at: string;
}

/** A trace with its tree (agno's TraceDetail). */
export interface TraceDetailView extends TraceSummaryView {
  output?: string;
  error?: string;
  tree: TraceNodeView[];
}

/** Python's truth of a value: None, False, 0, "" and empty collections are false. */
function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** An attribute read as agno's `Optional[str]` field holds it: text as it is, anything else as JSON. */
function textOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The fields of `view` that are not None (`response_model_exclude_none`). */
function present<T extends object>(view: T): T {
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/** agno's format_duration_ms: whole milliseconds under a second, else seconds to two places. */
export function formatDuration(durationMs: number): string {
  return durationMs < 1000 ? `${durationMs}ms` : `${(durationMs / 1000).toFixed(2)}s`;
}

/** A stored ISO time as pydantic writes a UTC datetime (`Z`, a fraction only when there is one); anything else as stored. */
function pydanticTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const text = new Date(ms).toISOString();
  const millis = text.slice(20, 23);
  return millis === "000" ? `${text.slice(0, 19)}Z` : `${text.slice(0, 19)}.${millis}000Z`;
}

const kindOf = (s: SpanRecord) => (s.attributes["openinference.span.kind"] as string | undefined) ?? "UNKNOWN";
const parentOf = (s: SpanRecord) => s.parent_span_id || null;
const byStart = (a: SpanRecord, b: SpanRecord) =>
  a.start_time < b.start_time ? -1 : a.start_time > b.start_time ? 1 : 0;

/** agno's _derive_span_type: OpenInference calls agents and teams AGENT and workflows CHAIN. */
function spanType(s: SpanRecord): string {
  const kind = kindOf(s);
  if (kind === "CHAIN") return "WORKFLOW";
  if (kind === "AGENT")
    return truthy(s.attributes["agno.team.id"]) || truthy(s.attributes["team.id"]) ? "TEAM" : "AGENT";
  return kind;
}

/** Copies the attributes named in `pairs` ([metadata key, attribute]) whose values are truthy. */
function pick(into: Attributes, attributes: Attributes, pairs: [string, string][]): void {
  for (const [key, attribute] of pairs) if (truthy(attributes[attribute])) into[key] = attributes[attribute];
}

const WORKFLOW_METADATA: [string, string][] = [
  ["description", "agno.workflow.description"],
  ["steps_count", "agno.workflow.steps_count"],
  ["steps", "agno.workflow.steps"],
  ["step_types", "agno.workflow.step_types"],
];

/** One span as a node (agno's TraceNode.from_span): its input, output or error and its kind's metadata. */
export function spanNode(s: SpanRecord, children?: TraceNodeView[]): TraceNodeView {
  const a = s.attributes;
  const metadata: Attributes = {};
  const kind = kindOf(s);
  if (kind === "AGENT") pick(metadata, a, [["run_id", "agno.run.id"]]);
  else if (kind === "LLM")
    pick(metadata, a, [
      ["model", "llm.model_name"],
      ["input_tokens", "llm.token_count.prompt"],
      ["output_tokens", "llm.token_count.completion"],
    ]);
  else if (kind === "TOOL")
    pick(metadata, a, [
      ["tool_name", "tool.name"],
      ["parameters", "tool.parameters"],
    ]);
  else if (kind === "CHAIN") pick(metadata, a, WORKFLOW_METADATA);
  pick(metadata, a, [
    ["session_id", "session.id"],
    ["user_id", "user.id"],
  ]);
  const failed = s.status_code === "ERROR";
  return present({
    id: s.span_id,
    name: s.name,
    type: spanType(s),
    duration: formatDuration(s.duration_ms),
    start_time: pydanticTime(s.start_time),
    end_time: pydanticTime(s.end_time),
    status: s.status_code,
    input: textOf(a["input.value"]),
    output: failed ? undefined : textOf(a["output.value"]),
    error: failed ? textOf(s.status_message || a["exception.message"]) : undefined,
    spans: children,
    metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
  });
}

/** The fields a summary and a detail share. */
function traceFields(t: TraceRow, input: string | undefined): TraceSummaryView {
  return present({
    trace_id: t.trace_id,
    name: t.name,
    status: t.status,
    duration: formatDuration(t.duration_ms),
    start_time: pydanticTime(t.start_time),
    end_time: pydanticTime(t.end_time),
    total_spans: t.total_spans,
    error_count: t.error_count,
    input,
    run_id: t.run_id ?? undefined,
    session_id: t.session_id ?? undefined,
    user_id: t.user_id ?? undefined,
    agent_id: t.agent_id ?? undefined,
    team_id: t.team_id ?? undefined,
    workflow_id: t.workflow_id ?? undefined,
    created_at: pydanticTime(t.created_at),
  });
}

const rootOf = (spans: SpanRecord[]) => spans.find((s) => parentOf(s) === null);

/** A trace in a list: its row and the input of its root span (agno's TraceSummary.from_trace). */
export function traceSummary(t: TraceRow, spans: SpanRecord[]): TraceSummaryView {
  return traceFields(t, textOf(rootOf(spans)?.attributes["input.value"]));
}

/**
 * A trace with its tree of spans (agno's TraceDetail.from_trace_and_spans): the root span's input,
 * output or error at the top; roots and children by start time; the root node carrying the
 * trace's merged times and the token totals of its model calls; a workflow's steps typed by index.
 * A span whose parent is not stored is in no tree, as in agno.
 */
export function traceDetail(t: TraceRow, spans: SpanRecord[]): TraceDetailView {
  const root = rootOf(spans);
  let output: string | undefined;
  let error: string | undefined;
  if (root) {
    if (t.status === "ERROR" || root.status_code === "ERROR") {
      error = textOf(root.status_message || root.attributes["exception.message"]);
    } else {
      output = textOf(root.attributes["output.value"]);
    }
    const empty = !output || output.trim() === "None";
    if (kindOf(root) === "CHAIN" && empty && t.status !== "ERROR") {
      const steps = spans.filter((s) => parentOf(s) === root.span_id);
      const last = steps.sort((a, b) => (a.end_time < b.end_time ? 1 : a.end_time > b.end_time ? -1 : 0))[0];
      if (last) output = textOf(last.attributes["output.value"]);
    }
  }
  return {
    ...traceFields(t, textOf(root?.attributes["input.value"])),
    ...present({ output, error }),
    tree: tree(t, spans),
  };
}

/** agno's _build_span_tree. */
function tree(t: TraceRow, spans: SpanRecord[]): TraceNodeView[] {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of spans) {
    if (kindOf(s) !== "LLM") continue;
    const prompt = s.attributes["llm.token_count.prompt"];
    const completion = s.attributes["llm.token_count.completion"];
    if (typeof prompt === "number") inputTokens += prompt;
    if (typeof completion === "number") outputTokens += completion;
  }
  const children = new Map<string | null, SpanRecord[]>();
  for (const s of spans) {
    const key = parentOf(s);
    children.set(key, [...(children.get(key) ?? []), s]);
  }
  const roots = [...(children.get(null) ?? [])].sort(byStart);
  const workflowRoot = roots.find((r) => kindOf(r) === "CHAIN" && truthy(r.attributes["agno.workflow.step_types"]));
  const stepTypes = workflowRoot ? (workflowRoot.attributes["agno.workflow.step_types"] as unknown[]) : [];

  const build = (s: SpanRecord, isRoot: boolean, stepIndex?: number): TraceNodeView => {
    const kids = [...(children.get(s.span_id) ?? [])].sort(byStart);
    const nodes = kids.map((k, i) => build(k, false, isRoot && stepTypes.length > 0 ? i : undefined));
    const childNodes = nodes.length > 0 ? nodes : undefined;
    if (!isRoot) {
      const node = spanNode(s, childNodes);
      if (stepIndex !== undefined && stepIndex < stepTypes.length) {
        const step = textOf(stepTypes[stepIndex]);
        if (step !== undefined) node.step_type = step;
      }
      return node;
    }
    const metadata: Attributes = {};
    if (inputTokens > 0) metadata.total_input_tokens = inputTokens;
    if (outputTokens > 0) metadata.total_output_tokens = outputTokens;
    if (kindOf(s) === "CHAIN") pick(metadata, s.attributes, WORKFLOW_METADATA);
    return present({
      id: s.span_id,
      name: s.name,
      type: spanType(s),
      duration: formatDuration(t.duration_ms),
      start_time: pydanticTime(t.start_time),
      end_time: pydanticTime(t.end_time),
      status: s.status_code,
      spans: childNodes,
      metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
    });
  };
  return roots.map((r) => build(r, true));
}
