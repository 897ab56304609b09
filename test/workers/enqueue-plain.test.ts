import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { expect, it } from "vitest";
import worker from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { enqueueBackgroundRun } from "../../src/workers.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";
import { call } from "./worker-client.js";

it("enqueues a background run from plain arguments, as a webhook would (no HTTP request): the Worker's queue runs it with the served agent", async () => {
  const script = await scriptModel(env.MODEL_SERVER_URL, [{ text: "Answered from a webhook." }], { channel: "queue" });
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    const db = new PostgresDb({ pool });
    // The same registry the HTTP app and the queue object read: no HTTP app is built to find the agent.
    const agent = worker.components(env).agent("assistant")!.withDb(db);
    const queue = env.JOB_QUEUE.get(env.JOB_QUEUE.idFromName("default"));
    const { job, created } = await enqueueBackgroundRun(
      { jobs: db.jobs, queue: { wake: () => queue.wake() } },
      { durable: true },
      agent,
      { message: "from the hook", stream: false },
      { userId: "hook-user", idempotencyKey: `hook-${crypto.randomUUID()}` },
    );
    expect(created).toBe(true);
    expect(job).toMatchObject({
      component_type: "agent",
      component_id: "assistant",
      user_id: "hook-user",
      max_attempts: 3,
    });
    const run = await until(
      () => call(`/agents/assistant/runs/${job.payload.run_id}`).then((r) => r.body),
      (r) => r.status === "COMPLETED",
      "the hook's run to complete",
    );
    expect(run).toMatchObject({
      content: "Answered from a webhook.",
      user_id: "hook-user",
      session_id: job.session_id,
    });
    expect(await script.requests()).toHaveLength(1);
  } finally {
    await pool.end();
  }
});
