import { ValidationError } from "../errors.js";

/**
 * agno's filter expressions (agno/filters.py) in their dict form, which is also their wire form:
 * `{op: "EQ", key, value}`, `{op: "AND", conditions: [...]}`, `{op: "NOT", condition}`.
 * A plain `Record<string, unknown>` filter (agno's dict filters) means every key equals its value.
 */
export type FilterExpr =
  | { op: "EQ" | "NEQ" | "GT" | "GTE" | "LT" | "LTE" | "CONTAINS" | "STARTSWITH"; key: string; value: unknown }
  | { op: "IN"; key: string; values: unknown[] }
  | { op: "AND" | "OR"; conditions: FilterExpr[] }
  | { op: "NOT"; condition: FilterExpr };

export type KnowledgeFilters = Record<string, unknown> | FilterExpr | FilterExpr[];

export const EQ = (key: string, value: unknown): FilterExpr => ({ op: "EQ", key, value });
export const NEQ = (key: string, value: unknown): FilterExpr => ({ op: "NEQ", key, value });
export const IN = (key: string, values: unknown[]): FilterExpr => ({ op: "IN", key, values });
export const GT = (key: string, value: unknown): FilterExpr => ({ op: "GT", key, value });
export const GTE = (key: string, value: unknown): FilterExpr => ({ op: "GTE", key, value });
export const LT = (key: string, value: unknown): FilterExpr => ({ op: "LT", key, value });
export const LTE = (key: string, value: unknown): FilterExpr => ({ op: "LTE", key, value });
export const AND = (...conditions: FilterExpr[]): FilterExpr => ({ op: "AND", conditions });
export const OR = (...conditions: FilterExpr[]): FilterExpr => ({ op: "OR", conditions });
export const NOT = (condition: FilterExpr): FilterExpr => ({ op: "NOT", condition });

const COMPARE = new Set(["EQ", "NEQ", "GT", "GTE", "LT", "LTE", "CONTAINS", "STARTSWITH"]);
const KEY = /^[A-Za-z0-9_.:-]{1,128}$/;
const MAX_DEPTH = 16;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkKey(key: unknown, path: string): string {
  if (typeof key !== "string" || !KEY.test(key))
    throw new ValidationError(`${path}.key must match ${KEY} (got ${JSON.stringify(key)})`, "filters");
  return key;
}

function checkExpr(e: unknown, path: string, depth: number): FilterExpr {
  if (depth > MAX_DEPTH) throw new ValidationError(`filters nest deeper than ${MAX_DEPTH}`, "filters");
  if (!isPlainObject(e) || typeof e.op !== "string")
    throw new ValidationError(`${path} must be a filter expression with an "op"`, "filters");
  const op = e.op.toUpperCase();
  if (COMPARE.has(op)) {
    const value = e.value;
    if (value !== null && typeof value === "object")
      throw new ValidationError(`${path}.value must be a string, number, boolean or null`, "filters");
    if ((op === "CONTAINS" || op === "STARTSWITH") && typeof value !== "string")
      throw new ValidationError(`${path}.value must be a string for ${op}`, "filters");
    if (["GT", "GTE", "LT", "LTE"].includes(op) && (typeof value !== "number" || !Number.isFinite(value)))
      throw new ValidationError(`${path}.value must be a number for ${op}`, "filters");
    return { op: op as "EQ", key: checkKey(e.key, path), value };
  }
  if (op === "IN") {
    if (!Array.isArray(e.values) || e.values.some((v) => v !== null && typeof v === "object"))
      throw new ValidationError(`${path}.values must be a list of scalars`, "filters");
    return { op, key: checkKey(e.key, path), values: e.values };
  }
  if (op === "AND" || op === "OR") {
    if (!Array.isArray(e.conditions) || e.conditions.length === 0)
      throw new ValidationError(`${path}.conditions must be a non-empty list`, "filters");
    return { op, conditions: e.conditions.map((c, i) => checkExpr(c, `${path}.conditions[${i}]`, depth + 1)) };
  }
  if (op === "NOT") return { op, condition: checkExpr(e.condition, `${path}.condition`, depth + 1) };
  throw new ValidationError(`${path}.op ${JSON.stringify(e.op)} is not a filter operator`, "filters");
}

/**
 * Checks filters from any source (a model's tool call, a request body) and normalises them to one
 * expression, or undefined when there are none: a dict becomes an AND of EQs, a list an AND.
 * A malformed filter is a ValidationError (422), never a silently ignored condition.
 */
export function normalizeFilters(filters: unknown): FilterExpr | undefined {
  if (filters === undefined || filters === null) return undefined;
  if (Array.isArray(filters)) {
    if (filters.length === 0) return undefined;
    const conditions = filters.map((f, i) => checkExpr(f, `filters[${i}]`, 1));
    return conditions.length === 1 ? conditions[0] : { op: "AND", conditions };
  }
  if (!isPlainObject(filters)) throw new ValidationError("filters must be an object or a list", "filters");
  if (typeof filters.op === "string") return checkExpr(filters, "filters", 1);
  const entries = Object.entries(filters);
  if (entries.length === 0) return undefined;
  const conditions = entries.map(([key, value]): FilterExpr => {
    checkKey(key, `filters.${key}`);
    // a list value is jsonb containment, as agno's dict filters on pgvector: the key holds every element
    if (Array.isArray(value)) {
      if (value.length === 0 || value.some((v) => v !== null && typeof v === "object"))
        throw new ValidationError(`filters.${key} must be a scalar or a non-empty list of scalars`, "filters");
      return value.length === 1 ? EQ(key, value[0]) : { op: "AND", conditions: value.map((v) => EQ(key, v)) };
    }
    if (value !== null && typeof value === "object")
      throw new ValidationError(`filters.${key} must be a scalar or a list of scalars`, "filters");
    return EQ(key, value);
  });
  return conditions.length === 1 ? conditions[0] : { op: "AND", conditions };
}

/** Whether a document's meta_data satisfies a (normalised) filter: the in-memory semantics every adapter matches. */
export function matchesFilter(meta: Record<string, unknown>, f: FilterExpr | undefined): boolean {
  if (!f) return true;
  switch (f.op) {
    case "AND":
      return f.conditions.every((c) => matchesFilter(meta, c));
    case "OR":
      return f.conditions.some((c) => matchesFilter(meta, c));
    case "NOT":
      return !matchesFilter(meta, f.condition);
    case "IN":
      return f.values.some((v) => scalarEquals(meta[f.key], v));
    case "EQ":
      return scalarEquals(meta[f.key], f.value);
    case "NEQ":
      return !scalarEquals(meta[f.key], f.value);
    case "CONTAINS":
      return typeof meta[f.key] === "string" && (meta[f.key] as string).includes(String(f.value));
    case "STARTSWITH":
      return typeof meta[f.key] === "string" && (meta[f.key] as string).startsWith(String(f.value));
    default: {
      const a = meta[f.key];
      const b = f.value;
      if (typeof a !== "number" || typeof b !== "number") return false;
      return f.op === "GT" ? a > b : f.op === "GTE" ? a >= b : f.op === "LT" ? a < b : a <= b;
    }
  }
}

function scalarEquals(a: unknown, b: unknown): boolean {
  // a list-valued metadata key matches when it holds the value, as jsonb containment does
  if (Array.isArray(a)) return a.some((x) => x === b);
  return a === b;
}
