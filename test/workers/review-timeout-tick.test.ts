import { env } from "cloudflare:workers";
import { createScheduledController } from "cloudflare:test";
import { Pool } from "@neondatabase/serverless";
import { expect, it } from "vitest";
import worker from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { call, envFor, form, modelEnv } from "./worker-client.js";

/*
 * HumanReview timeouts fired by the Worker's own cron handler, with no request: the example
 * `blog-post` workflow pauses at its review (a week's timeout); the test moves each run's
 * deadline into the past (and picks its on_timeout) in the stored requirement, as a week passing
 * would, then fires `scheduled`.
 */
it("the cron trigger resolves paused workflow runs past their review's deadline: cancel, skip, approve", async () => {
  const { env: e } = await modelEnv([
    { text: "Research one." },
    { text: "Research two." },
    { text: "Research three." },
    { text: "Research four." },
    { text: "The approved post." },
  ]);
  const tag = `rt-${Date.now().toString(36)}`;
  const start = async (n: number) => {
    const res = await call(
      "/workflows/blog-post/runs",
      form({ message: `Topic ${n}`, stream: "false", session_id: `${tag}-${n}`, user_id: "rt-ann" }),
      e,
    );
    expect(res.body).toMatchObject({
      status: "PAUSED",
      step_requirements: [{ step_name: "write", on_timeout: "cancel", timeout_at: expect.any(String) }],
    });
    const due = Date.parse(res.body.step_requirements[0].timeout_at as string);
    expect(due).toBeGreaterThan(Date.now() + 6 * 24 * 3600_000);
    return res.body.run_id as string;
  };
  const runs = { cancel: await start(1), skip: await start(2), approve: await start(3) };
  const untouched = await start(4);

  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    for (const [onTimeout, runId] of Object.entries(runs))
      await pool.query(
        `UPDATE ai.agno_runs SET run_data = jsonb_set(jsonb_set(run_data, '{step_requirements,-1,timeout_at}', to_jsonb($2::text)),
           '{step_requirements,-1,on_timeout}', to_jsonb($3::text)) WHERE run_id = $1`,
        [runId, new Date(Date.now() - 60_000).toISOString(), onTimeout],
      );
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), envFor(e));
    const read = async (runId: string) => (await call(`/workflows/blog-post/runs/${runId}`, {}, e)).body;
    expect(await read(runs.cancel)).toMatchObject({
      status: "CANCELLED",
      content: "Workflow cancelled: Step 'write' timed out",
    });
    const skipped = await read(runs.skip);
    expect(skipped).toMatchObject({ status: "COMPLETED", step_results: [{ step_name: "research" }] });
    expect(skipped.step_results).toHaveLength(1);
    expect(await read(runs.approve)).toMatchObject({
      status: "COMPLETED",
      content: "The approved post.",
      step_results: [{ step_name: "research" }, { step_name: "write", content: "The approved post." }],
      step_requirements: [{ confirmed: true, timed_out: true }],
    });
    // Its deadline is a week away: the tick leaves it waiting for a person.
    expect((await read(untouched)).status).toBe("PAUSED");
    // A person's late continue on a resolved run finds it no longer paused.
    const stepId = (await read(runs.skip)).step_requirements[0].step_id as string;
    const late = await call(
      `/workflows/blog-post/runs/${runs.skip}/continue`,
      form({ step_requirements: JSON.stringify([{ step_id: stepId, confirmed: true }]), stream: "false" }),
      e,
    );
    expect(late.status).toBe(409);
  } finally {
    await pool.end();
  }
});
