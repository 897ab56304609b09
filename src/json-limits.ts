import { ValidationError } from "./errors.js";

/**
 * Bounds on free-form JSON (session state, metadata, dependencies, payloads, tool arguments).
 * JSON.parse takes any depth, but what comes after does not: JSON.stringify and structured clone
 * recurse (a stack overflow mid-run), and Postgres parses jsonb recursively (a deep value spins
 * the embedded server). So every free-form value is checked once where it enters, and the check
 * itself walks with an explicit stack, never recursion.
 */
export const JSON_LIMITS = {
  /** nesting levels of objects and arrays (agno-sized: no real state needs more) */
  maxDepth: 64,
  /** keys and elements in one field, counted at every level */
  maxNodes: 10_000,
};

/** What is wrong with a value, and where (`a.b.3`, relative to the value checked). */
export interface JsonProblem {
  path: string;
  message: string;
}

export interface JsonCheck {
  maxDepth?: number;
  maxNodes?: number;
  /** also refuse strings Postgres cannot store (NUL, lone UTF-16 surrogates), in keys and values */
  text?: boolean;
}

/** NUL, a high surrogate without its low half, or a low surrogate without its high half. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Why a string cannot be stored as text, or null when it can. */
export function textProblem(s: string): string | null {
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  return m[0] === "\u0000"
    ? "must not contain NUL characters (\\u0000)"
    : "must be valid Unicode (it holds a lone UTF-16 surrogate)";
}

/** The string with NUL and lone surrogates replaced by U+FFFD: for text from a model or a tool, which cannot be refused. */
export function sanitizeText(s: string): string {
  return UNSTORABLE.test(s) ? s.replace(UNSTORABLE_ALL, "\ufffd") : s;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | null;
  parent: Frame | null;
}

const pathOf = (frame: Frame, key?: string | number): string => {
  const parts: Array<string | number> = key === undefined ? [] : [key];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) parts.unshift(f.key);
  const path = parts.join(".");
  // Named in an error message: a hostile path (long keys, 64 levels) is cut.
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
};

/**
 * The first problem in a JSON-like value (objects and arrays are walked; anything else, a File
 * or a Uint8Array, is a leaf), or null. Depth counts containers: `{}` is 1, `{a: {}}` is 2.
 */
export function jsonProblem(value: unknown, opts: JsonCheck = {}): JsonProblem | null {
  const maxDepth = opts.maxDepth ?? JSON_LIMITS.maxDepth;
  const maxNodes = opts.maxNodes ?? JSON_LIMITS.maxNodes;
  const stack: Frame[] = [{ value, depth: 0, key: null, parent: null }];
  let nodes = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === "string") {
      const bad = opts.text ? textProblem(v) : null;
      if (bad) return { path: pathOf(frame), message: bad };
      continue;
    }
    const array = Array.isArray(v);
    if (!array && !isPlainObject(v)) continue;
    const depth = frame.depth + 1;
    if (depth > maxDepth) return { path: pathOf(frame), message: `is nested deeper than ${maxDepth} levels` };
    const entries: Array<[string | number, unknown]> = array
      ? (v as unknown[]).map((x, i) => [i, x])
      : Object.entries(v as Record<string, unknown>);
    nodes += entries.length;
    if (nodes > maxNodes)
      return { path: pathOf(frame), message: `holds more than ${maxNodes} keys and elements in all` };
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (opts.text && typeof key === "string") {
        const bad = textProblem(key);
        if (bad) return { path: pathOf(frame, key), message: `key ${bad}` };
      }
      stack.push({ value: child, depth, key, parent: frame });
    }
  }
  return null;
}

/** `jsonProblem` as a ValidationError naming `field` (and the path inside it). */
export function checkJson(value: unknown, field: string, opts: JsonCheck = {}): void {
  const problem = jsonProblem(value, opts);
  if (!problem) return;
  const where = problem.path ? `${field}.${problem.path}` : field;
  throw new ValidationError(`${where}: ${problem.message}`, where);
}

/**
 * JSON text Postgres will store: JSON.stringify escapes NUL as `\u0000` and a lone surrogate as
 * `\udXXX` (a valid pair it writes as is), and jsonb refuses both, so each such escape, in keys
 * and values alike, becomes U+FFFD. The last line of defence behind the checks at the edge: a
 * run's final write must never fail on what a model or a tool wrote.
 */
export function pgJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined || !text.includes("\\u")) return text;
  // An escape is one only after an odd run of backslashes (`\\u0000` is a backslash, then text).
  return text.replace(/(\\+)u(0000|d[89a-f][0-9a-f]{2})/g, (all, slashes: string) =>
    slashes.length % 2 === 1 ? `${slashes}ufffd` : all,
  );
}

/** `value` as Postgres will store it (see pgJson), for writers that serialise it themselves. */
export function pgSafe<T>(value: T): T {
  const text = pgJson(value);
  return text === undefined ? value : (JSON.parse(text) as T);
}
