/**
 * The names a cell declares at its top level (`const`/`let`/`var`, functions, classes,
 * destructuring patterns included): the names whose values persist into the next cell.
 *
 * A small scanner, not a parser: it skips strings, template literals, comments and regular
 * expression literals and tracks bracket depth. A name it misses simply does not persist; a name
 * it over-reports is harmless (capturing an undeclared name is skipped at run time).
 */
export function topLevelDeclarations(code: string): string[] {
  const tokens = tokenize(code);
  const names = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.depth !== 0 || t.kind !== "word") continue;
    const prev = tokens[i - 1];
    // `obj.let`, `{ const: 1 }` and the like are not declarations.
    if (prev && (prev.text === "." || prev.text === "?.")) continue;
    if (t.text === "function" || t.text === "class") {
      let j = i + 1;
      if (tokens[j]?.text === "*") j++;
      const name = tokens[j];
      // Only statements declare: `x = function f() {}` names nothing at the top level.
      const statementStart =
        !prev || prev.text === ";" || prev.text === "}" || prev.text === "async" || prev.newlineAfter;
      if (name?.kind === "word" && statementStart) names.add(name.text);
    } else if (t.text === "const" || t.text === "let" || t.text === "var") {
      i = declarators(tokens, i + 1, names);
    }
  }
  return [...names].filter((n) => !RESERVED.has(n));
}

interface Token {
  kind: "word" | "punct" | "literal";
  text: string;
  depth: number;
  newlineAfter: boolean;
}

const RESERVED = new Set([
  "await",
  "yield",
  "let",
  "const",
  "var",
  "function",
  "class",
  "async",
  "of",
  "in",
  "new",
  "this",
]);

/** Reads `a = 1, {b, c: d} = o, [e, ...f] = xs` from tokens[i]; adds the bound names; returns the last index used. */
function declarators(tokens: Token[], i: number, names: Set<string>): number {
  const depth = tokens[i - 1]!.depth;
  for (;;) {
    i = pattern(tokens, i, names);
    // Skip the initializer: everything up to a comma or the statement's end at this depth.
    let j = i + 1;
    if (tokens[j]?.text === "=") {
      j++;
      while (j < tokens.length) {
        const t = tokens[j]!;
        if (t.depth === depth && (t.text === "," || t.text === ";" || t.text === "}")) break;
        if (t.depth === depth && tokens[j - 1]!.newlineAfter && t.kind === "word" && STATEMENT_WORDS.has(t.text)) break;
        j++;
      }
    }
    if (tokens[j]?.text === "," && tokens[j]!.depth === depth) {
      i = j + 1;
      continue;
    }
    return j - 1;
  }
}

const STATEMENT_WORDS = new Set([
  "const",
  "let",
  "var",
  "function",
  "class",
  "return",
  "if",
  "for",
  "while",
  "do",
  "try",
  "throw",
  "switch",
  "async",
]);

/** Reads one binding pattern starting at tokens[i]; returns the index of its last token. */
function pattern(tokens: Token[], i: number, names: Set<string>): number {
  const t = tokens[i];
  if (!t) return i;
  if (t.kind === "word") {
    names.add(t.text);
    return i;
  }
  if (t.text !== "{" && t.text !== "[") return i;
  const object = t.text === "{";
  const close = object ? "}" : "]";
  const inner = t.depth + 1;
  let j = i + 1;
  while (j < tokens.length && !(tokens[j]!.text === close && tokens[j]!.depth === t.depth)) {
    // One element: `...rest`, `key: pattern = default`, `name = default`, `pattern`.
    let k = j;
    if (tokens[k]?.text === "...") k++;
    let end = k;
    while (
      end < tokens.length &&
      !(
        (tokens[end]!.text === "," && tokens[end]!.depth === inner) ||
        (tokens[end]!.text === close && tokens[end]!.depth === t.depth)
      )
    )
      end++;
    if (object) {
      const colon = tokens.slice(k, end).findIndex((x) => x.text === ":" && x.depth === inner);
      if (colon >= 0) pattern(tokens, k + colon + 1, names);
      else if (tokens[k]?.kind === "word") names.add(tokens[k]!.text);
    } else if (k < end) {
      pattern(tokens, k, names);
    }
    j = tokens[end]?.text === "," ? end + 1 : end;
  }
  return j;
}

const PUNCT = ["...", "?.", "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "++", "--"];

function tokenize(code: string): Token[] {
  const out: Token[] = [];
  let depth = 0;
  let i = 0;
  const push = (kind: Token["kind"], text: string, d = depth) =>
    out.push({ kind, text, depth: d, newlineAfter: false });
  while (i < code.length) {
    const ch = code[i]!;
    if (ch === "\n") {
      if (out.length) out[out.length - 1]!.newlineAfter = true;
      i++;
    } else if (/\s/.test(ch)) i++;
    else if (code.startsWith("//", i)) i = lineEnd(code, i);
    else if (code.startsWith("/*", i)) {
      const end = code.indexOf("*/", i + 2);
      i = end < 0 ? code.length : end + 2;
    } else if (ch === '"' || ch === "'") {
      i = quoted(code, i, ch);
      push("literal", "s");
    } else if (ch === "`") {
      i = template(code, i);
      push("literal", "t");
    } else if (/[A-Za-z_$\u0080-\uffff]/.test(ch)) {
      let j = i + 1;
      while (j < code.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(code[j]!)) j++;
      push("word", code.slice(i, j));
      i = j;
    } else if (/[0-9]/.test(ch)) {
      let j = i + 1;
      while (j < code.length && /[0-9A-Za-z_.]/.test(code[j]!)) j++;
      push("literal", code.slice(i, j));
      i = j;
    } else if (ch === "/" && regexAllowed(out.at(-1))) {
      i = regex(code, i);
      push("literal", "r");
    } else if ("([{".includes(ch)) {
      push("punct", ch);
      depth++;
      i++;
    } else if (")]}".includes(ch)) {
      depth = Math.max(0, depth - 1);
      push("punct", ch);
      i++;
    } else {
      const p = PUNCT.find((x) => code.startsWith(x, i)) ?? ch;
      push("punct", p);
      i += p.length;
    }
  }
  return out;
}

function lineEnd(code: string, i: number): number {
  const end = code.indexOf("\n", i);
  return end < 0 ? code.length : end;
}

function quoted(code: string, i: number, q: string): number {
  for (let j = i + 1; j < code.length; j++) {
    if (code[j] === "\\") j++;
    else if (code[j] === q || code[j] === "\n") return j + 1;
  }
  return code.length;
}

/** Skips a template literal, including `${ … }` parts that may hold strings and templates. */
function template(code: string, i: number): number {
  for (let j = i + 1; j < code.length; j++) {
    if (code[j] === "\\") j++;
    else if (code[j] === "`") return j + 1;
    else if (code.startsWith("${", j)) {
      let depth = 1;
      j += 2;
      while (j < code.length && depth > 0) {
        const c = code[j]!;
        if (c === "'" || c === '"') j = quoted(code, j, c);
        else if (c === "`") j = template(code, j);
        else {
          if (c === "{") depth++;
          else if (c === "}") depth--;
          j++;
        }
      }
      j--;
    }
  }
  return code.length;
}

function regexAllowed(prev: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.kind === "literal") return false;
  if (prev.kind === "word")
    return [
      "return",
      "typeof",
      "instanceof",
      "in",
      "of",
      "new",
      "delete",
      "void",
      "throw",
      "case",
      "do",
      "else",
      "yield",
      "await",
    ].includes(prev.text);
  return ![")", "]", "}"].includes(prev.text);
}

function regex(code: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === "\\") j++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "\n") return j;
    else if (c === "/" && !inClass) {
      let k = j + 1;
      while (k < code.length && /[a-z]/.test(code[k]!)) k++;
      return k;
    }
  }
  return code.length;
}
