/**
 * `GET /ws` across users (SPEC U1): with JWT auth and AGNO_USER_ISOLATION=true, user B's socket
 * cannot re-attach to (`resume`), continue or cancel user A's runs, whether they are finished,
 * paused or still running, and a `run` naming A's session neither reads nor writes it. B's
 * answer is the one a run id nobody has gets (no existence leak), whatever `user_id` B names;
 * the same actions work for A, so the refusals come from isolation, not a broken route.
 * Everything goes through the Worker's fetch handler; ids carry a per-run tag (shared schema).
 */
import { env as workerEnv } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { scriptModel, type Turn } from "../support/model-script.js";
import { openSocket, type Frame } from "./socket-session.js";
import { isolatedJwt, send } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `wsiso-a-${tag}`;
const B = `wsiso-b-${tag}`;
const GHOST = `wsiso-no-such-run-${tag}`;
/** In A's messages, model answers and tool arguments: B must never see it. */
const SECRET = `a-secret-${tag}`;
const SCOPES = ["sessions:read", "sessions:write", "sessions:delete", "agents:read", "agents:run"];

let jwtEnv: Partial<Env>;
const who: Record<"A" | "B" | "admin", Record<string, string>> = { A: {}, B: {}, admin: {} };

beforeAll(async () => {
  const jwt = await isolatedJwt("wsiso");
  jwtEnv = jwt.env;
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.admin = await jwt.bearer(`wsiso-admin-${tag}`, ["agent_os:admin"]);
});

/** The deployment with its model scripted by `turns`. */
async function deployment(turns: Turn[]) {
  const script = await scriptModel(workerEnv.MODEL_SERVER_URL, turns);
  const e: Partial<Env> = { ...jwtEnv, MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "k" };
  return { e, script };
}

async function http(e: Partial<Env>, as: keyof typeof who, method: string, path: string, body?: unknown) {
  const headers = { ...who[as], ...(body === undefined ? {} : { "content-type": "application/json" }) };
  const res = await send(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, e, headers);
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** What the admin reads of sessions and runs (full bodies, updated_at included). */
async function snapshot(e: Partial<Env>, sessions: string[], runs: string[]) {
  const out: Record<string, unknown> = {};
  for (const s of sessions) {
    out[`session ${s}`] = await http(e, "admin", "GET", `/sessions/${s}`);
    out[`runs of ${s}`] = await http(e, "admin", "GET", `/sessions/${s}/runs`);
  }
  for (const r of runs) out[`run ${r}`] = await http(e, "admin", "GET", `/agents/assistant/runs/${r}`);
  return out;
}

/** A frame with the run id it answers (and its request id) taken out, to compare two answers. */
const withoutIds = (frame: Frame, runId: string) => {
  const { request_id: _ignored, ...rest } = JSON.parse(JSON.stringify(frame).replaceAll(runId, "<run>")) as Frame;
  return rest;
};

type Socket = Awaited<ReturnType<typeof openSocket>>;

/**
 * Each of `actions` sent by B on A's run `runId`, as written and naming A as `user_id`: B gets
 * exactly the error a run id nobody has gets, and nothing else answers that request.
 */
async function expectRefusedLikeMissing(b: Socket, runId: string, actions: Array<Record<string, unknown>>) {
  const asked: string[] = [];
  for (const action of actions.flatMap((a) => [a, { ...a, user_id: A }])) {
    const missing = await b.ask({ agent_id: "assistant", ...action, run_id: GHOST });
    expect(missing.first).toMatchObject({ event: "error", error_id: "not_found" });
    const theirs = await b.ask({ agent_id: "assistant", ...action, run_id: runId });
    expect({ action, answer: withoutIds(theirs.first, runId) }).toEqual({
      action,
      answer: withoutIds(missing.first, GHOST),
    });
    asked.push(missing.id, theirs.id);
  }
  return asked;
}

/** A `run` B sends naming A's session: refused over the socket exactly as over HTTP (404 not_found). */
async function expectRunInSessionRefused(e: Partial<Env>, b: Socket, sessionId: string) {
  const over = await http(e, "B", "POST", "/agents/assistant/runs", {
    message: "B writes into A's session",
    stream: false,
    session_id: sessionId,
  });
  expect(over.status, over.text).toBe(404);
  for (const extra of [{}, { user_id: A }]) {
    const { first } = await b.ask({
      action: "run",
      agent_id: "assistant",
      message: "B writes into A's session",
      session_id: sessionId,
      ...extra,
    });
    expect({ extra, first }).toEqual({
      extra,
      first: {
        event: "error",
        request_id: expect.any(String),
        detail: over.body!.detail,
        error_id: over.body!.error_id,
      },
    });
  }
}

/** The resume-style actions of the socket that name a run: re-attach, continue and cancel. */
const runActions = (pausedTools: Array<Record<string, unknown>> = []) => [
  { action: "resume" },
  { action: "resume", last_event_index: 0 },
  { action: "continue", requirements: [] },
  { action: "continue", tools: pausedTools.map((t) => ({ ...t, confirmed: true })) },
  { action: "cancel" },
];

describe("GET /ws across users: B cannot reach A's runs or sessions", () => {
  it("finished and paused runs: B's resume, continue and cancel answer as for a missing run; run into A's session is refused as over HTTP", async () => {
    const { e, script } = await deployment([
      { text: `${SECRET} finished answer`, chunkSize: 1000 },
      { toolCalls: [{ name: "save_note", arguments: { note: `${SECRET} note` } }] },
      { text: "Noted." },
      // Spare answers: a refusal that let a run through would reach the model (counted below).
      ...Array.from({ length: 20 }, (_, i) => ({ text: `leaked ${i}` })),
    ]);
    const sessionA = `wsiso-session-of-a-${tag}`;
    const a = await openSocket(e, who.A);
    a.send({ action: "run", id: "done", agent_id: "assistant", message: `${SECRET} question`, session_id: sessionA });
    const done = await a.until((f) => f.request_id === "done" && (f.event === "RunCompleted" || f.event === "error"));
    expect(done).toMatchObject({ event: "RunCompleted", session_id: sessionA });
    a.send({ action: "run", id: "pause", agent_id: "assistant", message: `remember ${SECRET}`, session_id: sessionA });
    const paused = await a.until((f) => f.request_id === "pause" && (f.event === "RunPaused" || f.event === "error"));
    expect(paused).toMatchObject({ event: "RunPaused", session_id: sessionA });
    const doneId = done.run_id as string;
    const pausedId = paused.run_id as string;
    const pausedTools = paused.tools as Array<Record<string, unknown>>;
    expect(pausedTools).toHaveLength(1);

    const before = await snapshot(e, [sessionA], [doneId, pausedId]);
    expect(before[`run ${doneId}`]).toMatchObject({ status: 200, body: { status: "COMPLETED", user_id: A } });
    expect(before[`run ${pausedId}`]).toMatchObject({ status: 200, body: { status: "PAUSED", user_id: A } });
    expect(before[`session ${sessionA}`]).toMatchObject({ status: 200, body: { user_id: A } });
    const modelCalls = (await script.requests()).length;

    const b = await openSocket(e, who.B);
    const asked = [
      ...(await expectRefusedLikeMissing(b, doneId, runActions(pausedTools))),
      ...(await expectRefusedLikeMissing(b, pausedId, runActions(pausedTools))),
    ];
    await expectRunInSessionRefused(e, b, sessionA);
    // One error frame per refused request, no run events; nothing of A's reaches B.
    for (const id of asked) expect(b.of(id).map((f) => f.event)).toEqual(["error"]);
    expect(JSON.stringify(b.frames)).not.toContain(SECRET);
    expect(JSON.stringify(b.frames)).not.toContain(A);
    await b.close();
    expect(await snapshot(e, [sessionA], [doneId, pausedId])).toEqual(before);
    expect(await script.requests()).toHaveLength(modelCalls);

    // Controls: A re-attaches to both runs and continues the paused one over the socket.
    a.send({ action: "resume", id: "again", agent_id: "assistant", run_id: doneId });
    await a.until((f) => f.request_id === "again" && (f.event === "RunCompleted" || f.event === "error"));
    const replayed = a.of("again").map((f) => [f.event_index, f.event]);
    expect(replayed).toEqual(a.of("done").map((f) => [f.event_index, f.event]));
    expect(JSON.stringify(a.of("again"))).toContain(SECRET);
    a.send({ action: "resume", id: "again-paused", agent_id: "assistant", run_id: pausedId, last_event_index: 0 });
    await a.until((f) => f.request_id === "again-paused" && (f.event === "RunPaused" || f.event === "error"));
    expect(a.of("again-paused").map((f) => [f.event_index, f.event])).toEqual(
      a
        .of("pause")
        .slice(1)
        .map((f) => [f.event_index, f.event]),
    );
    a.send({
      action: "continue",
      id: "go-on",
      agent_id: "assistant",
      run_id: pausedId,
      tools: pausedTools.map((t) => ({ ...t, confirmed: true })),
    });
    const ended = await a.until((f) => f.request_id === "go-on" && (f.event === "RunCompleted" || f.event === "error"));
    expect(ended).toMatchObject({ event: "RunCompleted", run_id: pausedId, content: "Noted." });
    expect((await http(e, "A", "GET", `/sessions/${sessionA}`)).body).toMatchObject({
      session_state: { notes: [`${SECRET} note`] },
    });
    await a.close();
  });

  it("a running run: B's resume, continue and cancel answer as for a missing run and it runs on; A re-attaches mid-run and cancels it", async () => {
    const { e, script } = await deployment([
      {
        text: `${SECRET} partial`,
        chunkSize: 1000,
        toolCalls: [{ name: "get_current_time", arguments: { timezone: "UTC" } }],
      },
      // The second model call never answers: the run stays RUNNING until it is cancelled.
      { hang: true },
      ...Array.from({ length: 20 }, (_, i) => ({ text: `leaked ${i}` })),
    ]);
    const sessionA = `wsiso-running-session-of-a-${tag}`;
    const a = await openSocket(e, who.A);
    a.send({ action: "run", id: "long", agent_id: "assistant", message: `${SECRET} question`, session_id: sessionA });
    const secondCall = await a.until(
      (f) =>
        (f.request_id === "long" && f.event === "error") ||
        a.of("long").filter((g) => g.event === "ModelRequestStarted").length === 2,
    );
    expect(secondCall.event).not.toBe("error");
    const runId = a.of("long")[0]!.run_id as string;
    const lastIndex = a.of("long").at(-1)!.event_index as number;
    expect(await http(e, "admin", "GET", `/agents/assistant/runs/${runId}`)).toMatchObject({
      status: 200,
      body: { status: "RUNNING", user_id: A },
    });

    // A re-attaches mid-run: the stored events so far, A's content among them.
    a.send({ action: "resume", id: "attach", agent_id: "assistant", run_id: runId });
    await a.until((f) => f.request_id === "attach" && ((f.event_index as number) >= lastIndex || f.event === "error"));
    expect(JSON.stringify(a.of("attach"))).toContain(SECRET);
    const modelCalls = (await script.requests()).length;

    const b = await openSocket(e, who.B);
    const asked = await expectRefusedLikeMissing(b, runId, runActions());
    await expectRunInSessionRefused(e, b, sessionA);
    for (const id of asked) expect(b.of(id).map((f) => f.event)).toEqual(["error"]);
    expect(JSON.stringify(b.frames)).not.toContain(SECRET);
    expect(JSON.stringify(b.frames)).not.toContain(A);
    // Still running, untouched: B's cancel stopped nothing and B's continue started no model call.
    expect(await http(e, "admin", "GET", `/agents/assistant/runs/${runId}`)).toMatchObject({
      body: { status: "RUNNING", user_id: A },
    });
    expect(a.of("long").some((f) => f.event === "RunCancelled")).toBe(false);
    expect(await script.requests()).toHaveLength(modelCalls);

    // Control: A cancels; the run's stream and A's re-attached stream both end with RunCancelled.
    a.send({ action: "cancel", id: "stop", agent_id: "assistant", run_id: runId });
    expect(await a.until((f) => f.request_id === "stop")).toMatchObject({ event: "CancelResult", cancelled: true });
    await a.until((f) => f.request_id === "long" && f.event === "RunCancelled");
    await a.until((f) => f.request_id === "attach" && (f.event === "RunCancelled" || f.event === "error"));
    expect(a.of("attach").map((f) => [f.event_index, f.event])).toEqual(
      a.of("long").map((f) => [f.event_index, f.event]),
    );

    // Finished now (CANCELLED): B still gets the missing run's answer to a re-attach.
    const after = await snapshot(e, [sessionA], [runId]);
    expect(after[`run ${runId}`]).toMatchObject({ body: { status: "CANCELLED" } });
    const late = await openSocket(e, who.B);
    const lateAsked = await expectRefusedLikeMissing(late, runId, runActions());
    for (const id of lateAsked) expect(late.of(id).map((f) => f.event)).toEqual(["error"]);
    expect(JSON.stringify(late.frames)).not.toContain(SECRET);
    await late.close();
    await b.close();
    expect(await snapshot(e, [sessionA], [runId])).toEqual(after);
    await a.close();
  });
});
