/**
 * Tool-result offload (SPEC O1-O3), side by side in one run: an agent whose tool returns 1 MiB
 * of JSON, once as agents run without offload (the result inline) and once with
 * `offloadToolResults: true`. Per Postgres target and mode:
 *
 * - the run row: `octet_length(run_data::text)` (the JSON as stored) and `pg_column_size`
 *   (the bytes on disk after TOAST compression);
 * - the model's next turn: characters of the tool message and of the whole request body, as
 *   the scripted model server received them;
 * - with offload, the bytes written to object storage (a local directory here; R2 on Workers).
 *
 * Sizes, not times: they do not depend on this machine.
 */
import { z } from "zod";
import { scriptModel } from "../../test/support/model-script.js";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { LocalStorage } from "../../src/offload/local-storage.js";
import { tool } from "../../src/tools/tool.js";
import { eachStorageBenchTarget, type StorageBenchTarget } from "./storage-setup.js";
import { emit, log, round } from "./util.js";

const RESULT_CHARS = 1024 * 1024;

/** 1 MiB of JSON records with pseudo-random values (xorshift), so compression meets realistic text. */
function bigResult(): string {
  let x = 2463534242;
  const rows: string[] = [];
  let size = 2;
  for (let i = 0; size < RESULT_CHARS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const row = JSON.stringify({
      id: i,
      sku: `SKU-${(x % 1_000_000).toString(36)}`,
      price: (x % 100_000) / 100,
      stock: x % 997,
      tag: x.toString(16),
    });
    rows.push(row);
    size += row.length + 1;
  }
  return `[${rows.join(",")}]`.slice(0, RESULT_CHARS);
}

interface Measured {
  run_row_json_bytes: number;
  run_row_stored_bytes: number;
  next_turn_tool_message_chars: number;
  next_turn_request_chars: number;
  object_storage_bytes: number;
}

async function measure(
  mode: "inline" | "offload",
  { db, pool, schema, modelServerUrl, storageDir }: StorageBenchTarget,
  result: string,
): Promise<Measured> {
  const dump = tool({
    name: "export_inventory",
    description: "Exports the inventory",
    parameters: z.object({}),
    execute: () => result,
  });
  const script = await scriptModel(modelServerUrl, [
    { toolCalls: [{ id: "call_export", name: "export_inventory", arguments: {} }] },
    { text: "Exported." },
  ]);
  const model = createModel("openai:gpt-test", {
    credentials: { openai: { apiKey: "bench", baseURL: script.baseURL } },
  });
  const storage = new LocalStorage({ directory: storageDir });
  const agent = new Agent({
    model,
    tools: [dump],
    db,
    ...(mode === "offload" ? { offloadToolResults: true, resultStorage: storage } : {}),
  });
  const out = await agent.run("Export the inventory", { userId: "bench-user" });
  if (out.status !== "COMPLETED") throw new Error(`${mode}: the run ended ${out.status}: ${String(out.content)}`);
  const { rows } = await pool.query(
    `SELECT octet_length(run_data::text) AS json, pg_column_size(run_data) AS stored FROM "${schema}".agno_runs WHERE run_id = $1`,
    [out.run_id],
  );
  const next = (await script.requests())[1]!;
  const toolMessage = (next.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "tool")!;
  // What the store holds, asked of the store itself (the rows only say where to look).
  const { rows: indexed } = await pool.query(`SELECT path FROM "${schema}".agno_tool_results WHERE run_id = $1`, [
    out.run_id,
  ]);
  const objects = await Promise.all(indexed.map((r: { path: string }) => storage.head(r.path)));
  return {
    run_row_json_bytes: Number(rows[0].json),
    run_row_stored_bytes: Number(rows[0].stored),
    next_turn_tool_message_chars: toolMessage.content.length,
    next_turn_request_chars: JSON.stringify(next.body).length,
    object_storage_bytes: objects.reduce((sum, o) => sum + (o?.size ?? 0), 0),
  };
}

/** The offload figures, against each Postgres target (the WebSocket proxy is already configured). */
export async function benchOffload(opts: { dbTargets: Array<{ name: string; url: string }> }): Promise<void> {
  const result = bigResult();
  await eachStorageBenchTarget("offload", opts.dbTargets, async (setup) => {
    const { target } = setup;
    const figures = new Map<string, Measured>();
    for (const mode of ["inline", "offload"] as const) {
      const m = await measure(mode, setup, result);
      figures.set(mode, m);
      log(
        `${target.name}: ${mode}: run row ${m.run_row_json_bytes} bytes, next turn ${m.next_turn_request_chars} characters`,
      );
      emit({ bench: "tool_result_offload", target: target.name, mode, tool_result_chars: result.length, ...m });
    }
    const inline = figures.get("inline")!;
    const offload = figures.get("offload")!;
    emit({
      bench: "tool_result_offload_ratio",
      target: target.name,
      tool_result_chars: result.length,
      run_row_json_bytes_inline_over_offload: round(inline.run_row_json_bytes / offload.run_row_json_bytes, 1),
      run_row_stored_bytes_inline_over_offload: round(inline.run_row_stored_bytes / offload.run_row_stored_bytes, 1),
      next_turn_request_chars_inline_over_offload: round(
        inline.next_turn_request_chars / offload.next_turn_request_chars,
        1,
      ),
    });
  });
}
