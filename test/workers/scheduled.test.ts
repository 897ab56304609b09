import { env } from "cloudflare:workers";
import { createScheduledController } from "cloudflare:test";
import { Pool } from "@neondatabase/serverless";
import { expect, it } from "vitest";
import worker from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { scriptModel } from "../support/model-script.js";
import { call, parseSse, send, form } from "./worker-client.js";

it("the cron trigger prunes stream logs older than the TTL, keeps fresh ones and the runs themselves", async () => {
  const script = await scriptModel(env.MODEL_SERVER_URL, [{ text: "old stream" }, { text: "fresh stream" }]);
  const e = { MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "k" };
  const runIdOf = async (message: string) => parseSse(await (await send("/agents/assistant/runs", form({ message }), e)).text())[0]!.data.run_id as string;
  const old = await runIdOf("an old stream");
  const fresh = await runIdOf("a fresh stream");
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    await pool.query(`UPDATE ai.agno_run_events SET created_at = created_at - 90000 WHERE run_id = $1`, [old]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    const left = async (runId: string) => Number((await pool.query(`SELECT COUNT(*) AS n FROM ai.agno_run_events WHERE run_id = $1`, [runId])).rows[0].n);
    expect(await left(old)).toBe(0);
    expect(await left(fresh)).toBeGreaterThan(2);
    // The run itself is untouched: only its re-attachable stream is gone.
    expect((await call(`/agents/assistant/runs/${old}`, {}, e)).body.status).toBe("COMPLETED");
    expect((await call(`/agents/assistant/runs/${old}/resume`, { method: "POST" }, e)).status).toBe(409);
  } finally {
    await pool.end();
  }
});
