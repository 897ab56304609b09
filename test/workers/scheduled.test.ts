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
  const runIdOf = async (message: string) =>
    parseSse(await (await send("/agents/assistant/runs", form({ message }), e)).text())[0]!.data.run_id as string;
  const old = await runIdOf("an old stream");
  const fresh = await runIdOf("a fresh stream");
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  try {
    await pool.query(`UPDATE ai.agno_run_events SET created_at = created_at - 90000 WHERE run_id = $1`, [old]);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    const left = async (runId: string) =>
      Number((await pool.query(`SELECT COUNT(*) AS n FROM ai.agno_run_events WHERE run_id = $1`, [runId])).rows[0].n);
    expect(await left(old)).toBe(0);
    expect(await left(fresh)).toBeGreaterThan(2);
    // The run itself is untouched: only its re-attachable stream is gone.
    expect((await call(`/agents/assistant/runs/${old}`, {}, e)).body.status).toBe("COMPLETED");
    expect((await call(`/agents/assistant/runs/${old}/resume`, { method: "POST" }, e)).status).toBe(409);
  } finally {
    await pool.end();
  }
});

it("the cron trigger deletes expired offloaded tool results from R2 and their rows, and keeps live ones", async () => {
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  const tag = crypto.randomUUID().slice(0, 8);
  const now = Math.floor(Date.now() / 1000);
  try {
    // Any request makes sure the tables exist.
    await call("/sessions?limit=1");
    const rows = [
      { id: `tr-old-${tag}`, expires: now - 60 },
      { id: `tr-live-${tag}`, expires: now + 3600 },
    ];
    for (const r of rows) {
      const key = `tool-results/_/${r.id}`;
      await env.STORAGE.put(key, "x".repeat(20_000));
      await pool.query(
        `INSERT INTO ai.agno_tool_results (result_id, namespace, path, content_type, size_bytes, size_chars, line_count, created_at, expires_at)
         VALUES ($1, $5, $2, 'text/plain', 20000, 20000, 1, $3, $4)`,
        [r.id, key, now - 7200, r.expires, `r2:${env.AGNO_STORAGE_BUCKET}`],
      );
    }
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    const row = async (id: string) =>
      (await pool.query(`SELECT 1 FROM ai.agno_tool_results WHERE result_id = $1`, [id])).rows.length;
    expect(await row(`tr-old-${tag}`)).toBe(0);
    expect(await env.STORAGE.head(`tool-results/_/tr-old-${tag}`)).toBeNull();
    expect(await row(`tr-live-${tag}`)).toBe(1);
    expect((await env.STORAGE.head(`tool-results/_/tr-live-${tag}`))?.size).toBe(20_000);
  } finally {
    await pool.end();
  }
});

it("the cron trigger expires pending approvals past their deadline and leaves live and decided ones", async () => {
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  const tag = crypto.randomUUID().slice(0, 8);
  const now = Math.floor(Date.now() / 1000);
  const rows = [
    { id: `ap-late-${tag}`, status: "pending", expires: now - 60 },
    { id: `ap-live-${tag}`, status: "pending", expires: now + 3600 },
    { id: `ap-open-${tag}`, status: "pending", expires: null },
    { id: `ap-done-${tag}`, status: "approved", expires: now - 60 },
  ];
  try {
    await call("/sessions?limit=1");
    for (const r of rows)
      await pool.query(
        `INSERT INTO ai.agno_approvals (id, run_id, session_id, status, source_type, pause_type, expires_at, created_at)
         VALUES ($1, $2, $3, $4, 'agent', 'confirmation', $5, $6)`,
        [r.id, `run-${r.id}`, `s-${r.id}`, r.status, r.expires, now - 120],
      );
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
    const { rows: after } = await pool.query<{ id: string; status: string }>(
      `SELECT id, status FROM ai.agno_approvals WHERE id = ANY($1) ORDER BY id`,
      [rows.map((r) => r.id)],
    );
    expect(Object.fromEntries(after.map((r) => [r.id, r.status]))).toEqual({
      [`ap-late-${tag}`]: "expired",
      [`ap-live-${tag}`]: "pending",
      [`ap-open-${tag}`]: "pending",
      [`ap-done-${tag}`]: "approved",
    });
  } finally {
    await pool.query(`DELETE FROM ai.agno_approvals WHERE id = ANY($1)`, [rows.map((r) => r.id)]);
    await pool.end();
  }
});
