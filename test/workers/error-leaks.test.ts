import { waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { call, form, JSON_BODY, modelEnv, parseSse, send, upgradeSocket } from "./worker-client.js";

const REF = /^internal error \(ref [0-9a-f]{16}\)$/;
const MARKER = "UNSTORABLE-ANSWER";

/** What must never reach a client: the statement, its parameters, the database's own words, the run's content. */
const leaks = (text: string) =>
  [
    "insert into",
    "update ",
    "failed query",
    "agno_",
    "params:",
    "refused by the test",
    "private question",
    MARKER,
  ].filter((s) => text.toLowerCase().includes(s.toLowerCase()));

/**
 * The Worker on a schema of its own whose runs table refuses any row holding MARKER (as Postgres
 * refuses text it cannot store): only the model's answer carries it, so a run starts (RUNNING is
 * stored) and its last write fails for real, inside the database.
 */
describe("errors never leak internals, and a run whose last write fails ends as ERROR", () => {
  const schema = `leaks_${Date.now().toString(36)}`;
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  const base = { AGNO_DB_SCHEMA: schema };
  beforeAll(async () => {
    expect((await call("/sessions", {}, base)).status).toBe(200); // creates the schema
    await pool.query(`CREATE FUNCTION "${schema}".refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF to_jsonb(NEW)::text LIKE '%${MARKER}%' THEN RAISE EXCEPTION 'row refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    for (const table of ["agno_runs", "agno_sessions"]) {
      await pool.query(
        `CREATE TRIGGER refuse_marked BEFORE INSERT OR UPDATE ON "${schema}".${table} FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_marked()`,
      );
    }
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const scripted = async () => ({ ...base, ...(await modelEnv([{ text: `the answer is ${MARKER}` }])).env });
  const runOf = async (runId: string, e: Partial<Env>) => (await call(`/agents/assistant/runs/${runId}`, {}, e)).body;

  it("streams a RunError with the run's ids and a reference, never the SQL, its parameters or the messages", async () => {
    const e = await scripted();
    const frames = parseSse(
      await (await send("/agents/assistant/runs", form({ message: "private question" }), e)).text(),
    );
    const started = frames[0]!.data;
    const last = frames.at(-1)!;
    expect(last).toMatchObject({
      event: "RunError",
      data: {
        run_id: started.run_id,
        session_id: started.session_id,
        error_id: "internal_error",
        content: expect.stringMatching(REF),
      },
    });
    expect(leaks(JSON.stringify(last))).toEqual([]);
    const run = await runOf(String(started.run_id), e);
    expect(run).toMatchObject({ status: "ERROR", content: last.data.content });
    // What /resume replays is the same clean end.
    const replay = parseSse(
      await (await send(`/agents/assistant/runs/${started.run_id}/resume`, { method: "POST" }, e)).text(),
    );
    expect(replay.at(-1)).toEqual(last);
  });

  it("answers stream=false with the run's ERROR output, the run stored as ERROR", async () => {
    const e = await scripted();
    const res = await send("/agents/assistant/runs", form({ message: "private question", stream: "false" }), e);
    const text = await res.text();
    expect(res.status).toBe(200);
    const out = JSON.parse(text) as { run_id: string; status: string; content: string; error: unknown };
    expect(out).toMatchObject({
      status: "ERROR",
      content: expect.stringMatching(REF),
      error: { type: "InternalError" },
    });
    expect(leaks(JSON.stringify({ content: out.content, error: out.error }))).toEqual([]);
    expect(
      ["insert into", "failed query", "agno_", "params:", "refused by the test"].filter((s) =>
        text.toLowerCase().includes(s),
      ),
    ).toEqual([]);
    expect((await runOf(out.run_id, e)).status).toBe("ERROR");
  });

  it("sends WebSocket clients the same clean RunError, with the run's ids", async () => {
    const e = await scripted();
    const { res, ctx } = await upgradeSocket(e);
    const ws = res.webSocket!;
    const frames: Array<Record<string, unknown>> = [];
    const ended = new Promise<void>((resolve) =>
      ws.addEventListener("message", (evt) => {
        const frame = JSON.parse(evt.data as string) as Record<string, unknown>;
        frames.push(frame);
        if (frame.event === "RunError" || frame.event === "RunCompleted" || frame.event === "error") resolve();
      }),
    );
    ws.send(JSON.stringify({ action: "run", id: "r", agent_id: "assistant", message: "private question" }));
    await ended;
    ws.close(1000, "done");
    await waitOnExecutionContext(ctx);
    const last = frames.at(-1)!;
    expect(last).toMatchObject({
      event: "RunError",
      request_id: "r",
      run_id: frames[0]!.run_id,
      session_id: frames[0]!.session_id,
      content: expect.stringMatching(REF),
    });
    expect(leaks(JSON.stringify(last))).toEqual([]);
    expect((await runOf(String(last.run_id), e)).status).toBe("ERROR");
  });

  it("answers an unexpected failure in any route with a generic 500 and a reference", async () => {
    const res = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ session_type: "agent", agent_id: "assistant", session_name: `named ${MARKER}` }),
      },
      base,
    );
    expect(res).toMatchObject({
      status: 500,
      body: { error_id: "internal_error", detail: expect.stringMatching(REF) },
    });
    expect(leaks(JSON.stringify(res.body))).toEqual([]);
  });
});
