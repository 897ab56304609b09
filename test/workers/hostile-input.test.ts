import { waitOnExecutionContext } from "cloudflare:test";
import { afterAll, describe, expect, inject, it } from "vitest";
import { Pool } from "@neondatabase/serverless";
import type { Env } from "../../src/index.js";
import { call, form, JSON_BODY, auth, modelEnv, parseSse, send, upgradeSocket } from "./worker-client.js";

/*
 * Hostile JSON and text at the edge and from the model: too deep, too large, NUL and lone
 * surrogates. From a client they are a 422 naming the field before anything is stored or sent
 * to a model; from a model they are a tool error it reads, or text stored sanitised, and the run
 * completes. Through the Worker, on the embedded Postgres and on the real one when configured.
 */

/** `{"a":{"a":…1…}}`, `levels` deep, as JSON text (about 42 KB at 7,000 levels). */
const deepText = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
/** A JSON body with `field` set to `deepText(levels)` (JSON.stringify itself overflows on such a value). */
const withDeep = (fields: Record<string, unknown>, field: string, levels: number) =>
  JSON.stringify(fields).slice(0, -1) + `,"${field}":${deepText(levels)}}`;

const real = inject("realPgUrl");
const realSchema = `hostile_${Date.now().toString(36)}`;
const targets: Array<{ name: string; db: Partial<Env> }> = [{ name: "pglite", db: {} }];
if (real) targets.push({ name: "postgresql", db: { DATABASE_URL: real, AGNO_DB_SCHEMA: realSchema } });

afterAll(async () => {
  if (!real) return;
  const pool = new Pool({ connectionString: real });
  await pool.query(`DROP SCHEMA IF EXISTS "${realSchema}" CASCADE`);
  await pool.end();
});

const errorShape = { detail: expect.any(String), error_id: expect.any(String) };

describe.each(targets)("hostile input on $name", ({ name, db }) => {
  const sid = (label: string) => `hostile-${name}-${label}-${Date.now().toString(36)}`;

  it("refuses a run whose session_state is 7,000 levels deep, streamed or not: 422 naming it, nothing stored, no model call", async () => {
    const { env: m, script } = await modelEnv([{ text: "never" }, { text: "never" }, { text: "never" }]);
    const e = { ...m, ...db };
    for (const stream of [true, false]) {
      const session_id = sid(`deep-${stream}`);
      const json = await call(
        "/agents/assistant/runs",
        {
          method: "POST",
          headers: JSON_BODY,
          body: withDeep({ message: "hi", stream, session_id }, "session_state", 7000),
        },
        e,
      );
      expect(json).toMatchObject({ status: 422, body: { ...errorShape, error_id: "validation_error" } });
      expect(json.body.detail).toMatch(/session_state/);
      expect(json.body.detail).toMatch(/deeper than 64/);
      expect((await call(`/sessions/${session_id}`, {}, e)).status).toBe(404);
    }
    // As agno's form sends it: JSON text in a field.
    const session_id = sid("deep-form");
    const fromForm = await call(
      "/agents/assistant/runs",
      form({ message: "hi", session_id, metadata: deepText(7000) }),
      e,
    );
    expect(fromForm).toMatchObject({ status: 422, body: errorShape });
    expect(fromForm.body.detail).toMatch(/metadata/);
    expect((await call(`/sessions/${session_id}`, {}, e)).status).toBe(404);
    expect(await script.requests()).toEqual([]);
  });

  it("refuses POST /sessions with deep session_state as 422 (not 409), and the session does not exist", async () => {
    const session_id = sid("create-deep");
    const json = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: withDeep({ session_id, agent_id: "assistant" }, "session_state", 7000),
      },
      db,
    );
    expect(json).toMatchObject({ status: 422, body: errorShape });
    expect(json.body.detail).toMatch(/session_state/);
    expect((await call(`/sessions/${session_id}`, {}, db)).status).toBe(404);
    // Wide instead of deep: more keys than a field may hold.
    const wide = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    const tooWide = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ session_id, agent_id: "assistant", metadata: wide }),
      },
      db,
    );
    expect(tooWide).toMatchObject({ status: 422, body: errorShape });
    expect(tooWide.body.detail).toMatch(/metadata.*10000/);
    // Within the limits the same session is created.
    const ok = await call(
      "/sessions",
      {
        method: "POST",
        headers: JSON_BODY,
        body: withDeep({ session_id, agent_id: "assistant" }, "session_state", 60),
      },
      db,
    );
    expect(ok.status).toBe(201);
  });

  it("refuses NUL and lone surrogates from the client as 422 naming the field", async () => {
    const { env: m, script } = await modelEnv([]);
    const e = { ...m, ...db };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ message: "hi\u0000there" }, /message.*NUL/],
      [{ message: "hi \ud800 there" }, /message.*surrogate/],
      [{ message: "hi", session_state: { note: "a\u0000b" } }, /session_state\.note.*NUL/],
      [{ message: "hi", metadata: { ["k\u0000"]: 1 } }, /metadata.*NUL/],
      [{ message: "hi", dependencies: { list: ["ok", "\udc00"] } }, /dependencies\.list\.1.*surrogate/],
    ];
    for (const [body, detail] of cases) {
      const session_id = sid("nul");
      // JSON.stringify writes a lone surrogate as its escape, as a hostile client would.
      const json = await call(
        "/agents/assistant/runs",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ ...body, session_id, stream: false }) },
        e,
      );
      expect(json, JSON.stringify(body).slice(0, 80)).toMatchObject({ status: 422, body: errorShape });
      expect(json.body.detail).toMatch(detail);
      expect((await call(`/sessions/${session_id}`, {}, e)).status).toBe(404);
    }
    const fromForm = await call("/agents/assistant/runs", form({ message: "nul\u0000", stream: "false" }), e);
    expect(fromForm).toMatchObject({ status: 422, body: errorShape });
    expect(await script.requests()).toEqual([]);
  });

  it("answers ids holding control characters with 404 or 422, never 500", async () => {
    const paths = [
      "/sessions/a%00b",
      "/sessions/a%00b/runs",
      "/sessions/a%00b/runs/r%01",
      "/agents/assistant/runs/r%00",
      "/agents/assistant/runs?session_id=s%00",
      "/sessions?user_id=u%00",
      "/sessions?component_id=%7F",
      "/queue/jobs/j%00",
      "/schedules/x%00",
      "/schedules/x%1F/runs",
    ];
    for (const path of paths) {
      const res = await call(path, {}, db);
      expect([404, 422], `${path}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
      expect(res.body).toMatchObject(errorShape);
    }
    for (const [path, init] of [
      ["/agents/assistant/runs/r%00/cancel", { method: "POST" }],
      ["/sessions/s%00/rename", { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_name: "x" }) }],
      [
        "/sessions",
        { method: "DELETE", headers: JSON_BODY, body: JSON.stringify({ session_ids: ["ok", "bad\u0000"] }) },
      ],
    ] as Array<[string, RequestInit]>) {
      const res = await call(path, init, db);
      expect([404, 422], `${path}: ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
    }
  });

  it("turns tool arguments 7,000 levels deep or holding NUL into a tool error the model reads; the run completes and is stored", async () => {
    const { env: m, script } = await modelEnv([
      { toolCalls: [{ name: "roll_dice", arguments: `{"count":2,"sides":${deepText(7000)}}` }] },
      { toolCalls: [{ name: "roll_dice", arguments: '{"count":2,"sides":6,"note":"x\\u0000y"}' }] },
      { text: "Done, without dice." },
    ]);
    const e = { ...m, ...db };
    const frames = parseSse(
      await (await send("/agents/assistant/runs", form({ message: "roll", session_id: sid("args") }), e)).text(),
    );
    expect(frames.at(-1)!.event, JSON.stringify(frames.at(-1)).slice(0, 600)).toBe("RunCompleted");
    expect(frames.filter((f) => f.event === "ToolCallError")).toHaveLength(2);
    const requests = await script.requests();
    expect(requests).toHaveLength(3);
    const toolAnswers = (i: number) =>
      (requests[i]!.body.messages as Array<{ role: string; content: string }>)
        .filter((msg) => msg.role === "tool")
        .map((msg) => msg.content);
    expect(toolAnswers(1)).toEqual([
      expect.stringMatching(/^Error: tool arguments at sides\.a\.a.* nested deeper than 64 levels/),
    ]);
    expect(toolAnswers(2)[1]).toMatch(/^Error: tool arguments at note must not contain NUL/);
    const stored = await call(`/agents/assistant/runs/${frames[0]!.data.run_id}`, {}, e);
    expect(stored.body).toMatchObject({ status: "COMPLETED", content: "Done, without dice." });
    expect(stored.body.tools).toHaveLength(2);
    expect(stored.body.tools.every((t: { tool_call_error?: boolean }) => t.tool_call_error === true)).toBe(true);
  });

  it("stores a model's text with NUL and a lone surrogate sanitised: the run completes, streamed or not", async () => {
    const { env: m } = await modelEnv([
      { text: "a\u0000b\ud800c", chunkSize: 50 },
      { text: "x\udc00y\u0000", chunkSize: 50 },
    ]);
    const e = { ...m, ...db };
    const frames = parseSse(
      await (await send("/agents/assistant/runs", form({ message: "say it", session_id: sid("text") }), e)).text(),
    );
    expect(frames.at(-1)!.event).toBe("RunCompleted");
    const streamed = await call(`/agents/assistant/runs/${frames[0]!.data.run_id}`, {}, e);
    expect(streamed.body).toMatchObject({ status: "COMPLETED", content: "a\ufffdb\ufffdc" });
    const plain = await call(
      "/agents/assistant/runs",
      form({ message: "again", stream: "false", session_id: sid("text-plain") }),
      e,
    );
    expect(plain.status).toBe(200);
    expect(plain.body.status).toBe("COMPLETED");
    const stored = await call(`/agents/assistant/runs/${plain.body.run_id}`, {}, e);
    expect(stored.body).toMatchObject({ status: "COMPLETED", content: "x\ufffdy\ufffd" });
    // The stored event log replays too (it was written sanitised).
    const replay = parseSse(
      await (await send(`/agents/assistant/runs/${frames[0]!.data.run_id}/resume`, { method: "POST" }, e)).text(),
    );
    expect(replay.at(-1)!.event).toBe("RunCompleted");
  });
});

describe("resume positions the event log cannot hold", () => {
  it("answers 422 for last_event_index >= 2^31 and a negative Last-Event-ID, over HTTP and WebSocket", async () => {
    const { env: e, script } = await modelEnv([{ text: "some events", chunkSize: 3 }]);
    const frames = parseSse(await (await send("/agents/assistant/runs", form({ message: "go" }), e)).text());
    const runId = frames[0]!.data.run_id as string;
    for (const init of [
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ last_event_index: 2 ** 31 }) },
      form({ last_event_index: String(2 ** 40) }),
    ]) {
      const res = await call(`/agents/assistant/runs/${runId}/resume`, init, e);
      expect(res).toMatchObject({ status: 422, body: errorShape });
      expect(res.body.detail).toMatch(/last_event_index/);
    }
    for (const header of ["-5", "2147483648", "99999999999"]) {
      const res = await call(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e, {
        ...auth,
        "last-event-id": header,
      });
      expect(res, header).toMatchObject({ status: 422, body: errorShape });
      expect(res.body.detail).toMatch(/Last-Event-ID/);
    }
    // In range, the header still works.
    const fromTwo = parseSse(
      await (
        await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e, { ...auth, "last-event-id": "2" })
      ).text(),
    );
    expect(fromTwo[0]!.id).toBe(3);

    const { res: upgrade, ctx } = await upgradeSocket(e);
    const ws = upgrade.webSocket!;
    const answers: Array<Record<string, unknown>> = [];
    let wake = () => {};
    ws.addEventListener("message", (evt) => {
      answers.push(JSON.parse(evt.data as string));
      wake();
    });
    const next = async () => {
      while (answers.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return answers.shift()!;
    };
    ws.send(
      JSON.stringify({ action: "resume", id: "big", agent_id: "assistant", run_id: runId, last_event_index: 2 ** 31 }),
    );
    expect(await next()).toMatchObject({
      event: "error",
      error_id: "validation_error",
      detail: expect.stringMatching(/last_event_index/),
    });
    // The socket's runs take the same bounds as the HTTP routes.
    ws.send(withDeep({ action: "run", id: "deep", agent_id: "assistant", message: "hi" }, "session_state", 7000));
    expect(await next()).toMatchObject({
      event: "error",
      error_id: "validation_error",
      detail: expect.stringMatching(/session_state.*deeper than 64/),
    });
    ws.send(JSON.stringify({ action: "run", id: "nul", agent_id: "assistant", message: "hi\u0000" }));
    expect(await next()).toMatchObject({
      event: "error",
      error_id: "validation_error",
      detail: expect.stringMatching(/message.*NUL/),
    });
    ws.close(1000, "done");
    await waitOnExecutionContext(ctx);
    expect(await script.requests()).toHaveLength(1); // the first run's only
  });
});
