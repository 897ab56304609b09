import { z } from "zod";
import type { Db, TraceFilter, TraceRow, TraceSessionStatsRow } from "../../db/port.js";
import { parseTraceFilter } from "../../db/trace-filter.js";
import { traceTime } from "../../db/trace-time.js";
import { NotFoundError } from "../../errors.js";
import { spanNode, traceDetail, traceSummary } from "../../tracing/trace-tree.js";
import { effectiveUserId, scopedUserId } from "../auth/scopes.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  filterSchemaResponseSchema,
  paginatedTraceSessionStatsSchema,
  paginatedTraceSummariesSchema,
  traceOrSpanSchema,
  traceSearchResponseSchema,
  TRACE_FILTER_SCHEMA,
  traceSearchRequestSchema,
} from "../wire/traces.js";
import { agnoDatetimeOf } from "../wire/agno-object.js";
import { dbFor } from "./sessions.js";

const tags: ["Traces"] = ["Traces"];
const read = { resource: "traces", action: "read" };
/** Each listed trace reads its spans (agno's summary shows the root's input), so a page is kept to agno's search maximum. */
const MAX_TRACE_PAGE = 100;
const time = (what: string) =>
  z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(`${what} (ISO 8601 with a timezone, e.g. '2025-11-19T10:00:00Z'); compared in UTC`);
const page = z.coerce.number().int().min(1).default(1).describe("Page number (1-indexed)");
const limit = z.coerce.number().int().min(1).max(MAX_TRACE_PAGE).default(20);
const badInput = { 400: jsonAnswer(errorSchema, "A time or filter expression that is not one") };
const notFound = { 404: jsonAnswer(errorSchema, "No such trace or span for this caller") };

const listTraces = defineRoute({
  method: "get",
  path: "/traces",
  tags,
  summary: "List Traces",
  description:
    "A page of traces, latest start first, each with its span counts and its root span's input. With user isolation a non-admin sees only their own traces, whatever `user_id` says.",
  scope: read,
  request: {
    query: z.object({
      run_id: idSchema.optional(),
      session_id: idSchema.optional(),
      user_id: idSchema.optional(),
      agent_id: idSchema.optional(),
      team_id: idSchema.optional(),
      workflow_id: idSchema.optional(),
      status: z.string().min(1).max(32).optional().describe("Filter by status (OK, ERROR)"),
      start_time: time("Traces starting at or after this time"),
      end_time: time("Traces ending at or before this time"),
      page,
      limit,
      db_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonAnswer(paginatedTraceSummariesSchema, "A page of traces"), ...badInput },
});

const filterSchema = defineRoute({
  method: "get",
  path: "/traces/filter-schema",
  tags,
  summary: "Get Trace Filter Schema",
  description: "The fields `POST /traces/search` filters on, with each one's type, operators and enum values.",
  scope: read,
  responses: { 200: jsonAnswer(filterSchemaResponseSchema, "The filter schema") },
});

const getTrace = defineRoute({
  method: "get",
  path: "/traces/{trace_id}",
  tags,
  summary: "Get Trace or Span Detail",
  description:
    "The trace with its span tree; with `span_id`, that one span of it. A trace is found by `trace_id`, which takes precedence over `run_id` (as in agno). Another user's trace is a 404 to a non-admin under user isolation.",
  scope: read,
  request: {
    params: z.object({ trace_id: idSchema }),
    query: z.object({
      span_id: idSchema.optional().describe("Span ID to retrieve specific span"),
      run_id: idSchema.optional().describe("Run ID to retrieve trace for"),
      db_id: idSchema.optional(),
    }),
  },
  responses: {
    200: jsonAnswer(traceOrSpanSchema, "The trace, or the span"),
    ...notFound,
  },
});

const traceStats = defineRoute({
  method: "get",
  path: "/trace_session_stats",
  tags,
  summary: "Get Trace Statistics by Session",
  description:
    "Traces summed per session (count, first and last), latest activity first; bounded by the traces' creation time.",
  scope: read,
  request: {
    query: z.object({
      user_id: idSchema.optional(),
      agent_id: idSchema.optional(),
      team_id: idSchema.optional(),
      workflow_id: idSchema.optional(),
      start_time: time("Sessions with traces created at or after this time"),
      end_time: time("Sessions with traces created at or before this time"),
      page,
      limit,
      db_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonAnswer(paginatedTraceSessionStatsSchema, "A page of session statistics"), ...badInput },
});

const searchTraces = defineRoute({
  method: "post",
  path: "/traces/search",
  tags,
  summary: "Search Traces with Advanced Filters",
  description:
    "Traces matching agno's filter expression (EQ, NEQ, GT, GTE, LT, LTE, IN, CONTAINS, STARTSWITH, AND, OR, NOT over the trace columns): `group_by: run` answers each with its span tree, `session` sums them per session. A non-admin under user isolation searches their own traces only.",
  scope: read,
  request: { query: z.object({ db_id: idSchema.optional() }), body: jsonBody(traceSearchRequestSchema) },
  responses: {
    200: jsonAnswer(traceSearchResponseSchema, "A page of traces, or of session statistics"),
    ...badInput,
  },
});

/** A stored time as pydantic writes a datetime; a row that holds something else is answered as stored. */
const agnoTime = (iso: string) => (Number.isNaN(Date.parse(iso)) ? iso : agnoDatetimeOf(Date.parse(iso)));

/** A session's sums over HTTP: None left out (`response_model_exclude_none`). */
const statsView = (s: TraceSessionStatsRow) => ({
  session_id: s.session_id,
  ...(s.user_id !== null && { user_id: s.user_id }),
  ...(s.agent_id !== null && { agent_id: s.agent_id }),
  ...(s.team_id !== null && { team_id: s.team_id }),
  ...(s.workflow_id !== null && { workflow_id: s.workflow_id }),
  total_traces: s.total_traces,
  first_trace_at: agnoTime(s.first_trace_at),
  last_trace_at: agnoTime(s.last_trace_at),
});

/**
 * agno's filter with the caller's user AND-ed in for a scoped caller (agno's
 * `_apply_user_scope_to_filter`), so a search never crosses users.
 */
function scopedFilter(filter: TraceFilter | undefined, userId: string | undefined): TraceFilter | undefined {
  if (userId === undefined) return filter;
  const own: TraceFilter = { op: "EQ", key: "user_id", value: userId };
  return filter === undefined ? own : { op: "AND", conditions: [own, filter] };
}

/** The trace a scoped caller may see (agno's `_require_trace_owner`): another's, or one with no user, is not found. */
async function ownTrace(
  db: Db,
  by: { trace_id: string; run_id?: string },
  userId: string | undefined,
): Promise<TraceRow> {
  const trace = await db.traces.getTrace(by);
  if (!trace || (userId !== undefined && trace.user_id !== userId)) throw new NotFoundError("Trace not found");
  return trace;
}

/**
 * agno's trace routes (os/routers/traces): reads of what the tracer stored (`db.traces`), each
 * needing `traces:read`. Under user isolation a non-admin reads only traces with their user id.
 */
export function traceRoutes() {
  const app = routeApp();

  handle(app, listTraces, async (c) => {
    const q = c.req.valid("query");
    const db = dbFor(c, q.db_id);
    const page = await db.traces.getTraces({
      run_id: q.run_id,
      session_id: q.session_id,
      user_id: effectiveUserId(c, q.user_id),
      agent_id: q.agent_id,
      team_id: q.team_id,
      workflow_id: q.workflow_id,
      status: q.status,
      start_time: q.start_time === undefined ? undefined : traceTime(q.start_time, "start_time"),
      end_time: q.end_time === undefined ? undefined : traceTime(q.end_time, "end_time"),
      page: q.page,
      limit: q.limit,
    });
    const data = await Promise.all(page.data.map(async (t) => traceSummary(t, await db.traces.getSpans(t.trace_id))));
    return c.json({ data, meta: paginationInfo(page) });
  });

  handle(app, filterSchema, (c) => c.json(TRACE_FILTER_SCHEMA));

  handle(app, getTrace, async (c) => {
    const { trace_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const db = dbFor(c, q.db_id);
    const trace = await ownTrace(db, { trace_id, run_id: q.run_id }, scopedUserId(c));
    if (q.span_id !== undefined) {
      const span = await db.traces.getSpan(q.span_id);
      if (!span) throw new NotFoundError("Span not found");
      if (span.trace_id !== trace.trace_id) {
        throw new NotFoundError(`Span ${q.span_id} does not belong to trace ${trace_id}`);
      }
      return c.json(spanNode(span));
    }
    return c.json(traceDetail(trace, await db.traces.getSpans(trace.trace_id)));
  });

  handle(app, traceStats, async (c) => {
    const q = c.req.valid("query");
    const page = await dbFor(c, q.db_id).traces.getTraceStats({
      user_id: effectiveUserId(c, q.user_id),
      agent_id: q.agent_id,
      team_id: q.team_id,
      workflow_id: q.workflow_id,
      start_time: q.start_time === undefined ? undefined : traceTime(q.start_time, "start_time"),
      end_time: q.end_time === undefined ? undefined : traceTime(q.end_time, "end_time"),
      page: q.page,
      limit: q.limit,
    });
    return c.json({ data: page.data.map(statsView), meta: paginationInfo(page) });
  });

  handle(app, searchTraces, async (c) => {
    const body = c.req.valid("json");
    const db = dbFor(c, c.req.valid("query").db_id);
    const parsed = body.filter ? parseTraceFilter(body.filter) : undefined;
    const filter = scopedFilter(parsed, scopedUserId(c));
    const pageOf = { filter, page: body.page, limit: body.limit };
    if (body.group_by === "session") {
      const page = await db.traces.getTraceStats(pageOf);
      return c.json({ data: page.data.map(statsView), meta: paginationInfo(page) });
    }
    const page = await db.traces.getTraces(pageOf);
    const data = await Promise.all(page.data.map(async (t) => traceDetail(t, await db.traces.getSpans(t.trace_id))));
    return c.json({ data, meta: paginationInfo(page) });
  });

  return app;
}
