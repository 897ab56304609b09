/**
 * The CodeMode figures: the same task (20 lookups summed into one answer) done with classic tool
 * calling and with CodeMode against the scripted model server: model round trips and prompt size
 * (characters of the request bodies' messages and tools; tokens estimated as characters / 4,
 * since the scripted server's usage numbers are scripted). Then the overhead of a cell (median):
 * an empty cell and a cell with one tool call, in this process's QuickJS (Node, not workerd), and
 * the same cells through the CodeModeSession Durable Object in local workerd, timed from this
 * process over HTTP side by side with a request that does not touch the object (the baseline).
 */
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { CodeMode } from "../../src/codemode/code-mode.js";
import { memoryCodeRunner } from "../../src/codemode/memory-runner.js";
import { createModel } from "../../src/models/providers.js";
import { tool, type Tool } from "../../src/tools/tool.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCodeModeHarness } from "../../test/support/codemode-harness.js";
import { startModelServer } from "../../test/support/model-server.js";
import { scriptModel, type Turn } from "../../test/support/model-script.js";
import { emit, log, median, round } from "./util.js";

const LOOKUPS = 20;
const CELLS = 200;

const lookup = tool({
  name: "lookup_price",
  description: "The price of one item, in cents",
  parameters: z.object({ item_id: z.number().int().describe("the item's id") }),
  execute: ({ item_id }) => ({ item_id, cents: item_id * 100 }),
});

async function measure(serverUrl: string, turns: Turn[], tools: Array<Tool | CodeMode>) {
  const script = await scriptModel(serverUrl, turns);
  const model = createModel("openai:gpt-test", {
    credentials: { openai: { apiKey: "bench", baseURL: script.baseURL } },
  });
  const out = await new Agent({ name: "bench", model, tools }).run(`Sum the prices of items 1 to ${LOOKUPS}`);
  if (out.status !== "COMPLETED") throw new Error(`run ended ${out.status}: ${JSON.stringify(out.content)}`);
  const requests = await script.requests();
  const promptChars = requests.reduce(
    (sum, r) => sum + JSON.stringify({ messages: r.body.messages, tools: r.body.tools }).length,
    0,
  );
  return {
    round_trips: requests.length,
    prompt_chars: promptChars,
    prompt_tokens_estimate: Math.round(promptChars / 4),
  };
}

export async function benchCodeMode(): Promise<void> {
  const server = await startModelServer();
  const runner = memoryCodeRunner(() => newQuickJSWASMModuleFromVariant(releaseSync));
  try {
    log(`codemode: ${LOOKUPS} lookups, classic tool calling vs one code cell`);
    const ids = Array.from({ length: LOOKUPS }, (_, i) => i + 1);
    const classic = await measure(
      server.url,
      [
        ...ids.map((id): Turn => ({ toolCalls: [{ name: "lookup_price", arguments: { item_id: id } }] })),
        { text: "done" },
      ],
      [lookup],
    );
    emit({ bench: "codemode_task", task: `${LOOKUPS} lookups`, mode: "classic", ...classic });
    const code = `const rows = await Promise.all(Array.from({ length: ${LOOKUPS} }, (_, i) => lookup_price({ item_id: i + 1 })));\nreturn rows.reduce((s, r) => s + r.cents, 0);`;
    const codeMode = await measure(
      server.url,
      [{ toolCalls: [{ name: "run_code", arguments: { code } }] }, { text: "done" }],
      [new CodeMode({ tools: [lookup], runner })],
    );
    emit({ bench: "codemode_task", task: `${LOOKUPS} lookups`, mode: "codemode", ...codeMode });

    const runCode = new CodeMode({ tools: [lookup], runner }).tools[0]!;
    const ctx = {
      runId: "bench",
      sessionId: "bench-cells",
      userId: null,
      sessionState: {},
      dependencies: {},
      signal: new AbortController().signal,
    };
    for (const [cell, source] of [
      ["empty", ";"],
      ["one_tool_call", "return await lookup_price({ item_id: 1 })"],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < CELLS + 20; i++) {
        const started = performance.now();
        await runCode.execute!({ code: source }, ctx);
        if (i >= 20) times.push(performance.now() - started);
      }
      emit({
        bench: "codemode_cell_overhead",
        cell,
        runtime: `node ${process.version}, in-process QuickJS`,
        cells: CELLS,
        median_ms: round(median(times), 3),
      });
    }
  } finally {
    await server.stop();
  }
  await benchThroughObject();
}

/**
 * Cells through the Worker and the CodeModeSession object (wrangler's local workerd, inspector
 * off), interleaved with a baseline request to the same Worker that does not touch the object:
 * the difference of the medians is what a cell adds to a request. Once with the Worker Loader
 * (the default), once with cells in the object's own isolate.
 */
async function benchThroughObject(): Promise<void> {
  for (const sandbox of ["loader", "object"] as const) await benchSandbox(sandbox);
}

const WHERE = {
  loader: "local workerd: Worker, CodeModeSession object, loaded sandbox Worker; over HTTP",
  object: "local workerd: Worker, CodeModeSession object (no loader bound); over HTTP",
};

async function benchSandbox(sandbox: "loader" | "object"): Promise<void> {
  const persistTo = mkdtempSync(join(tmpdir(), "agno-bench-codemode-"));
  const harness = await startCodeModeHarness({ persistTo, build: "bench", sandbox });
  try {
    const cases = [
      ["baseline", () => fetch(`${harness.url}/noop`).then((r) => r.text())],
      ["empty", () => harness.cell("bench", ";")],
      ["one_tool_call", () => harness.cell("bench", "return await lookup_price({ item_id: 1 })")],
    ] as const;
    const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (let i = 0; i < CELLS + 20; i++) {
      for (const [name, send] of cases) {
        const started = performance.now();
        const out = await send();
        if (typeof out === "object" && out.error) throw new Error(`bench cell failed: ${out.error}`);
        if (i >= 20) times.get(name)!.push(performance.now() - started);
      }
    }
    const baseline = median(times.get("baseline")!);
    for (const [name] of cases.slice(1)) {
      const cell = median(times.get(name)!);
      emit({
        bench: "codemode_cell_overhead",
        cell: name,
        runtime: WHERE[sandbox],
        cells: CELLS,
        median_ms: round(cell, 3),
        baseline_request_median_ms: round(baseline, 3),
        overhead_ms: round(cell - baseline, 3),
      });
    }
  } finally {
    await harness.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
}
