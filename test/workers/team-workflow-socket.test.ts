import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { openSocket, type Frame } from "./socket-session.js";
import { isolatedJwt, modelEnv, send } from "./worker-client.js";

/*
 * Teams and workflows over WebSockets, as a client drives them: `GET /ws` with `team_id` or
 * `workflow_id`, and agno's own `GET /workflows/ws` protocol (connected, authenticate,
 * start-workflow, continue-workflow, reconnect). JWT auth with per-user isolation: A runs, B
 * (same scopes, another user) is refused A's runs, C (read scopes only) may run nothing.
 */

const tag = crypto.randomUUID().slice(0, 8);
const A = `tws-a-${tag}`;
const B = `tws-b-${tag}`;
const RUN_SCOPES = ["teams:run", "workflows:run", "workflows:read"];
const delegate = {
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "x" } }],
};

let E: Partial<Env>;
const who: Record<"A" | "B" | "C", Record<string, string>> = { A: {}, B: {}, C: {} };

beforeAll(async () => {
  const jwt = await isolatedJwt(`tws-${tag}`);
  E = jwt.env;
  who.A = await jwt.bearer(A, RUN_SCOPES);
  who.B = await jwt.bearer(B, RUN_SCOPES);
  who.C = await jwt.bearer(`tws-c-${tag}`, ["teams:read", "workflows:read"]);
});

async function stepIdOf(runId: string) {
  const res = await send(`/workflows/blog-post/runs/${runId}`, {}, E, who.A);
  const run = (await res.json()) as { status: string; step_requirements: Array<{ step_id: string }> };
  expect(run.status).toBe("PAUSED");
  return run.step_requirements.at(-1)!.step_id;
}

const indexes = (frames: Frame[]) => frames.map((f) => f.event_index);
const counting = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("GET /ws runs teams and workflows", () => {
  it("a team run and a workflow run (paused, continued), numbered and resumable; B is refused them, C may not run", async () => {
    const { env: model } = await modelEnv([
      delegate,
      { text: "Facts." },
      { text: "Piece." },
      { text: "Research." },
      { text: "The post." },
    ]);
    E = { ...E, ...model };
    const a = await openSocket(E, who.A);
    const team = await a.ask({ action: "run", team_id: "writing-desk", message: "Write", session_id: `${tag}-t` });
    const teamDone = await a.until((f) => f.request_id === team.id && f.event === "TeamRunCompleted");
    expect(teamDone).toMatchObject({ team_id: "writing-desk", content: "Piece." });
    const teamFrames = a.of(team.id);
    expect(indexes(teamFrames)).toEqual(counting(0, teamFrames.length));
    const teamRun = teamDone.run_id as string;
    // Re-attached after its first event: the rest, as numbered the first time.
    const resumed = await a.ask({ action: "resume", team_id: "writing-desk", run_id: teamRun, last_event_index: 0 });
    await a.until((f) => f.request_id === resumed.id && f.event === "TeamRunCompleted");
    expect(indexes(a.of(resumed.id))).toEqual(counting(1, teamFrames.length - 1));

    const flow = await a.ask({ action: "run", workflow_id: "blog-post", message: "Tides", session_id: `${tag}-w` });
    const paused = await a.until((f) => f.request_id === flow.id && f.event === "WorkflowPaused");
    const flowRun = paused.run_id as string;
    const before = a.of(flow.id).length;
    expect(indexes(a.of(flow.id))).toEqual(counting(0, before));

    const b = await openSocket(E, who.B);
    const ghost = `tws-ghost-${tag}`;
    for (const action of [
      { action: "resume", team_id: "writing-desk", run_id: teamRun },
      { action: "continue", workflow_id: "blog-post", run_id: flowRun, step_requirements: [], user_id: A },
      { action: "resume", workflow_id: "blog-post", run_id: flowRun, user_id: A },
    ]) {
      const { first } = await b.ask(action);
      expect(first, JSON.stringify(action)).toMatchObject({ event: "error", error_id: "not_found" });
      const none = await b.ask({ ...action, run_id: ghost });
      expect(String(first.detail).replace(String(action.run_id), "<run>")).toBe(
        String(none.first.detail).replace(ghost, "<run>"),
      );
    }
    await b.close();

    const c = await openSocket(E, who.C);
    for (const target of [{ team_id: "writing-desk" }, { workflow_id: "blog-post" }]) {
      const { first } = await c.ask({ action: "run", message: "not mine to run", ...target });
      expect(first).toMatchObject({ event: "error", error_id: "forbidden" });
    }
    const two = await c.ask({ action: "run", message: "x", team_id: "writing-desk", workflow_id: "blog-post" });
    expect(two.first).toMatchObject({ event: "error", error_id: "validation_error" });
    await c.close();

    // B's refusals left A's run paused: A continues it, in the same log.
    const step_id = await stepIdOf(flowRun);
    const cont = await a.ask({
      action: "continue",
      workflow_id: "blog-post",
      run_id: flowRun,
      step_requirements: [{ step_id, confirmed: true }],
    });
    const done = await a.until((f) => f.request_id === cont.id && f.event === "WorkflowCompleted");
    expect(done).toMatchObject({ run_id: flowRun, content: "The post." });
    expect(indexes(a.of(cont.id))).toEqual(counting(before, a.of(cont.id).length));
    await a.close();
  });
});

describe("GET /workflows/ws speaks agno's workflow socket protocol", () => {
  it("authenticates by message, starts, reconnects to and continues a workflow run; refuses the unauthenticated, the unscoped and another user", async () => {
    const { env: model } = await modelEnv([{ text: "Research." }, { text: "The post." }]);
    E = { ...E, ...model };
    // No header on the upgrade, as a browser's: the socket asks for a token.
    const a = await openSocket(E, {}, "/workflows/ws");
    expect(await a.until((f) => f.event === "connected")).toMatchObject({ requires_auth: true });
    a.send({ action: "ping" });
    expect(await a.until((f) => f.event === "auth_required")).toMatchObject({ error: expect.any(String) });
    a.send({ action: "authenticate", token: "not-a-token" });
    expect(await a.until((f) => f.event === "auth_error")).toMatchObject({ error_type: "invalid_token" });
    a.send({ action: "start-workflow", workflow_id: "blog-post", message: "before auth" });
    await a.until((f) => f.event === "auth_required" && a.frames.filter((g) => g.event === "auth_required").length > 1);
    a.send({ action: "authenticate", token: who.A.authorization!.slice("Bearer ".length) });
    expect(await a.until((f) => f.event === "authenticated")).toMatchObject({ user_id: A });
    a.send({ action: "ping" });
    await a.until((f) => f.event === "pong");
    a.send({ action: "launch" });
    expect(await a.until((f) => f.event === "error")).toMatchObject({ error: "Unknown action: launch" });

    a.send({ action: "start-workflow", workflow_id: "blog-post", message: "Tides", session_id: `${tag}-ws` });
    const paused = await a.until((f) => f.event === "WorkflowPaused");
    const runId = paused.run_id as string;
    // Its steps' agent events carry their own run ids, numbered in the workflow run's log.
    const run = a.frames.filter((f) => typeof f.event_index === "number");
    expect(indexes(run)).toEqual(counting(0, run.length));
    expect(run[0]).toMatchObject({ event: "WorkflowStarted", workflow_id: "blog-post" });

    // Another socket of A's re-attaches: the paused run's events after the first, behind a replay frame.
    const again = await openSocket(E, who.A, "/workflows/ws");
    expect(await again.until((f) => f.event === "connected")).toMatchObject({ requires_auth: false });
    again.send({ action: "reconnect", workflow_id: "blog-post", run_id: runId, last_event_index: 0 });
    expect(await again.until((f) => f.event === "replay")).toMatchObject({
      run_id: runId,
      status: "PAUSED",
      total_events: run.length - 1,
    });
    await again.until((f) => f.event === "WorkflowPaused");
    expect(indexes(again.frames.filter((f) => typeof f.event_index === "number"))).toEqual(counting(1, run.length - 1));
    await again.close();

    // B, with the same scopes, cannot reconnect to or continue A's run; C may not run at all.
    const b = await openSocket(E, who.B, "/workflows/ws");
    b.send({ action: "reconnect", workflow_id: "blog-post", run_id: runId });
    expect(await b.until((f) => f.event === "error")).toMatchObject({ error_id: "not_found" });
    b.send({ action: "continue-workflow", workflow_id: "blog-post", run_id: runId, user_id: A, step_requirements: [] });
    await b.until((f) => f.event === "error" && b.frames.filter((g) => g.event === "error").length > 1);
    expect(b.frames.filter((f) => f.event === "error").at(-1)).toMatchObject({ error_id: "not_found" });
    await b.close();
    const c = await openSocket(E, who.C, "/workflows/ws");
    c.send({ action: "start-workflow", workflow_id: "blog-post", message: "x" });
    expect(await c.until((f) => f.event === "error")).toMatchObject({
      error: "Insufficient permissions to run this workflow",
    });
    await c.close();

    const step_id = await stepIdOf(runId);
    const mark = a.frames.length;
    a.send({
      action: "continue-workflow",
      workflow_id: "blog-post",
      run_id: runId,
      step_requirements: [{ step_id, confirmed: true }],
    });
    const done = await a.until((f) => f.event === "WorkflowCompleted");
    expect(done).toMatchObject({ run_id: runId, content: "The post." });
    // The continuation goes on in the run's log, after its paused events.
    const continued = a.frames.slice(mark).filter((f) => typeof f.event_index === "number");
    expect(indexes(continued)).toEqual(counting(run.length, continued.length));
    a.send({ action: "continue-workflow", workflow_id: "blog-post", run_id: runId, step_requirements: [] });
    expect(await a.until((f) => f.event === "error" && String(f.error).startsWith("Run is not paused"))).toMatchObject({
      error: "Run is not paused (status=COMPLETED)",
    });
    await a.close();
  });

  it("refuses a bad bearer header at the upgrade and tells a plain GET to upgrade", async () => {
    expect((await send("/workflows/ws", {}, E, { authorization: "Bearer nope" })).status).toBe(426);
    const { upgradeSocket } = await import("./worker-client.js");
    const refused = await upgradeSocket(E, { authorization: "Bearer nope" }, "/workflows/ws");
    expect(refused.res.status).toBe(401);
  });
});
