/**
 * The statement without its trailing semicolons, or null when the text holds more than one
 * statement. String literals, quoted identifiers, dollar quotes and comments are skipped, so a
 * semicolon inside them does not count. A guard besides the driver's extended protocol, which
 * refuses several statements on its own.
 */
export function singleStatement(sql: string): string | null {
  let i = 0;
  let lastSemicolon = -1;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === "/" && sql[i + 1] === "*") {
          depth++;
          i += 2;
        } else if (sql[i] === "*" && sql[i + 1] === "/") {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'" || c === '"') {
      const escapes = c === "'" && /[eE]/.test(sql[i - 1] ?? "") && !/\w/.test(sql[i - 2] ?? "");
      i++;
      while (i < n) {
        if (escapes && sql[i] === "\\") i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === "$") {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag && !/[\w$]/.test(sql[i - 1] ?? "")) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
      } else i++;
    } else if (c === ";") {
      if (lastSemicolon < 0) lastSemicolon = i;
      i++;
    } else {
      if (lastSemicolon >= 0 && !/\s/.test(c)) return null;
      i++;
    }
  }
  const text = (lastSemicolon >= 0 ? sql.slice(0, lastSemicolon) : sql).trim();
  return text || null;
}
