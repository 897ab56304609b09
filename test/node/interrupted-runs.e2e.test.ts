import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

/**
 * The fault suite's runtime kill during interactive runs: `npm run dev` against a database that
 * outlives it (as Neon outlives a Worker), a streamed run and a plain (stream=false) run both
 * waiting on a slow model, then kill -9 of the whole runtime. Started again on the same state,
 * its cron trigger must end both runs as interrupted, and `/resume` must end with that error
 * instead of replaying and waiting forever.
 */

const JSON_BODY = { "content-type": "application/json" };
const ANSWER = "a long answer the model streams slowly, four letters at a time, so the runtime dies mid-run";

/** SSE frames (`id:`, `event:`, `data:`), comments left out. */
function frames(text: string): Array<{ id?: number; event: string; data: Record<string, unknown> }> {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").filter((line) => line !== "" && !line.startsWith(":")))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      const id = field("id");
      return {
        ...(id === undefined ? {} : { id: Number(id) }),
        event: field("event")!,
        data: JSON.parse(field("data")!) as Record<string, unknown>,
      };
    });
}

describe.each(dbTargets())("runtime kill during interactive runs ($name)", (target) => {
  it("a streamed and a plain run whose runtime was killed end as interrupted at the next cron tick, and /resume ends with that error", async () => {
    const t = openTestDb(target);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-interrupted-"));
    const script = await scriptModel(inject("modelServerUrl"), [
      { text: ANSWER, chunkSize: 4, delayMs: 300 },
      { hang: true },
    ]);
    const env = {
      DATABASE_URL: target.url,
      AGNO_DB_SCHEMA: t.schema,
      AGNO_DEV_DATA: dataDir,
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
      // One beat a second: a run silent for three is dead.
      AGNO_RUN_HEARTBEAT_SECONDS: "1",
      // The test fires the cron trigger itself, after the restart.
      AGNO_DEV_CRON: "off",
    };
    let dev: DevServer | undefined;
    try {
      dev = await startDev(env, ["--test-scheduled"]);
      const row = async (runId: string) =>
        (
          await t.query<{ status: string; created_at: string; updated_at: string }>(
            `SELECT status, created_at, updated_at FROM "${t.schema}".agno_runs WHERE run_id = $1`,
            [runId],
          )
        )[0];

      // A streamed run, followed until the model's answer is flowing.
      const streamed = await fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "stream it slowly" }),
      });
      expect(streamed.status).toBe(200);
      const reader = streamed.body!.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while ((seen.match(/event: RunContent/g) ?? []).length < 2) seen += (await reader.read()).value ?? "";
      const streamedId = frames(seen.slice(0, seen.lastIndexOf("\n\n") + 2))[0]!.data.run_id as string;

      // A plain run, whose model never answers: its id is read from the database.
      const plain = fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "answer in one piece", stream: false }),
      }).catch(() => null);
      const [plainRow] = await until(
        () =>
          t.query<{ run_id: string }>(
            `SELECT run_id FROM "${t.schema}".agno_runs WHERE run_data->'input'->>'input_content' = 'answer in one piece' AND status = 'RUNNING'`,
          ),
        (rows) => rows.length === 1,
        "the plain run to be RUNNING",
        { ms: 30_000 },
      );
      const plainId = plainRow!.run_id;

      // Both beat while they wait on the model.
      for (const runId of [streamedId, plainId]) {
        await until(
          () => row(runId),
          (r) => r?.status === "RUNNING" && Number(r.updated_at) > Number(r.created_at) + 1,
          `${runId} to beat`,
          { ms: 30_000, every: 200 },
        );
      }

      await dev.kill();
      dev = undefined;
      await reader.cancel().catch(() => undefined);
      await plain;
      // What the dead runtime left: both RUNNING, nobody executing them.
      for (const runId of [streamedId, plainId]) expect((await row(runId))?.status, runId).toBe("RUNNING");

      dev = await startDev(env, ["--test-scheduled"]);
      const url = dev.url;
      await until(
        async () => {
          expect((await fetch(`${url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
          return Promise.all([row(streamedId), row(plainId)]);
        },
        (rows) => rows.every((r) => r?.status === "ERROR"),
        "the cron tick to end both runs",
        { ms: 60_000, every: 500 },
      );

      for (const runId of [streamedId, plainId]) {
        const run = (await (await fetch(`${url}/agents/assistant/runs/${runId}`)).json()) as {
          status: string;
          error?: Record<string, unknown>;
        };
        expect(run, runId).toMatchObject({ status: "ERROR", error: { kind: "interrupted", type: "RunInterrupted" } });
      }

      const resume = async (runId: string) => {
        const res = await fetch(`${url}/agents/assistant/runs/${runId}/resume`, {
          method: "POST",
          signal: AbortSignal.timeout(30_000),
        });
        expect(res.status).toBe(200);
        return frames(await res.text());
      };
      // The streamed run: what it stored before it died, then the RunError, and the stream ends.
      const tail = await resume(streamedId);
      expect(tail.map((f) => f.id)).toEqual(tail.map((_, i) => i));
      expect(tail[0]!.event).toBe("RunStarted");
      const said = tail
        .filter((f) => f.event === "RunContent")
        .map((f) => f.data.content)
        .join("");
      expect(said.length).toBeGreaterThan(0);
      expect(ANSWER.startsWith(said)).toBe(true);
      expect(tail.at(-1)).toMatchObject({
        event: "RunError",
        data: { run_id: streamedId, error_type: "RunInterrupted", error_kind: "interrupted" },
      });
      // The plain run had no events: its log is the RunError alone.
      expect(await resume(plainId)).toEqual([
        { id: 0, event: "RunError", data: expect.objectContaining({ run_id: plainId, error_kind: "interrupted" }) },
      ]);
    } finally {
      await dev?.stop();
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
