import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { topLevelDeclarations } from "../../src/codemode/declarations.js";
import { memoryCodeRunner } from "../../src/codemode/memory-runner.js";
import { codeToolDescription, schemaToType, toolSignature } from "../../src/codemode/signatures.js";
import { tool } from "../../src/tools/tool.js";

describe("CodeMode signatures", () => {
  it("writes a tool's zod schema as a TypeScript declaration with its docs", () => {
    const search = tool({
      name: "search_orders",
      description: "Find orders */ by customer",
      parameters: z.object({
        customer: z.string().describe("customer id"),
        status: z.enum(["open", "closed"]).optional(),
        limit: z.number().int().default(10),
        tags: z.array(z.string()),
        range: z.object({ from: z.string(), to: z.string().nullable() }).optional(),
        "odd-key": z.union([z.literal(1), z.boolean()]),
      }),
      execute: () => [],
    });
    expect(toolSignature(search)).toBe(
      [
        "/** Find orders *\\/ by customer */",
        "declare function search_orders(args: {",
        "  /** customer id */",
        "  customer: string;",
        '  status?: "open" | "closed";',
        "  limit?: number;",
        "  tags: string[];",
        "  range?: {",
        "    from: string;",
        "    to: string | null;",
        "  };",
        '  "odd-key": 1 | boolean;',
        "}): Promise<unknown>;",
      ].join("\n"),
    );
  });

  it("covers records, tuples, arrays of unions and unknowns", () => {
    expect(schemaToType(z.toJSONSchema(z.record(z.string(), z.number())))).toBe("{\n  [key: string]: number;\n}");
    expect(schemaToType(z.toJSONSchema(z.tuple([z.string(), z.number()])))).toBe("[string, number]");
    expect(schemaToType(z.toJSONSchema(z.tuple([z.string(), z.number()]), { target: "draft-7" }))).toBe(
      "[string, number]",
    );
    expect(schemaToType(z.toJSONSchema(z.tuple([z.string()], z.boolean())))).toBe("[string, ...boolean[]]");
    expect(schemaToType(z.toJSONSchema(z.array(z.union([z.string(), z.number()]))))).toBe("Array<string | number>");
    expect(schemaToType({})).toBe("unknown");
    expect(schemaToType({ type: "object" })).toBe("Record<string, unknown>");
  });

  it("describes how to call tools, what persists and the limits", () => {
    const t = tool({ name: "lookup", parameters: z.object({ id: z.number() }), execute: () => 1 });
    const text = codeToolDescription([t], { timeoutMs: 30_000, maxOutputChars: 65_536 });
    expect(text).toContain("await get_x({ id: 1 })");
    expect(text).toMatch(/persist into the next cell/);
    expect(text).toMatch(/Map, Set or class instance is not kept/);
    expect(text).toContain("65536 characters");
    expect(text).toContain("about 30 s");
    expect(text).toContain("declare function lookup(args: {\n  id: number;\n}): Promise<unknown>;");
    expect(text).not.toMatch(/pauses/);
  });

  it("tells the model which tools wait for a person, and that a paused cell re-runs with its calls replayed", () => {
    const lookup = tool({ name: "lookup", parameters: z.object({ id: z.number() }), execute: () => 1 });
    const remove = tool({
      name: "remove",
      description: "Deletes a row",
      parameters: z.object({ id: z.number() }),
      requiresConfirmation: true,
      execute: () => 1,
    });
    const text = codeToolDescription([lookup, remove], { timeoutMs: 30_000, maxOutputChars: 100 });
    expect(text).toContain(
      "/** Deletes a row (A person must confirm each call: the cell pauses until they do; a rejection throws.) */\ndeclare function remove(",
    );
    expect(text).toContain("declare function lookup(args");
    expect(text).not.toMatch(/confirm each call[^\n]*\ndeclare function lookup/);
    expect(text).toMatch(/runs again from its start: tool calls it already made return their recorded results/);
  });
});

describe("CodeMode top-level declarations", () => {
  it("finds const/let/var, functions, classes and destructured names at the top level only", () => {
    const code = `
      const a = 1, b = [1, 2].map((x) => { const inner = x; return inner }), c = { d: 1 };
      let { e, f: g, h = 3, ...rest } = obj;
      var [i, , j = 2, ...more] = list
      async function k() { let hidden = 1 }
      function* gen() {}
      class L extends Base { m() { const n = 1 } }
      for (let loop = 0; loop < 2; loop++) {}
      if (x) { var nested = 1 }
      obj.let = 5; const o = function named() {};
    `;
    expect(topLevelDeclarations(code).sort()).toEqual(
      ["L", "a", "b", "c", "e", "g", "gen", "h", "i", "j", "k", "more", "o", "rest"].sort(),
    );
  });

  it("is not fooled by strings, templates, comments and regular expressions", () => {
    const code = [
      "const s = 'let fake = 1; {';",
      "const t = `${ { a: `const nope = ${'}'}` } } let not = 1`;",
      "// const commented = 1",
      "/* let blocked = 1 */",
      "const r = /[}{]let x = 1\\//g;",
      "let after = 2",
    ].join("\n");
    expect(topLevelDeclarations(code)).toEqual(["s", "t", "r", "after"]);
  });
});

describe("CodeMode memory runner", () => {
  it("turns a failed interpreter into a SandboxError and loads a fresh one for the next cell", async () => {
    let loads = 0;
    const runner = memoryCodeRunner(() =>
      ++loads === 1 ? Promise.reject(new Error("wasm trap")) : newQuickJSWASMModuleFromVariant(releaseSync),
    );
    const host = { call: async () => ({ ok: true as const, value: null }) };
    const cell = (code: string) => runner.run({ sessionId: "s", code, toolNames: [], host });
    expect(await cell(`const lost = 1`)).toMatchObject({
      error: { name: "SandboxError", message: "the sandbox failed: wasm trap; the session's state is kept" },
    });
    expect((await cell(`const kept = 41`)).error).toBeUndefined();
    expect((await cell(`return [kept + 1, typeof lost]`)).result).toEqual([42, "undefined"]);
    expect(loads).toBe(2);
  });
});
