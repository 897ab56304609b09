import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { CodeMode, type CodeRunner } from "../../src/codemode/code-mode.js";
import { durableCodeRunner } from "../../src/codemode/durable-runner.js";
import type { CodeModeSession } from "../../src/codemode/session-object.js";
import { quickJS } from "../../src/codemode/quickjs.js";
import { runCell, type CellLimits } from "../../src/codemode/sandbox.js";
import { tool, type Tool, type ToolContext } from "../../src/tools/tool.js";
import { scriptModel } from "../support/model-script.js";
import { form, parseSse, sdkFetch } from "./worker-client.js";

const sessions = (env as unknown as { CODEMODE_SESSION: DurableObjectNamespace<CodeModeSession> }).CODEMODE_SESSION;
const runner: CodeRunner = durableCodeRunner(sessions);

const calls: Array<{ name: string; args: unknown }> = [];
const lookup = tool({
  name: "lookup",
  description: "Price of an item",
  parameters: z.object({ id: z.number().int().describe("item id") }),
  execute: async ({ id }) => {
    calls.push({ name: "lookup", args: { id } });
    return { id, price: id * 10 };
  },
});
const wait = tool({
  name: "wait",
  description: "Answers after ms milliseconds",
  parameters: z.object({ ms: z.number() }),
  execute: ({ ms }) => new Promise((resolve) => setTimeout(() => resolve({ waited: ms }), ms)),
});
const never = tool({ name: "never", parameters: z.object({}), execute: () => new Promise(() => {}) });

/** The run_code tool of a CodeMode over the test tools, called as the agent's run loop would. */
function codeTool(limits?: Partial<CellLimits>, tools: Tool[] = [lookup, wait, never]) {
  const runCode = new CodeMode({ tools, runner, limits }).tools[0]!;
  return (sessionId: string, code: string) =>
    runCode.execute!({ code }, context(sessionId)) as Promise<{
      result?: unknown;
      logs?: string;
      error?: string;
      not_persisted?: string[];
    }>;
}

const context = (sessionId: string): ToolContext => ({
  runId: "run",
  sessionId,
  userId: null,
  sessionState: {},
  dependencies: {},
  signal: new AbortController().signal,
});
const fresh = () => `codemode-${crypto.randomUUID()}`;
const run = codeTool();

describe("CodeMode in the Workers runtime", () => {
  it("runs tools as async functions, Promise.all included, and returns the result and console output", async () => {
    const sid = fresh();
    const out = await run(
      sid,
      `const items = await Promise.all([1, 2, 3].map((id) => lookup({ id })));\nconsole.log("got", items.length, { first: items[0] });\nreturn items.reduce((s, i) => s + i.price, 0);`,
    );
    expect(out).toEqual({ result: 60, logs: 'got 3 {"first":{"id":1,"price":10}}\n' });
  });

  it("keeps variables, functions and classes between cells, and through an abort of the object", async () => {
    const sid = fresh();
    const first = await run(
      sid,
      `const base = 40; let seen = [1]; function add(x) { return x + base } class Box { constructor(v) { this.v = v } get twice() { return this.v * 2 } }\nconst m = new Map();`,
    );
    expect(first).toEqual({ not_persisted: ["m"] });
    expect(await run(sid, `seen.push(2); return add(2)`)).toEqual({ result: 42 });
    const stub = sessions.get(sessions.idFromName(sid));
    await runInDurableObject(stub, (_i, state) => state.abort("simulated eviction")).catch(() => undefined);
    expect(await run(sid, `return { seen, boxed: new Box(base).twice, m: typeof m }`)).toEqual({
      result: { seen: [1, 2], boxed: 80, m: "undefined" },
    });
  });

  it("stops while (true) {} by its CPU budget, and the session's next cell still runs", async () => {
    const sid = fresh();
    await run(sid, `const kept = "before"`);
    const started = Date.now();
    const out = await run(sid, `let spins = 0; while (true) { spins++ }`);
    expect(out.error).toMatch(/^CpuLimitError:/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await run(sid, `return kept`)).toEqual({ result: "before" });
    // An infinite loop inside try/catch cannot swallow the stop.
    expect((await run(sid, `try { for (;;) {} } catch (e) { return "caught" }`)).error).toMatch(/^CpuLimitError:/);
  });

  it("turns an allocation bomb into a memory error without harming the host or the session", async () => {
    const sid = fresh();
    // A CPU budget this large would allow minutes of work: only the heap limit can stop these.
    const roomy = codeTool({ cpuBudget: 1e9, timeoutMs: 60_000 });
    const out = await roomy(sid, `const hog = []; for (;;) hog.push(new Array(1e5).fill(1.5));`);
    expect(out.error).toMatch(/^MemoryLimitError:/);
    const strings = await roomy(sid, `let s = "x"; for (;;) s = s + s;`);
    // QuickJS concatenates into ropes, so doubling a string may hit its length cap before the heap limit.
    expect(strings.error).toMatch(/^(MemoryLimitError:|InternalError: string too long)/);
    expect(await run(sid, `return 1 + 1`)).toEqual({ result: 2 });
  });

  it("has no network: fetch to a canary on loopback records zero hits (the host reaching it records one)", async () => {
    const canary = await scriptModel(env.MODEL_SERVER_URL, [{ text: "canary" }, { text: "canary" }], {
      channel: `canary-${crypto.randomUUID()}`,
    });
    const url = `${canary.baseURL}/chat/completions`;
    const body = JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    const out = await run(
      fresh(),
      `const r = await fetch(${JSON.stringify(url)}, { method: "POST", body: ${JSON.stringify(body)} }); return r.status`,
    );
    expect(out.error).toMatch(/fetch/);
    expect(await canary.requests()).toHaveLength(0);
    await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(await canary.requests()).toHaveLength(1);
  });

  it("runs cells in a Worker Loader sandbox of the session's own, whose isolate has no network and no bindings", async () => {
    const canary = await scriptModel(env.MODEL_SERVER_URL, [{ text: "canary" }], {
      channel: `canary-${crypto.randomUUID()}`,
    });
    const sid = fresh();
    expect(await run(sid, `return 6 * 7`)).toEqual({ result: 42 });
    const stub = sessions.get(sessions.idFromName(sid));
    // Outside QuickJS too: the loaded Worker's own fetch() cannot leave the isolate.
    expect(await stub.isolation(`${canary.baseURL}/chat/completions`)).toEqual({
      where: "worker-loader",
      network: "blocked",
      bindings: [],
    });
    expect(await canary.requests()).toHaveLength(0);
  });

  it("without a loader binding, the same sandbox runs in the object's own isolate", async () => {
    const qjs = await quickJS.get();
    const busy = await runCell(qjs, {
      code: `while (true) {}`,
      state: [],
      toolNames: [],
      callTool: async () => ({ ok: true, value: null }),
      limits: { cpuBudget: 200 },
    });
    expect(busy.cell.error?.name).toBe("CpuLimitError");
    const kept = await runCell(qjs, {
      code: `const x = 2; return x * 21`,
      state: busy.state,
      toolNames: [],
      callTool: async () => ({ ok: true, value: null }),
    });
    expect(kept.cell.result).toBe(42);
    expect(kept.state).toEqual([{ name: "x", json: "2" }]);
  });

  it("keeps prototype pollution inside the cell: the host and the next cell are clean", async () => {
    const sid = fresh();
    const out = await run(
      sid,
      `Object.prototype.polluted = "yes"; Array.prototype.map = () => "hijacked"; JSON.parse = () => "hijacked"; return ({}).polluted`,
    );
    expect(out).toEqual({ result: "yes" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(
      await run(sid, `return [({}).polluted === undefined, [1].map((x) => x + 1), (await lookup({ id: 2 })).price]`),
    ).toEqual({ result: [true, [2], 20] });
  });

  it("times out a promise that never settles, and a tool call that never answers", async () => {
    const sid = fresh();
    expect((await run(sid, `await new Promise(() => {}); return "unreachable"`)).error).toMatch(/^TimeoutError:/);
    const started = Date.now();
    expect((await codeTool({ timeoutMs: 500 })(sid, `await never({}); return "unreachable"`)).error).toMatch(
      /^TimeoutError:.*500 ms/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await run(sid, `return "alive"`)).toEqual({ result: "alive" });
  });

  it("truncates 10 MB of console output", async () => {
    const out = await run(
      fresh(),
      `console.log("x".repeat(10 * 1024 * 1024)); for (let i = 0; i < 100; i++) console.log("line " + i); return "done"`,
    );
    expect(out.result).toBe("done");
    expect(out.logs!.length).toBeLessThan(64 * 1024 + 200);
    expect(out.logs).toMatch(/output truncated: \d+ more characters not shown$/);
  });

  it("refuses a return value and a state over their limits with a clear error; the previous state is kept", async () => {
    const sid = fresh();
    const small = codeTool({ maxResultChars: 100, maxStateChars: 200 });
    await small(sid, `const kept = "before"`);
    const big = await small(sid, `return "x".repeat(500)`);
    expect(big.error).toMatch(/^ResultTooLargeError: the cell returned 502 characters of JSON \(limit 100\)/);
    expect(big.result).toBeUndefined();
    const heavy = await small(sid, `const blob = "y".repeat(500); const kept2 = 1`);
    expect(heavy.error).toMatch(/^StateTooLargeError: .*exceed 200 characters/);
    expect(await small(sid, `return [kept, typeof blob, typeof kept2]`)).toEqual({
      result: ["before", "undefined", "undefined"],
    });
  });

  it("returns a tool's validation error into the code, which can catch it; the tool does not run", async () => {
    const before = calls.length;
    const out = await run(
      fresh(),
      `try { await lookup({ id: "seven" }); return "ran" } catch (e) { return e.name + " | " + e.message }`,
    );
    expect(out.result).toMatch(/^ToolError \| lookup: invalid arguments: id: .*number/);
    expect(calls.length).toBe(before);
    const uncaught = await run(fresh(), `await lookup({})`);
    expect(uncaught.error).toMatch(/^ToolError: lookup: invalid arguments: id:/);
  });

  it("runs a cell sent while another of its session runs only after it: cells never interleave", async () => {
    const sid = fresh();
    await run(sid, `var order = []`);
    // B is sent once A is inside the object (two RPCs sent at the same instant may arrive either way round).
    let entered!: () => void;
    const inA = new Promise<void>((resolve) => (entered = resolve));
    const hold = tool({
      name: "hold",
      parameters: z.object({}),
      execute: () => (entered(), new Promise((resolve) => setTimeout(() => resolve(null), 300))),
    });
    const runHeld = codeTool(undefined, [hold]);
    const a = runHeld(sid, `await hold({}); order.push("A"); return order`);
    await inA;
    const b = runHeld(sid, `order.push("B"); return order`);
    expect(await a).toEqual({ result: ["A"] });
    expect(await b).toEqual({ result: ["A", "B"] });
  });

  it("reports a syntax error and a throw with their messages; state set before a throw is kept", async () => {
    const sid = fresh();
    expect((await run(sid, `let = ;`)).error).toMatch(/^SyntaxError:/);
    expect((await run(sid, `const partial = 7; throw new TypeError("boom")`)).error).toBe("TypeError: boom");
    expect(await run(sid, `return partial`)).toEqual({ result: 7 });
  });

  it("serves an Agent: the model writes one cell that makes 5 lookups, in two model round trips", async () => {
    const code = `const rows = await Promise.all([1, 2, 3, 4, 5].map((id) => lookup({ id }))); return rows.map((r) => r.price)`;
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      { toolCalls: [{ name: "run_code", arguments: { code } }] },
      { text: "Total 150." },
    ]);
    const model = createModel("openai:gpt-test", { credentials: { openai: { apiKey: "k", baseURL: script.baseURL } } });
    const agent = new Agent({ name: "coder", model, tools: [new CodeMode({ tools: [lookup], runner })] });
    const out = await agent.run("Sum the prices of items 1-5");
    expect(out).toMatchObject({ status: "COMPLETED", content: "Total 150." });
    const requests = await script.requests();
    expect(requests).toHaveLength(2);
    const toolsSent = requests[0]!.body.tools as Array<{ function: { name: string; description: string } }>;
    expect(toolsSent.map((t) => t.function.name)).toEqual(["run_code"]);
    expect(toolsSent[0]!.function.description).toContain("declare function lookup(args: {");
    const answer = (requests[1]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    )!;
    expect(JSON.parse(answer.content)).toEqual({ result: [10, 20, 30, 40, 50] });
  });

  it("over HTTP, a cell pauses for confirmation and the continued run finishes it without repeating its lookups", async () => {
    const removed: number[] = [];
    const remove = tool({
      name: "remove_item",
      parameters: z.object({ id: z.number() }),
      requiresConfirmation: true,
      execute: ({ id }) => (removed.push(id), { removed: id }),
    });
    const code = `const rows = await Promise.all([11, 12].map((id) => lookup({ id })));\nconst gone = await remove_item({ id: rows[0].id });\nreturn { gone, prices: rows.map((r) => r.price) };`;
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      { toolCalls: [{ id: "rc1", name: "run_code", arguments: { code } }] },
      { text: "Removed 11." },
    ]);
    const model = createModel("openai:gpt-test", { credentials: { openai: { apiKey: "k", baseURL: script.baseURL } } });
    const agent = new Agent({ id: "coder", model, tools: [new CodeMode({ tools: [lookup, remove], runner })] });
    const fetchOs = sdkFetch(new AgentOS({ agents: [agent], auth: { mode: "none" } }), "codemode_hitl");
    const before = calls.length;
    const paused = JSON.parse(
      (await fetchOs("/agents/coder/runs", form({ message: "remove item 11", stream: "false" }))).text,
    );
    expect(paused).toMatchObject({
      status: "PAUSED",
      requirements: [
        {
          id: "rc1",
          kind: "confirmation",
          paused_tool_name: "run_code",
          tool_execution: { tool_name: "remove_item", tool_args: { id: 11 } },
        },
      ],
    });
    expect(calls.slice(before).map((c) => c.args)).toEqual([{ id: 11 }, { id: 12 }]);
    expect(removed).toEqual([]);
    // agno's client answers with the paused tools, marked confirmed.
    const tools = paused.tools.map((t: Record<string, unknown>) => ({ ...t, confirmed: true }));
    const resumed = await fetchOs(
      `/agents/coder/runs/${paused.run_id}/continue`,
      form({ tools: JSON.stringify(tools), session_id: paused.session_id }),
    );
    expect(resumed.status).toBe(200);
    expect(parseSse(resumed.text).map((f) => f.event)).toEqual(
      expect.arrayContaining(["RunContinued", "ToolCallCompleted", "RunCompleted"]),
    );
    expect(removed).toEqual([11]);
    expect(calls.length - before).toBe(2);
    const answer = ((await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    )!;
    expect(JSON.parse(answer.content)).toEqual({ result: { gone: { removed: 11 }, prices: [110, 120] } });
  });
});
