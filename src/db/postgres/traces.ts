import { sql, type SQL } from "drizzle-orm";
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
import { pgJson } from "../../json-limits.js";
import { idList } from "./id-list.js";
import { num, str } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";

/** What the trace tables borrow from their PostgresDb. */
export interface TraceDeps {
  exec: Exec;
  /** resolves once the database holds the current layout */
  ready: () => Promise<void>;
  traces: SQL;
  spans: SQL;
}

const TRACE_COLUMNS =
  "trace_id, name, status, start_time, end_time, duration_ms, run_id, session_id, user_id, agent_id, team_id, workflow_id, created_at";
const SPAN_COLUMNS =
  "span_id, trace_id, parent_span_id, name, span_kind, status_code, status_message, start_time, end_time, duration_ms, attributes, created_at";
/** spans per INSERT, well inside a statement's parameter limit */
const SPAN_CHUNK = 500;

/** Postgres text refuses NUL; agno strips it too (sanitize_postgres_string). */
const text = (value: string) => value.replaceAll("\u0000", "");
const textOrNull = (value: string | null) => (value === null ? null : text(value));

/** agno's component level of a trace row (src/db/trace-merge.ts's traceLevel) in SQL, over `t.` or `EXCLUDED.`. */
const level = (r: string) =>
  sql.raw(`CASE WHEN ${r}.name LIKE '%.run%' OR ${r}.name LIKE '%.arun%' THEN
      CASE WHEN ${r}.workflow_id IS NOT NULL THEN 3 WHEN ${r}.team_id IS NOT NULL THEN 2
           WHEN ${r}.agent_id IS NOT NULL THEN 1 ELSE 0 END
    ELSE 0 END`);

/** LIKE's wildcards and escape taken literally. */
const likeText = (value: string) => value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);

/** A checked filter expression (src/db/trace-filter.ts) as a WHERE clause; the columns are agno's, from a fixed list. */
export function traceFilterSql(f: TraceFilter): SQL {
  switch (f.op) {
    case "AND":
    case "OR":
      return sql`(${sql.join(f.conditions.map(traceFilterSql), sql.raw(` ${f.op} `))})`;
    case "NOT":
      return sql`(NOT ${traceFilterSql(f.condition)})`;
    default:
  }
  const column = sql.raw(f.key);
  const param = (v: string | number) => (typeof v === "number" ? sql`${v}::numeric` : sql`${v}`);
  switch (f.op) {
    case "IN":
      return sql`(${column} IN (${sql.join(f.values.map(param), sql`, `)}))`;
    case "CONTAINS":
      return sql`(lower(${column}) LIKE ${`%${likeText(f.value)}%`} ESCAPE '\\')`;
    case "STARTSWITH":
      return sql`(lower(${column}) LIKE ${`${likeText(f.value)}%`} ESCAPE '\\')`;
    default: {
      const op = { EQ: "=", NEQ: "<>", GT: ">", GTE: ">=", LT: "<", LTE: "<=" }[f.op];
      return sql`(${column} ${sql.raw(op)} ${param(f.value)})`;
    }
  }
}

function toTraceRow(row: Record<string, unknown>): TraceRow {
  return {
    trace_id: String(row.trace_id),
    name: String(row.name),
    status: String(row.status),
    start_time: String(row.start_time),
    end_time: String(row.end_time),
    duration_ms: num(row.duration_ms),
    run_id: str(row.run_id),
    session_id: str(row.session_id),
    user_id: str(row.user_id),
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    created_at: String(row.created_at),
    total_spans: num(row.total_spans),
    error_count: num(row.error_count),
  };
}

function toSpanRecord(row: Record<string, unknown>): SpanRecord {
  return {
    span_id: String(row.span_id),
    trace_id: String(row.trace_id),
    parent_span_id: str(row.parent_span_id),
    name: String(row.name),
    span_kind: String(row.span_kind),
    status_code: String(row.status_code),
    status_message: str(row.status_message),
    start_time: String(row.start_time),
    end_time: String(row.end_time),
    duration_ms: num(row.duration_ms),
    attributes: (row.attributes as Record<string, unknown> | null) ?? {},
    created_at: String(row.created_at),
  };
}

/** One trace row's VALUES tuple, in TRACE_COLUMNS' order. */
const traceValues = (t: TraceRecord): SQL =>
  sql`(${text(t.trace_id)}, ${text(t.name)}, ${text(t.status)}, ${text(t.start_time)}, ${text(t.end_time)}, ${Math.round(t.duration_ms)}, ${textOrNull(t.run_id)}, ${textOrNull(t.session_id)}, ${textOrNull(t.user_id)}, ${textOrNull(t.agent_id)}, ${textOrNull(t.team_id)}, ${textOrNull(t.workflow_id)}, ${text(t.created_at)})`;

/** One span row's VALUES tuple, in SPAN_COLUMNS' order. */
const spanValues = (s: SpanRecord): SQL =>
  sql`(${text(s.span_id)}, ${text(s.trace_id)}, ${textOrNull(s.parent_span_id)}, ${text(s.name)}, ${text(s.span_kind)}, ${text(s.status_code)}, ${textOrNull(s.status_message)}, ${text(s.start_time)}, ${text(s.end_time)}, ${Math.round(s.duration_ms)}, ${pgJson(s.attributes)}::jsonb, ${text(s.created_at)})`;

/** The traces of one batch, one row per trace: repeats folded by the merge rule, so one INSERT touches each once. */
function folded(traces: TraceRecord[]): TraceRecord[] {
  const byId = new Map<string, TraceRecord>();
  for (const t of traces) {
    const seen = byId.get(t.trace_id);
    byId.set(t.trace_id, seen ? mergeTrace(seen, t) : t);
  }
  return [...byId.values()];
}

/**
 * Trace storage on Postgres (`db.traces`, agno's `agno_traces` and `agno_spans`). A batch's traces
 * are one INSERT … ON CONFLICT carrying agno's merge rule, its spans INSERT … ON CONFLICT DO
 * NOTHING in the same statement (a span names its trace).
 */
export class PostgresTraceStore implements TraceStore {
  constructor(private readonly d: TraceDeps) {}

  async writeTraces(traces: TraceRecord[], spans: SpanRecord[]): Promise<void> {
    await this.d.ready();
    const rows = folded(traces);
    const batch = new Set(rows.map((t) => t.trace_id));
    const outside = [...new Set(spans.map((s) => s.trace_id).filter((id) => !batch.has(id)))];
    if (outside.length > 0) {
      const stored = await this.d.exec(
        sql`SELECT trace_id FROM ${this.d.traces} WHERE trace_id IN (${idList(outside)})`,
      );
      const known = new Set(stored.map((r) => String(r.trace_id)));
      const orphan = spans.find((s) => !batch.has(s.trace_id) && !known.has(s.trace_id));
      if (orphan) throw orphanSpan(orphan);
    }
    const upsert =
      rows.length === 0
        ? null
        : sql`
        INSERT INTO ${this.d.traces} AS t (${sql.raw(TRACE_COLUMNS)}) VALUES ${sql.join(rows.map(traceValues), sql`, `)}
        ON CONFLICT (trace_id) DO UPDATE SET
          start_time = LEAST(t.start_time, EXCLUDED.start_time),
          end_time = GREATEST(t.end_time, EXCLUDED.end_time),
          duration_ms = ROUND(EXTRACT(EPOCH FROM (
            GREATEST(t.end_time, EXCLUDED.end_time)::timestamptz - LEAST(t.start_time, EXCLUDED.start_time)::timestamptz
          )) * 1000)::bigint,
          status = EXCLUDED.status,
          name = CASE WHEN ${level("EXCLUDED")} > ${level("t")} THEN EXCLUDED.name ELSE t.name END,
          run_id = COALESCE(t.run_id, EXCLUDED.run_id),
          session_id = COALESCE(t.session_id, EXCLUDED.session_id),
          user_id = COALESCE(t.user_id, EXCLUDED.user_id),
          agent_id = COALESCE(t.agent_id, EXCLUDED.agent_id),
          team_id = COALESCE(t.team_id, EXCLUDED.team_id),
          workflow_id = COALESCE(t.workflow_id, EXCLUDED.workflow_id)`;
    const inserts: SQL[] = [];
    for (let i = 0; i < spans.length; i += SPAN_CHUNK) {
      inserts.push(sql`
        INSERT INTO ${this.d.spans} (${sql.raw(SPAN_COLUMNS)})
        VALUES ${sql.join(spans.slice(i, i + SPAN_CHUNK).map(spanValues), sql`, `)}
        ON CONFLICT (span_id) DO NOTHING`);
    }
    // The usual batch (its traces and up to a chunk of spans) is one statement: the traces' upsert
    // as a data-modifying CTE, so the spans' foreign key sees them and both commit together.
    const [first, ...rest] = inserts;
    if (upsert && first) await this.d.exec(sql`WITH merged AS (${upsert}) ${first}`);
    else if (upsert) await this.d.exec(upsert);
    else if (first) await this.d.exec(first);
    for (const insert of rest) await this.d.exec(insert);
  }

  async getTrace(by: { trace_id?: string; run_id?: string }): Promise<TraceRow | null> {
    const where =
      by.trace_id !== undefined
        ? sql`trace_id = ${by.trace_id}`
        : by.run_id !== undefined
          ? sql`run_id = ${by.run_id}`
          : null;
    if (where === null) return null;
    await this.d.ready();
    const [row] = await this.d.exec(
      this.withCounts(
        sql`SELECT * FROM ${this.d.traces} WHERE ${where} ORDER BY start_time DESC, trace_id DESC LIMIT 1`,
      ),
    );
    return row ? toTraceRow(row) : null;
  }

  async getTraces(query: TraceQuery = {}): Promise<Page<TraceRow>> {
    const page = resolvePage(query);
    const filters: SQL[] = [sql`TRUE`];
    const eq = (column: string, value: string | undefined) => {
      if (value !== undefined) filters.push(sql`${sql.raw(column)} = ${value}`);
    };
    eq("run_id", query.run_id);
    eq("session_id", query.session_id);
    eq("user_id", query.user_id);
    eq("agent_id", query.agent_id);
    eq("team_id", query.team_id);
    eq("workflow_id", query.workflow_id);
    eq("status", query.status);
    if (query.start_time !== undefined) filters.push(sql`start_time >= ${query.start_time}`);
    if (query.end_time !== undefined) filters.push(sql`end_time <= ${query.end_time}`);
    if (query.filter !== undefined) filters.push(traceFilterSql(query.filter));
    const where = sql.join(filters, sql` AND `);
    await this.d.ready();
    const rows = await this.d.exec(
      this.withCounts(sql`
        SELECT *, COUNT(*) OVER () AS total_count FROM ${this.d.traces} WHERE ${where}
        ORDER BY start_time DESC, trace_id DESC LIMIT ${page.limit} OFFSET ${page.offset}`),
    );
    const total =
      rows.length > 0
        ? num(rows[0]!.total_count)
        : page.offset === 0
          ? 0
          : num((await this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.traces} WHERE ${where}`))[0]!.n);
    return pageOf(rows.map(toTraceRow), total, page);
  }

  async getSpan(spanId: string): Promise<SpanRecord | null> {
    await this.d.ready();
    const [row] = await this.d.exec(
      sql`SELECT ${sql.raw(SPAN_COLUMNS)} FROM ${this.d.spans} WHERE span_id = ${spanId}`,
    );
    return row ? toSpanRecord(row) : null;
  }

  async getSpans(traceId: string): Promise<SpanRecord[]> {
    await this.d.ready();
    const rows = await this.d.exec(
      sql`SELECT ${sql.raw(SPAN_COLUMNS)} FROM ${this.d.spans} WHERE trace_id = ${traceId} ORDER BY start_time, span_id`,
    );
    return rows.map(toSpanRecord);
  }

  async getTraceStats(query: TraceStatsQuery = {}): Promise<Page<TraceSessionStatsRow>> {
    const page = resolvePage(query);
    const filters: SQL[] = [sql`session_id IS NOT NULL`];
    const eq = (column: string, value: string | undefined) => {
      if (value !== undefined) filters.push(sql`${sql.raw(column)} = ${value}`);
    };
    eq("user_id", query.user_id);
    eq("agent_id", query.agent_id);
    eq("team_id", query.team_id);
    eq("workflow_id", query.workflow_id);
    if (query.start_time !== undefined) filters.push(sql`created_at >= ${query.start_time}`);
    if (query.end_time !== undefined) filters.push(sql`created_at <= ${query.end_time}`);
    if (query.filter !== undefined) filters.push(traceFilterSql(query.filter));
    const where = sql.join(filters, sql` AND `);
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT session_id, MAX(user_id) AS user_id, MAX(agent_id) AS agent_id, MAX(team_id) AS team_id,
        MAX(workflow_id) AS workflow_id, COUNT(*) AS total_traces,
        MIN(created_at) AS first_trace_at, MAX(created_at) AS last_trace_at, COUNT(*) OVER () AS total_count
      FROM ${this.d.traces} WHERE ${where} GROUP BY session_id
      ORDER BY MAX(created_at) DESC, session_id DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total =
      rows.length > 0
        ? num(rows[0]!.total_count)
        : page.offset === 0
          ? 0
          : num(
              (await this.d.exec(sql`SELECT COUNT(DISTINCT session_id) AS n FROM ${this.d.traces} WHERE ${where}`))[0]!
                .n,
            );
    return pageOf(
      rows.map((r) => ({
        session_id: String(r.session_id),
        user_id: str(r.user_id),
        agent_id: str(r.agent_id),
        team_id: str(r.team_id),
        workflow_id: str(r.workflow_id),
        total_traces: num(r.total_traces),
        first_trace_at: String(r.first_trace_at),
        last_trace_at: String(r.last_trace_at),
      })),
      total,
      page,
    );
  }

  /** `traces` (a query of trace rows) with each row's span count and error count, in its order. */
  private withCounts(traces: SQL): SQL {
    return sql`
      WITH page AS (${traces})
      SELECT page.*,
        (SELECT COUNT(*) FROM ${this.d.spans} s WHERE s.trace_id = page.trace_id) AS total_spans,
        (SELECT COUNT(*) FROM ${this.d.spans} s WHERE s.trace_id = page.trace_id AND s.status_code = 'ERROR') AS error_count
      FROM page ORDER BY page.start_time DESC, page.trace_id DESC`;
  }
}

rethrowUnavailable(PostgresTraceStore);
