import { BadRequestError } from "../errors.js";
import { TRACE_FILTER_COLUMNS, type TraceFilter, type TraceFilterColumn } from "./ports/trace-store.js";
import { traceTime } from "./trace-time.js";

/** How deep expressions nest (agno's MAX_FILTER_DEPTH) and how many clauses one holds in all. */
const MAX_DEPTH = 10;
const MAX_CLAUSES = 200;
const MAX_IN_VALUES = 1000;
const MAX_TEXT = 1000;

const COLUMNS: ReadonlySet<string> = new Set(TRACE_FILTER_COLUMNS);
const TIMES: ReadonlySet<string> = new Set(["start_time", "end_time", "created_at"]);
const COMPARE = new Set(["EQ", "NEQ", "GT", "GTE", "LT", "LTE"]);
const MATCH = new Set(["CONTAINS", "STARTSWITH"]);

const bad = (why: string) => new BadRequestError(`Invalid filter expression: ${why}`);
const shown = (value: unknown) => JSON.stringify(value)?.slice(0, 200) ?? String(value);

/**
 * agno's filter expression (the body of `POST /traces/search`) checked and normalised, or a 400
 * saying what is wrong. The operators are those agno's converter knows (EQ, NEQ, GT, GTE, LT, LTE,
 * IN, CONTAINS, STARTSWITH, AND, OR, NOT) over its trace columns; beyond agno, a value must suit its
 * column (a number for `duration_ms`, an ISO time for the time columns, text for the rest) and text
 * matching is refused on `duration_ms`, where agno's Postgres would fail the query instead.
 */
export function parseTraceFilter(raw: unknown): TraceFilter {
  let clauses = 0;
  const parse = (node: unknown, depth: number): TraceFilter => {
    if (depth > MAX_DEPTH) throw bad(`nested deeper than ${MAX_DEPTH}`);
    if (++clauses > MAX_CLAUSES) throw bad(`more than ${MAX_CLAUSES} clauses`);
    if (typeof node !== "object" || node === null || Array.isArray(node) || !("op" in node)) {
      throw bad(`each clause must be an object with an 'op', got ${shown(node)}`);
    }
    const clause = node as Record<string, unknown>;
    const op = clause.op;
    if (op === "AND" || op === "OR") {
      const conditions = clause.conditions;
      if (!Array.isArray(conditions) || conditions.length === 0) {
        throw bad(`${op} needs a non-empty 'conditions' list`);
      }
      return { op, conditions: conditions.map((c) => parse(c, depth + 1)) };
    }
    if (op === "NOT") {
      if (clause.condition === undefined || clause.condition === null) throw bad("NOT needs a 'condition'");
      return { op, condition: parse(clause.condition, depth + 1) };
    }
    if (typeof op !== "string" || (!COMPARE.has(op) && !MATCH.has(op) && op !== "IN")) {
      throw bad(`unknown operator ${shown(op)}`);
    }
    const key = column(clause.key);
    if (op === "IN") {
      const values = clause.values;
      if (!Array.isArray(values) || values.length === 0 || values.length > MAX_IN_VALUES) {
        throw bad(`IN needs a 'values' list of 1 to ${MAX_IN_VALUES} values`);
      }
      return { op, key, values: values.map((v) => value(key, v)) };
    }
    if (MATCH.has(op)) {
      if (key === "duration_ms") throw bad(`${op} does not apply to duration_ms`);
      const text = value(key, clause.value, true);
      return { op: op as "CONTAINS" | "STARTSWITH", key, value: String(text) };
    }
    return { op: op as "EQ", key, value: value(key, clause.value) };
  };
  return parse(raw, 0);
}

function column(key: unknown): TraceFilterColumn {
  if (typeof key !== "string" || !COLUMNS.has(key)) {
    throw bad(`field ${shown(key)} is not filterable; allowed: ${TRACE_FILTER_COLUMNS.join(", ")}`);
  }
  return key as TraceFilterColumn;
}

/** A clause's value, as its column compares it; a partial time is kept as text for CONTAINS and STARTSWITH. */
function value(key: TraceFilterColumn, raw: unknown, partial = false): string | number {
  if (key === "duration_ms") {
    if (typeof raw !== "number" || !Number.isFinite(raw)) throw bad(`duration_ms needs a number, got ${shown(raw)}`);
    return raw;
  }
  if (typeof raw !== "string" || raw.length > MAX_TEXT) {
    throw bad(`${key} needs a string of at most ${MAX_TEXT} characters, got ${shown(raw)}`);
  }
  if (TIMES.has(key) && !partial) {
    try {
      return traceTime(raw, key);
    } catch {
      throw bad(`${key} needs an ISO 8601 time, got ${shown(raw)}`);
    }
  }
  return raw;
}
