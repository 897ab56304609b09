import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

const JSON_BODY = { "content-type": "application/json" };

const dataDir = mkdtempSync(join(tmpdir(), "agno-dev-cron-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * `npm run dev` as a user starts it, nothing fired by hand: the cron trigger of wrangler.toml
 * fires on the minute by itself, so a `* * * * *` schedule created over HTTP runs at its first
 * occurrence and its attempt shows success, linked to the completed run.
 */
it("npm run dev fires the cron trigger on the minute by itself: a new schedule runs at its first occurrence", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [{ text: "Ran on the minute." }, { text: "spare" }]);
  const dev = await startDev({
    AGNO_DEV_DATA: dataDir,
    MODEL: "openai:gpt-test",
    OPENAI_BASE_URL: script.baseURL,
    OPENAI_API_KEY: "sk-local",
  });
  try {
    expect(dev.output()).toMatch(/cron triggers \(\* \* \* \* \*\) fire on the minute/);
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${dev.url}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const created = await api("POST", "/schedules", {
      name: "every-minute",
      cron_expr: "* * * * *",
      endpoint: "/agents/assistant/runs",
      payload: { message: "Run on the minute" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, next_run_at: first } = created.body as { id: string; next_run_at: number };
    // Its first occurrence is the next minute boundary: nothing runs it before then.
    expect(first % 60).toBe(0);
    expect(first * 1000).toBeGreaterThan(Date.now());
    expect((await api("GET", `/schedules/${id}/runs`)).body.meta.total_count).toBe(0);

    // Waits out the minute, then allows the trigger, the queue and the model a bounded while.
    const runs = await until(
      () => api("GET", `/schedules/${id}/runs`),
      (r) => r.body.data.some((a: { status: string }) => a.status !== "running"),
      "the first occurrence's attempt to settle",
      { ms: first * 1000 - Date.now() + 45_000, every: 500 },
    );
    await api("POST", `/schedules/${id}/disable`);
    // The first occurrence's attempt (agno's ScheduleRunResponse has no occurrence time, only when it fired).
    expect(runs.body.data).toHaveLength(1);
    const attempt = runs.body.data[0];
    expect(attempt).toMatchObject({
      status: "success",
      attempt: 1,
      run_id: expect.any(String),
      output: { content: "Ran on the minute." },
    });
    // Fired on the minute, not by a request made before it.
    expect(attempt.triggered_at).toBeGreaterThanOrEqual(first);
    const run = await api("GET", `/agents/assistant/runs/${attempt.run_id}`);
    expect(run.body).toMatchObject({ status: "COMPLETED", content: "Ran on the minute.", run_id: attempt.run_id });
  } finally {
    expect(await dev.stop()).toBe(0);
  }
}, 240_000);
