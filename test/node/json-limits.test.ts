import { describe, expect, it } from "vitest";
import { jsonProblem, pgJson, sanitizeText, textProblem } from "../../src/json-limits.js";

describe("bounded JSON", () => {
  it("finds depth, size and unstorable text without recursing, naming the path", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep }; // far beyond any stack: the walk must be iterative
    expect(jsonProblem(deep)).toEqual({
      path: "a".repeat(64).split("").join("."),
      message: "is nested deeper than 64 levels",
    });
    expect(jsonProblem({ a: [[[1]]] }, { maxDepth: 3 })).toMatchObject({ path: "a.0.0" });
    expect(jsonProblem({ a: [[1]] }, { maxDepth: 3 })).toBeNull();
    expect(jsonProblem({ list: Array.from({ length: 10_000 }) })).toMatchObject({
      message: "holds more than 10000 keys and elements in all",
    });
    expect(jsonProblem({ list: Array.from({ length: 9_999 }) })).toBeNull();
    expect(jsonProblem({ x: ["ok", { "k\u0000": 1 }] }, { text: true })).toMatchObject({
      path: "x.1.k\u0000",
      message: expect.stringMatching(/^key must not contain NUL/),
    });
    expect(jsonProblem({ x: "a\ud800" }, { text: true })).toMatchObject({
      path: "x",
      message: expect.stringMatching(/lone UTF-16 surrogate/),
    });
    expect(jsonProblem({ x: "a\u0000" })).toBeNull(); // text is checked only when asked
    expect(jsonProblem({ file: new Uint8Array(20_000) })).toBeNull(); // binary values are leaves
  });

  it("tells storable text from NUL and lone surrogates, and sanitises them", () => {
    expect(textProblem("emoji \ud83d\ude00, tab\tnewline\n")).toBeNull();
    for (const bad of ["\u0000", "x\ud800", "\udc00x", "\ude00\ud83d"]) expect(textProblem(bad)).not.toBeNull();
    expect(sanitizeText("a\u0000b\ud800c\ud83d\ude00\udc00")).toBe("a\ufffdb\ufffdc\ud83d\ude00\ufffd");
  });

  it("writes JSON Postgres accepts: NUL and lone surrogate escapes become U+FFFD, escaped backslashes stay text", () => {
    const value = {
      "k\u0000": ["a\u0000", "\ud800", "pair \ud83d\ude00", "literal \\u0000 and \\\\u0000", "\\\u0000"],
    };
    const text = pgJson(value);
    expect(text).not.toMatch(/(^|[^\\])(\\\\)*\\u(0000|d[89a-f])/);
    expect(JSON.parse(text)).toEqual({
      "k\ufffd": ["a\ufffd", "\ufffd", "pair \ud83d\ude00", "literal \\u0000 and \\\\u0000", "\\\ufffd"],
    });
    expect(pgJson({ plain: "text" })).toBe(JSON.stringify({ plain: "text" }));
  });
});
