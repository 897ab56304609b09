import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { Pool } from "@neondatabase/serverless";
import { afterAll, describe, expect, it } from "vitest";
import worker, { type Env } from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { auth, call, envFor, form, modelEnv, parseSse, send, upgradeSocket } from "./worker-client.js";

/*
 * Interactive runs whose runtime died. A killed runtime leaves its run's row RUNNING with a
 * heartbeat that stopped; these tests make such rows from real runs (run through the Worker,
 * then put back to RUNNING with an old `updated_at`, their closing events gone, as a kill
 * mid-run leaves them) and check what the cron trigger and `/resume` do with them. The real
 * kill -9 of `npm run dev` is test/node/interrupted-runs.e2e.test.ts.
 */

useLocalWsProxy(env.DB_WS_PROXY);
const pool = new Pool({ connectionString: env.DATABASE_URL });
afterAll(() => pool.end());

const now = () => Math.floor(Date.now() / 1000);
const tick = () => worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);

/** A streamed run cut after its first RunContent: its row RUNNING, its heartbeat `age` seconds old. */
async function deadStreamedRun(
  e: Partial<Env>,
  message: string,
  age: number,
): Promise<{ runId: string; kept: ReturnType<typeof parseSse> }> {
  const frames = parseSse(await (await send("/agents/assistant/runs", form({ message }), e)).text());
  const runId = frames[0]!.data.run_id as string;
  const cut = frames.findIndex((f) => f.event === "RunContent");
  await pool.query(`DELETE FROM ai.agno_run_events WHERE run_id = $1 AND event_index > $2`, [runId, cut]);
  await stale(runId, age);
  return { runId, kept: frames.slice(0, cut + 1) };
}

/** A plain (stream=false) run: no event log; its row RUNNING, its heartbeat `age` seconds old. */
async function deadPlainRun(e: Partial<Env>, message: string, age: number): Promise<string> {
  const res = await call("/agents/assistant/runs", form({ message, stream: "false" }), e);
  expect(res.status).toBe(200);
  await stale(res.body.run_id, age);
  return res.body.run_id as string;
}

async function stale(runId: string, age: number) {
  await pool.query(
    `UPDATE ai.agno_runs SET status = 'RUNNING', run_data = (run_data - 'error') || jsonb_build_object('status', 'RUNNING'), updated_at = $2 WHERE run_id = $1`,
    [runId, now() - age],
  );
}

/** A job of the queue holding the run (`status` PENDING or RUNNING with a live lease). */
async function jobFor(runId: string, status: "PENDING" | "RUNNING") {
  const t = now();
  await pool.query(
    `INSERT INTO ai.agno_jobs (id, component_type, component_id, payload, status, attempt, available_at, locked_by, locked_at, lease_expires_at, created_at)
     VALUES ($1, 'agent', 'assistant', $2::jsonb, $3, $4, $5, $6, $7, $8, $5)`,
    // A PENDING job falls due only in an hour, so the queue (which the tick wakes) leaves it alone.
    [
      `job-${runId}`,
      JSON.stringify({ run_id: runId, message: "held" }),
      status,
      status === "RUNNING" ? 1 : 0,
      status === "PENDING" ? t + 3600 : t,
      status === "RUNNING" ? "another-worker" : null,
      status === "RUNNING" ? t : null,
      status === "RUNNING" ? t + 3600 : null,
    ],
  );
}

const statusOf = async (runId: string, e: Partial<Env>) =>
  (await call(`/agents/assistant/runs/${runId}`, {}, e)).body as {
    status: string;
    error?: { kind?: string; type?: string; message?: string };
    content?: string;
  };

/** `/resume` with a bound: a tail that never ends fails the test instead of hanging it. */
async function resume(runId: string, e: Partial<Env>): Promise<ReturnType<typeof parseSse>> {
  const res = await Promise.race([
    send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`resume of ${runId} did not end`)), 20_000)),
  ]);
  expect(res.status).toBe(200);
  return parseSse(await res.text());
}

describe("interrupted interactive runs", () => {
  it("the cron trigger ends stale RUNNING runs as interrupted, streamed or not, and leaves fresh ones and those a job holds", async () => {
    const { env: e } = await modelEnv(Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i}` })));
    const streamed = await deadStreamedRun(e, "a streamed run whose runtime died", 3600);
    const plain = await deadPlainRun(e, "a plain run whose runtime died", 3600);
    const fresh = await deadPlainRun(e, "a run still beating", 0);
    const leased = await deadPlainRun(e, "a queued run its job's worker holds", 3600);
    await jobFor(leased, "RUNNING");
    const pending = await deadPlainRun(e, "a queued run waiting for its next attempt", 3600);
    await jobFor(pending, "PENDING");

    await tick();

    for (const runId of [streamed.runId, plain]) {
      const run = await statusOf(runId, e);
      expect(run).toMatchObject({
        status: "ERROR",
        error: { kind: "interrupted", type: "RunInterrupted", message: expect.stringMatching(/interrupted/) },
      });
      expect(run.content).toBe(run.error!.message);
    }
    for (const runId of [fresh, leased, pending]) expect((await statusOf(runId, e)).status, runId).toBe("RUNNING");

    // Re-attaching: what was stored before the runtime died, then the RunError, and the stream ends.
    const streamedTail = await resume(streamed.runId, e);
    expect(streamedTail.slice(0, -1)).toEqual(streamed.kept);
    expect(streamedTail.at(-1)).toMatchObject({
      id: streamed.kept.length,
      event: "RunError",
      data: {
        event: "RunError",
        run_id: streamed.runId,
        agent_id: "assistant",
        error_type: "RunInterrupted",
        error_kind: "interrupted",
      },
    });
    const plainTail = await resume(plain, e);
    expect(plainTail).toEqual([
      { id: 0, event: "RunError", data: expect.objectContaining({ run_id: plain, error_kind: "interrupted" }) },
    ]);

    // A second tick finds nothing more to do: the ended runs keep one closing event each.
    await tick();
    expect(await resume(streamed.runId, e)).toEqual(streamedTail);
    await pool.query(`DELETE FROM ai.agno_jobs WHERE id = ANY($1)`, [[`job-${leased}`, `job-${pending}`]]);
  });

  it("/resume of a RUNNING run whose heartbeat stopped ends with the interrupted error without waiting for the cron trigger", async () => {
    const { env: e } = await modelEnv([{ text: "cut short" }, { text: "never answered" }]);
    const streamed = await deadStreamedRun(e, "a run nobody swept yet", 3600);
    const frames = await resume(streamed.runId, e);
    expect(frames.slice(0, -1)).toEqual(streamed.kept);
    expect(frames.at(-1)).toMatchObject({ event: "RunError", data: { error_kind: "interrupted" } });
    expect(await statusOf(streamed.runId, e)).toMatchObject({ status: "ERROR", error: { kind: "interrupted" } });
    const plain = await deadPlainRun(e, "a plain run nobody swept yet", 3600);
    expect(await resume(plain, e)).toEqual([
      { id: 0, event: "RunError", data: expect.objectContaining({ error_kind: "interrupted" }) },
    ]);
  });

  it("a WebSocket resume of a run whose runtime died ends with the interrupted RunError", async () => {
    const { env: e } = await modelEnv([{ text: "over the socket" }]);
    const dead = await deadStreamedRun(e, "a run re-attached over a socket", 3600);
    const { res, ctx } = await upgradeSocket(e);
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const frames: Array<Record<string, unknown>> = [];
    const ended = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the resumed tail did not end")), 20_000);
      ws.addEventListener("message", (evt) => {
        const frame = JSON.parse(evt.data as string) as Record<string, unknown>;
        frames.push(frame);
        if (frame.event === "RunError") resolve(clearTimeout(timer));
      });
    });
    ws.send(JSON.stringify({ action: "resume", id: "again", agent_id: "assistant", run_id: dead.runId }));
    await ended;
    ws.close(1000, "done");
    await waitOnExecutionContext(ctx);
    expect(frames.map((f) => f.event)).toEqual([...dead.kept.map((f) => f.event), "RunError"]);
    expect(frames.at(-1)).toMatchObject({
      request_id: "again",
      run_id: dead.runId,
      error_kind: "interrupted",
      event_index: dead.kept.length,
    });
  });

  it("an executing run beats: a slow run outlives three heartbeat periods and the cron trigger leaves it to complete", async () => {
    const answer = "a slow and steady answer, two letters at a time";
    const { env: e } = await modelEnv([{ text: answer, chunkSize: 2, delayMs: 350 }]);
    // A one-second heartbeat: the tick below counts a run silent for three seconds as dead.
    const beating = envFor({ ...e, AGNO_RUN_HEARTBEAT_SECONDS: "1" });
    const ctx = createExecutionContext();
    const response = await worker.fetch(
      new Request("http://agno.test/agents/assistant/runs", {
        ...form({ message: "take your time" }),
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      beating,
      ctx,
    );
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: RunStarted")) text += (await reader.read()).value ?? "";
    const runId = /"run_id":"([^"]+)"/.exec(text)![1]!;
    const row = async () =>
      (await pool.query(`SELECT status, created_at, updated_at FROM ai.agno_runs WHERE run_id = $1`, [runId]))
        .rows[0] as { status: string; created_at: string; updated_at: string };
    // Well past three beats since the run started (its last write before the model call).
    let seen = await row();
    while (seen.status === "RUNNING" && now() < Number(seen.created_at) + 5) {
      await new Promise((r) => setTimeout(r, 200));
      seen = await row();
    }
    expect(seen.status).toBe("RUNNING");
    expect(Number(seen.updated_at)).toBeGreaterThan(Number(seen.created_at) + 1);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), beating);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
    await waitOnExecutionContext(ctx);
    expect(parseSse(text.replaceAll(": ping\n\n", "")).at(-1)).toMatchObject({
      event: "RunCompleted",
      data: { content: answer },
    });
    expect((await statusOf(runId, e)).status).toBe("COMPLETED");
  });
});

describe("SSE heartbeat comments", () => {
  /** The `: ping` comments of an SSE body, and its frames without them (parseSse checks agno's framing). */
  const split = (body: string) => ({
    pings: body.split("\n\n").filter((b) => b === ": ping").length,
    frames: parseSse(body.replaceAll(": ping\n\n", "")),
  });

  it("a stream whose model is slow carries `: ping` comments between events, and its frames are agno's, unchanged", async () => {
    const answer = "slow words arrive";
    const { env: e } = await modelEnv([{ text: answer, chunkSize: 6, delayMs: 1_300 }]);
    const body = await (
      await send("/agents/assistant/runs", form({ message: "slowly" }), { ...e, AGNO_SSE_PING_SECONDS: "1" })
    ).text();
    const { pings, frames } = split(body);
    expect(pings).toBeGreaterThan(0);
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i));
    expect(frames[0]!.event).toBe("RunStarted");
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: answer } });
    expect(
      frames
        .filter((f) => f.event === "RunContent")
        .map((f) => f.data.content)
        .join(""),
    ).toBe(answer);
    // The same run replayed: the same frames, and no pings (nothing was waited for).
    expect(
      await (await send(`/agents/assistant/runs/${frames[0]!.data.run_id}/resume`, { method: "POST" }, e)).text(),
    ).not.toContain(": ping");
  });

  it("a resumed tail waiting on a slow run carries `: ping` comments too", async () => {
    const { env: e } = await modelEnv([{ text: "late answer", chunkSize: 4, delayMs: 1_300 }]);
    const pinged = { ...e, AGNO_SSE_PING_SECONDS: "1" };
    const ctx = createExecutionContext();
    const first = await worker.fetch(
      new Request("http://agno.test/agents/assistant/runs", {
        ...form({ message: "slow for the tail" }),
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      envFor(pinged),
      ctx,
    );
    const reader = first.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: RunStarted")) text += (await reader.read()).value ?? "";
    await reader.cancel();
    const runId = /"run_id":"([^"]+)"/.exec(text)![1]!;
    const { pings, frames } = split(
      await (await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, pinged)).text(),
    );
    await waitOnExecutionContext(ctx);
    expect(pings).toBeGreaterThan(0);
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "late answer" } });
  });
});
