import { ValidationError } from "../errors.js";
import { advance, alignForward, countCodePoints, retreat } from "./code-points.js";

export interface SearchOptions {
  query: string;
  /** treat `query` as a JavaScript regular expression (default: plain text) */
  regex?: boolean;
  ignoreCase?: boolean;
  /** code points shown on each side of a match (default 80, at most 500) */
  contextChars?: number;
  /** default 20, at most 100 */
  maxMatches?: number;
}

/** One match; `offset` and `length` in code points, so `read_result(offset)` lands on it. */
export interface SearchMatch {
  offset: number;
  length: number;
  match: string;
  before: string;
  after: string;
  /** the match reached the end of the window a regex is run on, so it may go on further */
  truncated?: true;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  /** there are further matches past `maxMatches` */
  more_matches: boolean;
  /** code points searched: less than the result's size when the scan cap stopped it */
  scanned_chars: number;
}

export const MAX_PATTERN_CHARS = 256;
const MAX_MATCH_CHARS = 1000;
/**
 * A regex runs on windows of REGION units (plus OVERLAP, so a match starting near the end is
 * seen whole), never on the whole result: a backtracking engine's cost grows polynomially with
 * the input of one `exec`, so bounding that input bounds the worst case of the patterns that
 * pass `riskyPattern` (Workers give no way to interrupt a running regex, and their clock does
 * not advance during it, so a time budget would not work there). The price: a regex match is
 * at most about OVERLAP characters long. What remains is linear in the input times the window:
 * the worst allowed pattern on the worst text (`.*needle` over MAX_REGEX_SCAN_UNITS on one line)
 * finishes in bounded time, where the same scan without windows is quadratic and never ends.
 * Plain text search needs none of this: `indexOf` is linear.
 */
const REGION = 512;
const OVERLAP = 256;
/** UTF-16 units a regex search scans at most */
export const MAX_REGEX_SCAN_UNITS = 1024 * 1024;
/** the longest regex match a search is sure to report whole */
export const MAX_REGEX_MATCH_CHARS = OVERLAP;

const EXPONENTIAL =
  "a repeated group may not contain a quantifier or an alternation (it can backtrack exponentially): repeat a character class instead, or search for the parts separately";
const POLYNOMIAL =
  "more than one repeat can give back characters to what follows it (like \\w*\\w*x or .*,.*x), which backtracks polynomially: " +
  "bound the repeats ([^,]* instead of .*), or search for the parts separately";

/** One nesting level of a pattern while it is checked. */
interface Level {
  /** where the group starts (its text is the atom when the group is repeated) */
  start: number;
  /** holds a quantifier or an alternation: repeating it could match one text in many ways */
  ambiguous: boolean;
  /** the atom of the last repeat, while only optional atoms have followed it */
  open: string | null;
}

/**
 * Why a pattern is refused, or null. A backtracking engine blows up in two ways, both refused:
 * exponentially, when a repeated group can match the same text in several ways (a quantifier or
 * an alternation inside it: `(a+)+`, `(a|aa)*`), and polynomially, when a repeat is followed by
 * something its atom also matches (`.*,`, `\w*\w*`): on failure it gives back one character at
 * a time, and each character given back to another repeat, or to a second such pair, multiplies
 * the work by the input length again. One repeat giving back to a fixed atom (`.*foo`) is allowed:
 * the scan windows bound its cost per position to the window's size. Anything more is refused
 * (`\w*\w*x`, `.*,.*x`, `.*\d+`). A repeat whose next atom it cannot match (`\d+\.`, `[^,]*,`)
 * has nothing to give back and counts for nothing.
 * Backreferences (NP-hard to match) are refused too. The check is conservative: `(foo|bar)+` is
 * refused; `(?:foo|bar)`, `\w+\s+\w+`, `\d+\.\d+\.\d+` and `.*foo.*` pass.
 */
export function riskyPattern(p: string): string | null {
  const stack: Level[] = [{ start: 0, ambiguous: false, open: null }];
  let givesBack = 0;
  for (let i = 0; i < p.length;) {
    const level = stack[stack.length - 1]!;
    const c = p[i]!;
    if (c === "|") {
      level.ambiguous = true;
      level.open = null;
      i++;
      continue;
    }
    if (c === "(") {
      stack.push({ start: i, ambiguous: false, open: level.open });
      i = afterGroupPrefix(p, i + 1);
      continue;
    }
    let end = i + 1;
    let group: Level | undefined;
    if (c === ")") {
      group = stack.length > 1 ? stack.pop()! : { start: 0, ambiguous: false, open: null };
    } else if (c === "\\") {
      const next = p[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && p[i + 2] === "<")) return "backreferences are not supported";
      end = p[i + 2] === "{" && "pPu".includes(next) ? p.indexOf("}", i) + 1 || p.length : i + 2;
    } else if (c === "[") {
      end = classEnd(p, i);
    }
    const atom = p.slice(group ? group.start : i, end);
    const q = quantifierAt(p, end);
    const parent = stack[stack.length - 1]!;
    if (group && q && q.max > 1 && group.ambiguous) return EXPONENTIAL;
    if (q || group?.ambiguous) parent.ambiguous = true;
    // A group's inside already met the repeat open before it; a repeated group is assumed to overlap.
    // A repeat that takes what is given back explores all its lengths again each time: that counts twice.
    const repeats = q !== null && q.max > 1;
    if (parent.open !== null && (!q || q.min >= 1 || repeats) && (group ? repeats : overlaps(parent.open, atom)))
      givesBack += repeats ? 2 : 1;
    if (givesBack > 1) return POLYNOMIAL;
    if (repeats) parent.open = atom;
    else if (!q || q.min >= 1) parent.open = group ? group.open : null;
    i = q ? q.end : end;
  }
  return null;
}

/** Characters that stand for the kinds of text a result holds (ASCII, accents, CJK, emoji, spaces). */
const PROBES = [
  "\t",
  "\n",
  "\u00a0",
  "é",
  "ß",
  "漢",
  "😀",
  ...Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)),
];

/** Whether some character matches both atoms (tested on PROBES; an atom that does not compile overlaps). */
function overlaps(a: string, b: string): boolean {
  const [ma, mb] = [a, b].map((atom) => {
    try {
      return new RegExp(`^(?:${atom})$`, "u");
    } catch {
      return null;
    }
  });
  return !ma || !mb || PROBES.some((ch) => ma.test(ch) && mb.test(ch));
}

/** Skips `?:`, `?=`, `?!`, `?<=`, `?<!` and `?<name>` after an opening parenthesis. */
function afterGroupPrefix(p: string, j: number): number {
  if (p[j] !== "?") return j;
  if (":=!".includes(p[j + 1] ?? "")) return j + 2;
  if (p[j + 1] !== "<") return j + 1;
  if ("=!".includes(p[j + 2] ?? "")) return j + 3;
  const close = p.indexOf(">", j);
  return close === -1 ? p.length : close + 1;
}

/** The index after the character class opening at `i`. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === "^") j++;
  if (p[j] === "]") j++;
  while (j < p.length && p[j] !== "]") j += p[j] === "\\" ? 2 : 1;
  return j + 1;
}

/** The quantifier at `i` (with a lazy `?` after it), or null. */
function quantifierAt(p: string, i: number): { min: number; max: number; end: number } | null {
  const c = p[i];
  let q: { min: number; max: number; end: number } | null = null;
  if (c === "*") q = { min: 0, max: Infinity, end: i + 1 };
  else if (c === "+") q = { min: 1, max: Infinity, end: i + 1 };
  else if (c === "?") q = { min: 0, max: 1, end: i + 1 };
  else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
    if (m)
      q = {
        min: Number(m[1]),
        max: m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]),
        end: i + m[0].length,
      };
  }
  if (q && p[q.end] === "?") q.end++;
  return q;
}

function compile(query: string, opts: SearchOptions): RegExp {
  const flags = `g${opts.ignoreCase ? "i" : ""}`;
  if (!opts.regex) return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), `${flags}u`);
  if (query.length > MAX_PATTERN_CHARS)
    throw new ValidationError(`the regex is longer than ${MAX_PATTERN_CHARS} characters`, "query");
  const refused = riskyPattern(query);
  if (refused) throw new ValidationError(`regex refused: ${refused}`, "query");
  try {
    // `u` so a match never splits a character; patterns written for the older syntax (`\-`) still run without it.
    return new RegExp(query, `${flags}mu`);
  } catch {
    try {
      return new RegExp(query, `${flags}m`);
    } catch (error) {
      throw new ValidationError(`invalid regex: ${(error as Error).message}`, "query");
    }
  }
}

/** Matches of `opts.query` in `text`, in order, with their code point offsets and context. */
export function searchText(text: string, opts: SearchOptions): SearchOutcome {
  if (typeof opts.query !== "string" || opts.query.length === 0)
    throw new ValidationError("query must be a non-empty string", "query");
  const contextChars = Math.min(Math.max(opts.contextChars ?? 80, 0), 500);
  const maxMatches = Math.min(Math.max(opts.maxMatches ?? 20, 1), 100);
  const found: Array<{ at: number; stop: number; truncated: boolean }> = [];
  let limit = text.length;
  if (!opts.regex && !opts.ignoreCase) {
    for (
      let at = text.indexOf(opts.query);
      at !== -1 && found.length <= maxMatches;
      at = text.indexOf(opts.query, at + opts.query.length)
    ) {
      found.push({ at, stop: at + opts.query.length, truncated: false });
    }
  } else {
    limit = alignForward(text, Math.min(text.length, MAX_REGEX_SCAN_UNITS));
    scanWindows(text, limit, compile(opts.query, opts), maxMatches + 1, found);
  }
  // Offsets in code points, counted once from the previous match onwards.
  let unit = 0;
  let point = 0;
  const matches = found.slice(0, maxMatches).map(({ at, stop, truncated }) => {
    point += countCodePoints(text, unit, at);
    unit = at;
    const length = countCodePoints(text, at, stop);
    return {
      offset: point,
      length,
      match: text.slice(at, advance(text, at, Math.min(length, MAX_MATCH_CHARS))),
      before: text.slice(retreat(text, at, contextChars), at),
      after: text.slice(stop, advance(text, stop, contextChars)),
      ...(truncated ? { truncated: true as const } : {}),
    };
  });
  return { matches, more_matches: found.length > maxMatches, scanned_chars: countCodePoints(text, 0, limit) };
}

function scanWindows(
  text: string,
  limit: number,
  re: RegExp,
  want: number,
  found: Array<{ at: number; stop: number; truncated: boolean }>,
): void {
  let resumeAt = 0;
  for (let start = 0; start < limit && found.length < want; start = alignForward(text, start + REGION)) {
    const regionEnd = start + REGION;
    // One unit each side of the window, so `^`, `$`, `\b` and lookarounds see the true neighbours.
    const from = Math.max(0, start - 1);
    const end = Math.min(limit, regionEnd + OVERLAP);
    const to = Math.min(limit, end + 1);
    const window = text.slice(from, to);
    re.lastIndex = Math.max(start, resumeAt) - from;
    for (let m = re.exec(window); m && found.length < want; m = re.exec(window)) {
      const at = from + m.index;
      if (at >= regionEnd) break;
      const stop = at + m[0].length;
      if (m[0].length === 0) re.lastIndex = alignForward(window, re.lastIndex + 1);
      found.push({ at, stop, truncated: stop >= to && to < limit });
      resumeAt = Math.max(stop, at + 1);
    }
  }
}
