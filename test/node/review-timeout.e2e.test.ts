import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

/**
 * `npm run dev`'s cron trigger fires HumanReview timeouts with no request: the example
 * `blog-post` workflow pauses at its review; its stored deadline is moved into the past (as a
 * week passing would), and the cron tick, fired through the runtime's scheduled endpoint,
 * cancels the run, as the review's onTimeout says.
 */
describe.each(dbTargets())("review timeouts under npm run dev ($name)", (target) => {
  it("a paused run past its review's deadline is cancelled by the next cron tick", async () => {
    const t = openTestDb(target);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-review-timeout-"));
    const script = await scriptModel(inject("modelServerUrl"), [{ text: "Tides: two a day." }]);
    let dev: DevServer | undefined;
    try {
      dev = await startDev(
        {
          DATABASE_URL: target.url,
          AGNO_DB_SCHEMA: t.schema,
          AGNO_DEV_DATA: dataDir,
          MODEL: "openai:gpt-test",
          OPENAI_BASE_URL: script.baseURL,
          OPENAI_API_KEY: "sk-local",
          // The test fires the cron trigger itself.
          AGNO_DEV_CRON: "off",
        },
        ["--test-scheduled"],
      );
      const url = dev.url;
      const started = await fetch(`${url}/workflows/blog-post/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "Tides", stream: false }),
      });
      const paused = (await started.json()) as { run_id: string; status: string };
      expect(paused.status).toBe("PAUSED");
      const read = async () =>
        (await (await fetch(`${url}/workflows/blog-post/runs/${paused.run_id}`)).json()) as Record<string, unknown>;

      // A tick before the deadline leaves it waiting.
      expect((await fetch(`${url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
      expect((await read()).status).toBe("PAUSED");

      await t.query(
        `UPDATE "${t.schema}".agno_runs SET run_data = jsonb_set(run_data, '{step_requirements,-1,timeout_at}', to_jsonb($2::text)) WHERE run_id = $1`,
        [paused.run_id, new Date(Date.now() - 1000).toISOString()],
      );
      const ended = await until(
        async () => {
          expect((await fetch(`${url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
          return read();
        },
        (r) => r.status !== "PAUSED",
        "the cron tick to resolve the review",
        { ms: 60_000, every: 500 },
      );
      expect(ended).toMatchObject({ status: "CANCELLED", content: "Workflow cancelled: Step 'write' timed out" });
      // The writer never ran: one model call, the researcher's.
      expect(await script.requests()).toHaveLength(1);
    } finally {
      await dev?.stop();
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
