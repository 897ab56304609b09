import { z } from "zod";
import { agnoDatetime, agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/**
 * agno's trace models (`os/routers/traces/schemas.py` on `feat/v3.0`), field for field. The
 * routes answer with `response_model_exclude_none`, so an unset optional field is absent; the
 * filter schema is answered whole.
 */
const SOURCE = "os/routers/traces/schemas.py";
const dict = () => z.record(z.string(), z.unknown());

/** `TraceNode`: one span of a trace's tree, with its children. */
export const traceNodeSchema: z.ZodType = agnoObject(
  { model: "TraceNode", file: SOURCE },
  {
    id: z.string().describe("Span ID"),
    name: z.string().describe("Span name (e.g., 'agent.run', 'llm.invoke')"),
    type: z.string().describe("Span kind (AGENT, TEAM, WORKFLOW, LLM, TOOL)"),
    duration: z.string().describe("Human-readable duration (e.g., '123ms', '1.5s')"),
    start_time: agnoDatetime(),
    end_time: agnoDatetime(),
    status: z.string().describe("Status code (OK, ERROR)"),
    input: z.string().optional(),
    output: z.string().optional(),
    error: z.string().optional().describe("Error message if status is ERROR"),
    spans: z
      .lazy(() => z.array(traceNodeSchema))
      .optional()
      .describe("Child spans in the trace hierarchy"),
    step_type: z.string().optional().describe("Workflow step type (Step, Condition, function, Agent, Team)"),
    metadata: dict().optional(),
    extra_data: dict().optional(),
  },
);

const traceFields = {
  trace_id: z.string(),
  name: z.string().describe("Trace name (usually root span name)"),
  status: z.string().describe("Overall status (OK, ERROR)"),
  duration: z.string().describe("Human-readable total duration"),
  start_time: agnoDatetime(),
  end_time: agnoDatetime(),
  total_spans: z.int().min(0),
  error_count: z.int().min(0).describe("Number of spans with errors"),
  input: z.string().optional(),
};
const traceIds = {
  run_id: z.string().optional(),
  session_id: z.string().optional(),
  user_id: z.string().optional(),
  agent_id: z.string().optional(),
  team_id: z.string().optional(),
  workflow_id: z.string().optional(),
  created_at: agnoDatetime(),
};

/** `TraceSummary`: one trace in `GET /traces`. */
export const traceSummarySchema = agnoObject({ model: "TraceSummary", file: SOURCE }, { ...traceFields, ...traceIds });

/** `TraceDetail`: a trace with its span tree. */
export const traceDetailSchema = agnoObject(
  { model: "TraceDetail", file: SOURCE },
  {
    ...traceFields,
    output: z.string().optional(),
    error: z.string().optional().describe("Error message if status is ERROR"),
    ...traceIds,
    tree: z.array(traceNodeSchema).describe("Hierarchical tree of spans (root nodes)"),
  },
);

/** `TraceSessionStats`: one session's traces in sum. */
export const traceSessionStatsSchema = agnoObject(
  { model: "TraceSessionStats", file: SOURCE },
  {
    session_id: z.string(),
    user_id: z.string().optional(),
    agent_id: z.string().optional(),
    team_id: z.string().optional(),
    workflow_id: z.string().optional(),
    total_traces: z.int().min(0),
    first_trace_at: agnoDatetime(),
    last_trace_at: agnoDatetime(),
  },
);

export const paginatedTraceSummariesSchema = paginated(traceSummarySchema);
export const paginatedTraceDetailsSchema = paginated(traceDetailSchema);
export const paginatedTraceSessionStatsSchema = paginated(traceSessionStatsSchema);

/** `FilterFieldSchema`: one field the filter bar offers. */
export const filterFieldSchema = agnoObject(
  { model: "FilterFieldSchema", file: SOURCE },
  {
    key: z.string(),
    label: z.string(),
    type: z.string().describe("string, number, datetime, enum"),
    operators: z.array(z.string()),
    values: z.array(z.string()).nullable().optional(),
  },
);

/** `FilterSchemaResponse`: what `GET /traces/filter-schema` answers. */
export const filterSchemaResponseSchema = agnoObject(
  { model: "FilterSchemaResponse", file: SOURCE },
  { fields: z.array(filterFieldSchema), logical_operators: z.array(z.string()) },
);

/** `TraceSearchRequest`: the body of `POST /traces/search`. */
export const traceSearchRequestSchema = z
  .object({
    filter: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe(
        "FilterExpr DSL as JSON dict. Supports operators: EQ, NEQ, GT, GTE, LT, LTE, IN, CONTAINS, STARTSWITH, AND, OR, NOT.",
      ),
    group_by: z
      .enum(["run", "session"])
      .default("run")
      .describe("Grouping mode: 'run' returns individual TraceDetail, 'session' returns aggregated TraceSessionStats."),
    page: z.int().min(1).default(1),
    limit: z.int().min(1).max(100).default(20),
  })
  .strict()
  .meta({ id: "TraceSearchRequest" });

const TEXT_OPERATORS = ["EQ", "NEQ", "CONTAINS", "STARTSWITH", "IN"];
const TIME_OPERATORS = ["GT", "GTE", "LT", "LTE"];
const text = (key: string, label: string) => ({ key, label, type: "string", operators: TEXT_OPERATORS, values: null });
const time = (key: string, label: string) => ({
  key,
  label,
  type: "datetime",
  operators: TIME_OPERATORS,
  values: null,
});

/** agno's TRACE_FILTER_SCHEMA, as its filter bar reads it. */
export const TRACE_FILTER_SCHEMA: z.infer<typeof filterSchemaResponseSchema> = {
  fields: [
    { key: "status", label: "Status", type: "enum", operators: ["EQ", "NEQ", "IN"], values: ["OK", "ERROR"] },
    text("user_id", "User ID"),
    text("agent_id", "Agent ID"),
    text("team_id", "Team ID"),
    text("workflow_id", "Workflow ID"),
    text("session_id", "Session ID"),
    text("run_id", "Run ID"),
    { ...text("name", "Trace Name"), operators: ["EQ", "NEQ", "CONTAINS", "STARTSWITH"] },
    text("trace_id", "Trace ID"),
    {
      key: "duration_ms",
      label: "Duration (ms)",
      type: "number",
      operators: ["EQ", "NEQ", "GT", "GTE", "LT", "LTE"],
      values: null,
    },
    time("start_time", "Start Time"),
    time("end_time", "End Time"),
    time("created_at", "Created At"),
  ],
  logical_operators: ["AND", "OR"],
};

/** `GET /traces/{trace_id}`'s `Union[TraceDetail, TraceNode]`: the trace, or one span of it. */
export const traceOrSpanSchema = z
  .union([traceDetailSchema, traceNodeSchema])
  .meta({ "x-agno": `libs/agno/agno/${SOURCE}:TraceDetail | TraceNode` });

/** `POST /traces/search`'s `Union[PaginatedResponse[TraceDetail], PaginatedResponse[TraceSessionStats]]`. */
export const traceSearchResponseSchema = z.union([paginatedTraceDetailsSchema, paginatedTraceSessionStatsSchema]).meta({
  "x-agno": "libs/agno/agno/os/schema.py:PaginatedResponse[TraceDetail] | PaginatedResponse[TraceSessionStats]",
});
