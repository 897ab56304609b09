/**
 * The CodeMode figures: the same task (20 lookups summed into one answer) done with classic tool
 * calling and with CodeMode against the scripted model server: model round trips and prompt size
 * (characters of the request bodies' messages and tools; tokens estimated as characters / 4,
 * since the scripted server's usage numbers are scripted). Then the overhead of a cell (median):
 * an empty cell and a cell with one tool call, in this process's QuickJS (Node, not workerd).
 */
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { CodeMode } from "../../src/codemode/code-mode.js";
import { memoryCodeRunner } from "../../src/codemode/memory-runner.js";
import { createModel } from "../../src/models/providers.js";
import { tool, type Tool } from "../../src/tools/tool.js";
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
  const model = createModel("openai:gpt-test", { credentials: { openai: { apiKey: "bench", baseURL: script.baseURL } } });
  const out = await new Agent({ name: "bench", model, tools }).run(`Sum the prices of items 1 to ${LOOKUPS}`);
  if (out.status !== "COMPLETED") throw new Error(`run ended ${out.status}: ${JSON.stringify(out.content)}`);
  const requests = await script.requests();
  const promptChars = requests.reduce((sum, r) => sum + JSON.stringify({ messages: r.body.messages, tools: r.body.tools }).length, 0);
  return { round_trips: requests.length, prompt_chars: promptChars, prompt_tokens_estimate: Math.round(promptChars / 4) };
}

export async function benchCodeMode(): Promise<void> {
  const server = await startModelServer();
  const runner = memoryCodeRunner(() => newQuickJSWASMModuleFromVariant(releaseSync));
  try {
    log(`codemode: ${LOOKUPS} lookups, classic tool calling vs one code cell`);
    const ids = Array.from({ length: LOOKUPS }, (_, i) => i + 1);
    const classic = await measure(server.url, [...ids.map((id): Turn => ({ toolCalls: [{ name: "lookup_price", arguments: { item_id: id } }] })), { text: "done" }], [lookup]);
    emit({ bench: "codemode_task", task: `${LOOKUPS} lookups`, mode: "classic", ...classic });
    const code = `const rows = await Promise.all(Array.from({ length: ${LOOKUPS} }, (_, i) => lookup_price({ item_id: i + 1 })));\nreturn rows.reduce((s, r) => s + r.cents, 0);`;
    const codeMode = await measure(server.url, [{ toolCalls: [{ name: "run_code", arguments: { code } }] }, { text: "done" }], [new CodeMode({ tools: [lookup], runner })]);
    emit({ bench: "codemode_task", task: `${LOOKUPS} lookups`, mode: "codemode", ...codeMode });

    const runCode = new CodeMode({ tools: [lookup], runner }).tools[0]!;
    const ctx = { runId: "bench", sessionId: "bench-cells", userId: null, sessionState: {}, dependencies: {}, signal: new AbortController().signal };
    for (const [cell, source] of [["empty", ";"], ["one_tool_call", "return await lookup_price({ item_id: 1 })"]] as const) {
      const times: number[] = [];
      for (let i = 0; i < CELLS + 20; i++) {
        const started = performance.now();
        await runCode.execute!({ code: source }, ctx);
        if (i >= 20) times.push(performance.now() - started);
      }
      emit({ bench: "codemode_cell_overhead", cell, runtime: `node ${process.version}, in-process QuickJS`, cells: CELLS, median_ms: round(median(times), 3) });
    }
  } finally {
    await server.stop();
  }
}
