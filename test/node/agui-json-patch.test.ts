/** The JSON Patch diff behind AG-UI's STATE_DELTA: the ops it makes, and that they turn the old state into the new. */
import { describe, expect, it } from "vitest";
import { jsonPatch, type JsonPatchOp } from "../../src/interfaces/agui/json-patch.js";

/** RFC 6902 add/remove/replace on a copy of `doc`, pointers unescaped per RFC 6901 (independent of the diff's code). */
function applyPatch(doc: unknown, ops: JsonPatchOp[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === "") {
      root = op.op === "remove" ? undefined : structuredClone(op.value);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split("/")
      .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = tokens.pop()!;
    let parent = root as Record<string, unknown> | unknown[];
    for (const t of tokens) parent = (parent as Record<string, unknown>)[t] as Record<string, unknown> | unknown[];
    if (Array.isArray(parent)) {
      const i = last === "-" ? parent.length : Number(last);
      if (op.op === "add") parent.splice(i, 0, structuredClone(op.value));
      else if (op.op === "remove") parent.splice(i, 1);
      else parent[i] = structuredClone(op.value);
    } else {
      if (op.op !== "add" && !Object.hasOwn(parent, last)) throw new Error(`${op.op} ${op.path}: no such key`);
      if (op.op === "remove") delete parent[last];
      else parent[last] = structuredClone(op.value);
    }
  }
  return root;
}

const roundTrip = (from: unknown, to: unknown) => {
  const ops = jsonPatch(from, to);
  expect(applyPatch(from, ops)).toEqual(to);
  return ops;
};

describe("jsonPatch", () => {
  it("makes no ops for equal states, whatever their key order", () => {
    expect(jsonPatch({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toEqual([]);
  });

  it("adds, removes and replaces keys, nested ones at their own path", () => {
    const from = { count: 1, theme: "dark", user: { name: "ann", tags: { a: true } } };
    const to = { count: 3, user: { name: "ann", tags: {}, role: "admin" }, added: { x: 1 } };
    const ops = roundTrip(from, to);
    expect(ops).toEqual(
      expect.arrayContaining([
        { op: "remove", path: "/theme" },
        { op: "replace", path: "/count", value: 3 },
        { op: "remove", path: "/user/tags/a" },
        { op: "add", path: "/user/role", value: "admin" },
        { op: "add", path: "/added", value: { x: 1 } },
      ]),
    );
    expect(ops).toHaveLength(5);
  });

  it("diffs arrays per index: changed items in place, growth and shrinkage at the end", () => {
    expect(roundTrip({ l: [1, 2, 3] }, { l: [1, 5, 3, 4, 6] })).toEqual([
      { op: "replace", path: "/l/1", value: 5 },
      { op: "add", path: "/l/3", value: 4 },
      { op: "add", path: "/l/4", value: 6 },
    ]);
    // Removed from the end first, so each index still names the item meant.
    expect(roundTrip({ l: [1, 2, 3, 4] }, { l: [1] })).toEqual([
      { op: "remove", path: "/l/3" },
      { op: "remove", path: "/l/2" },
      { op: "remove", path: "/l/1" },
    ]);
    expect(roundTrip({ l: [{ done: false }] }, { l: [{ done: true }] })).toEqual([
      { op: "replace", path: "/l/0/done", value: true },
    ]);
  });

  it("replaces a value whose kind changed (object, array, scalar, null)", () => {
    expect(roundTrip({ v: { a: 1 } }, { v: [1] })).toEqual([{ op: "replace", path: "/v", value: [1] }]);
    expect(roundTrip({ v: [1] }, { v: null })).toEqual([{ op: "replace", path: "/v", value: null }]);
    expect(roundTrip({ v: "1" }, { v: 1 })).toEqual([{ op: "replace", path: "/v", value: 1 }]);
    expect(roundTrip([1], { a: 1 })).toEqual([{ op: "replace", path: "", value: { a: 1 } }]);
  });

  it("escapes ~ and / in keys as JSON Pointer does (~0, ~1)", () => {
    const ops = roundTrip({ "a/b": 1, "m~n": { "~/": 1 } }, { "a/b": 2, "m~n": { "~/": 2, "/~": 3 } });
    expect(ops).toEqual([
      { op: "replace", path: "/a~1b", value: 2 },
      { op: "replace", path: "/m~0n/~0~1", value: 2 },
      { op: "add", path: "/m~0n/~1~0", value: 3 },
    ]);
  });

  it("treats keys an object inherits as absent, and undefined as JSON does", () => {
    expect(roundTrip({ toString: 1 }, {})).toEqual([{ op: "remove", path: "/toString" }]);
    expect(roundTrip({}, { constructor: 2 })).toEqual([{ op: "add", path: "/constructor", value: 2 }]);
    expect(jsonPatch({ a: 1 }, { a: 1, b: undefined })).toEqual([]);
  });

  it("copies the values it puts in ops", () => {
    const to = { list: [{ n: 1 }] };
    const ops = jsonPatch({}, to);
    to.list[0]!.n = 2;
    expect(ops).toEqual([{ op: "add", path: "/list", value: [{ n: 1 }] }]);
  });
});
