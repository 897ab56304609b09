import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

const JSON_BODY = { "content-type": "application/json" };

const dataDir = mkdtempSync(join(tmpdir(), "agno-sched-e2e-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `npm run dev -- --test-scheduled`: a real wrangler dev whose cron trigger is fired over HTTP. */
it("a schedule created over HTTP is run by the cron trigger through the durable queue to a completed run", async () => {
  const script = await scriptModel(inject("modelServerUrl"), [
    { text: "Good morning from the scheduler." },
    { text: "spare" },
    { text: "spare" },
  ]);
  const dev = await startDev(
    {
      AGNO_DEV_DATA: dataDir,
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
      // The trigger is fired by hand here (dev-cron.e2e.test.ts covers the one that fires by itself).
      AGNO_DEV_CRON: "off",
    },
    ["--test-scheduled"],
  );
  try {
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${dev.url}${path}`, {
        method,
        ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };
    const fire = async () => expect((await fetch(`${dev.url}/__scheduled?cron=*+*+*+*+*`)).status).toBe(200);
    const created = await api("POST", "/schedules", {
      name: "morning",
      cron_expr: "* * * * *",
      endpoint: "/agents/assistant/runs",
      payload: { message: "Say good morning" },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // Due a minute ago, as if the trigger had missed it.
    expect(
      (await api("PATCH", `/schedules/${id}`, { next_run_at: Math.floor(Date.now() / 60_000) * 60 - 60 })).status,
    ).toBe(200);
    await fire();
    const [attempt] = (
      await until(
        () => api("GET", `/schedules/${id}/runs`),
        (r) => r.body.data.length > 0,
        "the dispatch",
        { ms: 60_000, every: 250 },
      )
    ).body.data;
    expect(attempt).toMatchObject({
      // settled already if the queue was quicker than this read
      status: expect.stringMatching(/^(running|success)$/),
      attempt: 1,
      run_id: expect.any(String),
    });
    await api("POST", `/schedules/${id}/disable`);
    const run = await until(
      () => api("GET", `/agents/assistant/runs/${attempt.run_id}`),
      (r) => r.body?.status === "COMPLETED",
      "the run",
      { ms: 60_000, every: 250 },
    );
    expect(run.body.content).toBe("Good morning from the scheduler.");
    const settled = await until(
      async () => (await fire(), api("GET", `/schedules/${id}/runs/${attempt.id}`)),
      (r) => r.body.status !== "running",
      "the attempt to settle",
      { ms: 60_000, every: 250 },
    );
    expect(settled.body).toMatchObject({ status: "success", output: { content: "Good morning from the scheduler." } });
    expect((await api("GET", `/schedules/${id}/runs`)).body.meta.total_count).toBe(1);
  } finally {
    expect(await dev.stop()).toBe(0);
  }
}, 240_000);
