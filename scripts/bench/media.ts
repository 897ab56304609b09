/**
 * Media storage (SPEC MD1), side by side in one run: an agent run carrying a 113 KB JPEG (113,250
 * bytes, 151,000 characters of base64: agno's published example) stored three ways per Postgres
 * target: without the image (the baseline row), with the image inline as base64 (agents without
 * `mediaStorage`), and with `mediaStorage` (rows keep a `media_reference`). Per mode:
 *
 * - the run row: `length(run_data::text)` (characters of the JSON as stored) and
 *   `pg_column_size` (bytes on disk after TOAST compression);
 * - the image's share of the row: the row minus the baseline row (agno stores each medium twice,
 *   in `input.images` and on the user message);
 * - one media record as stored (compact JSON), and whether the model received the image bytes.
 *
 * Sizes, not times: they do not depend on this machine.
 */
import { scriptModel } from "../../test/support/model-script.js";
import { syntheticJpeg } from "../../test/support/media-jpeg.js";
import { Agent } from "../../src/agent/agent.js";
import type { MediaRecord } from "../../src/models/message.js";
import { createModel } from "../../src/models/providers.js";
import { LocalMediaStorage } from "../../src/offload/media-local-storage.js";
import { eachStorageBenchTarget, type StorageBenchTarget } from "./storage-setup.js";
import { emit, log, round } from "./util.js";

const JPEG_BYTES = 113_250;
type Mode = "text_only" | "inline" | "reference";

interface Measured {
  run_row_json_chars: number;
  run_row_stored_bytes: number;
  media_record_chars: number;
  model_received_image: boolean;
}

async function measure(
  mode: Mode,
  { db, pool, schema, modelServerUrl, storageDir }: StorageBenchTarget,
  jpeg: Uint8Array,
): Promise<Measured> {
  const script = await scriptModel(modelServerUrl, [{ text: "A grey square." }]);
  const model = createModel("openai:gpt-test", {
    credentials: { openai: { apiKey: "bench", baseURL: script.baseURL } },
  });
  const agent = new Agent({
    model,
    db,
    ...(mode === "reference" ? { mediaStorage: new LocalMediaStorage({ directory: storageDir }) } : {}),
  });
  const out = await agent.run("What is in this picture?", {
    userId: "bench-user",
    ...(mode === "text_only" ? {} : { media: [{ data: jpeg, mimeType: "image/jpeg" }] }),
  });
  if (out.status !== "COMPLETED") throw new Error(`${mode}: the run ended ${out.status}: ${String(out.content)}`);
  const { rows } = await pool.query(
    `SELECT length(run_data::text) AS json, pg_column_size(run_data) AS stored, run_data->'input'->'images'->0 AS record FROM "${schema}".agno_runs WHERE run_id = $1`,
    [out.run_id],
  );
  const record = rows[0].record as MediaRecord | null;
  const sent = JSON.stringify((await script.requests())[0]!.body.messages);
  return {
    run_row_json_chars: Number(rows[0].json),
    run_row_stored_bytes: Number(rows[0].stored),
    media_record_chars: record ? JSON.stringify(record).length : 0,
    model_received_image: sent.includes(`data:image/jpeg;base64,${Buffer.from(jpeg).toString("base64")}`),
  };
}

/** The media figures, against each Postgres target (the WebSocket proxy is already configured). */
export async function benchMedia(opts: { dbTargets: Array<{ name: string; url: string }> }): Promise<void> {
  const jpeg = syntheticJpeg(JPEG_BYTES);
  const base64Chars = Buffer.from(jpeg).toString("base64").length;
  await eachStorageBenchTarget("media", opts.dbTargets, async (setup) => {
    const { target } = setup;
    const figures = new Map<Mode, Measured>();
    for (const mode of ["text_only", "inline", "reference"] as const) {
      const m = await measure(mode, setup, jpeg);
      figures.set(mode, m);
      log(
        `${target.name}: ${mode}: run row ${m.run_row_json_chars} characters, ${m.run_row_stored_bytes} bytes stored`,
      );
      emit({
        bench: "media_run_row",
        target: target.name,
        mode,
        jpeg_bytes: JPEG_BYTES,
        jpeg_base64_chars: base64Chars,
        ...m,
      });
    }
    const base = figures.get("text_only")!;
    const inline = figures.get("inline")!;
    const reference = figures.get("reference")!;
    emit({
      bench: "media_run_row_inline_vs_reference",
      target: target.name,
      jpeg_bytes: JPEG_BYTES,
      run_row_json_chars: {
        inline: inline.run_row_json_chars,
        reference: reference.run_row_json_chars,
        without_image: base.run_row_json_chars,
      },
      image_chars_in_row: {
        inline: inline.run_row_json_chars - base.run_row_json_chars,
        reference: reference.run_row_json_chars - base.run_row_json_chars,
      },
      media_record_chars: { inline: inline.media_record_chars, reference: reference.media_record_chars },
      run_row_stored_bytes: { inline: inline.run_row_stored_bytes, reference: reference.run_row_stored_bytes },
      run_row_json_chars_inline_over_reference: round(inline.run_row_json_chars / reference.run_row_json_chars, 1),
      model_received_image: { inline: inline.model_received_image, reference: reference.model_received_image },
    });
  });
}
