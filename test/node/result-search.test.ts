import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { riskyPattern, searchText } from "../../src/offload/result-search.js";

/** search_result's matcher on its own: windows, guards and code point offsets (no storage needed). */
describe("searchText", () => {
  it("finds a regex match that crosses a scan window's edge once, whole, at its code point offset", () => {
    const text = `${"😀".repeat(500)}${"x".repeat(20)}HELLO-WORLD${"y".repeat(3000)}HELLO-WORLD`;
    const found = searchText(text, { query: "HELLO-[A-Z]+", regex: true, contextChars: 3 });
    expect(found.matches).toEqual([
      { offset: 520, length: 11, match: "HELLO-WORLD", before: "xxx", after: "yyy" },
      { offset: 3531, length: 11, match: "HELLO-WORLD", before: "yyy", after: "" },
    ]);
  });

  it("anchors ^ and $ at lines, not at window edges", () => {
    const text = `${"a".repeat(700)}\nrow 1\n${"b".repeat(1500)}`;
    expect(searchText(text, { query: "^[ab]", regex: true, contextChars: 0 }).matches.map((m) => m.offset)).toEqual([
      0, 707,
    ]);
    expect(searchText(text, { query: "\\d$", regex: true, contextChars: 0 }).matches.map((m) => m.offset)).toEqual([
      705,
    ]);
  });

  it("searches plain text literally, and case-insensitively when asked", () => {
    const text = "a+b (a+b) A+B";
    expect(searchText(text, { query: "a+b", contextChars: 0 }).matches.map((m) => m.offset)).toEqual([0, 5]);
    expect(searchText(text, { query: "a+b", ignoreCase: true, contextChars: 0 }).matches.map((m) => m.offset)).toEqual([
      0, 5, 10,
    ]);
  });

  it("refuses patterns that backtrack badly, and says why", () => {
    for (const p of ["(a+)+$", "(x|xy)*z", "(\\d+,?)+"]) expect(riskyPattern(p)).toMatch(/repeated group/);
    for (const p of ["\\w*\\w*x", ".*,.*x", "a{2,}a*b"]) expect(riskyPattern(p)).toMatch(/more than one repeat/);
    expect(riskyPattern("(\\w)\\1")).toMatch(/backreferences/);
    for (const p of [".*needle", "\\d+\\.\\d+\\.\\d+", "[^,]*,[^,]*,x", "\\w+\\s+\\w+", "(?:foo|bar) \\d{2,4}"])
      expect(riskyPattern(p)).toBeNull();
    expect(() => searchText("aaa", { query: "(a*)*b", regex: true })).toThrow(ValidationError);
    expect(() => searchText("aaa", { query: "[a-", regex: true })).toThrow(/invalid regex/);
  });

  it("caps the matches and says there are more", () => {
    const found = searchText("ab".repeat(500), { query: "b", maxMatches: 100, contextChars: 0 });
    expect(found.matches).toHaveLength(100);
    expect(found.matches.at(-1)!.offset).toBe(199);
    expect(found.more_matches).toBe(true);
  });
});
