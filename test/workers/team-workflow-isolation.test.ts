import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { isolatedJwt, modelEnv, parseSse, send } from "./worker-client.js";

/*
 * Per-user isolation of the team and workflow run routes (SPEC U1), as the isolation matrix proves
 * it for agents: with JWT auth and AGNO_USER_ISOLATION=true, user A acting on user B's team or
 * workflow runs and sessions gets 404, whatever user_id A names, and B's runs are left as they were.
 */

const tag = crypto.randomUUID().slice(0, 8);
const A = `tw-iso-a-${tag}`;
const B = `tw-iso-b-${tag}`;
const SCOPES = ["teams:read", "teams:run", "workflows:read", "workflows:run", "sessions:read"];
const delegate = {
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "x" } }],
};

let E: Partial<Env>;
const who: Record<"A" | "B", Record<string, string>> = { A: {}, B: {} };
const seed = { teamSession: `${tag}-team`, teamRun: "", flowSession: `${tag}-flow`, flowRun: "", stepId: "" };

async function req(as: "A" | "B", method: string, path: string, body?: unknown) {
  const init: RequestInit = { method, ...(body !== undefined && { body: JSON.stringify(body) }) };
  const headers = { ...who[as], ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await send(path, init, E, headers);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // an SSE body stays text
  }
  return { status: res.status, text, body: parsed as Record<string, unknown> };
}

beforeAll(async () => {
  const jwt = await isolatedJwt(`tw-iso-${tag}`);
  // B's streamed team run, B's streamed workflow run (paused at its review), then whatever A tries.
  const { env: model } = await modelEnv([
    delegate,
    { text: "B's facts." },
    { text: "B's piece." },
    { text: "B's research." },
    { text: "never used by A" },
  ]);
  E = { ...jwt.env, ...model };
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  const team = await req("B", "POST", "/teams/writing-desk/runs", { message: "B's", session_id: seed.teamSession });
  expect(team.status).toBe(200);
  seed.teamRun = parseSse(team.text)[0]!.data.run_id as string;
  const flow = await req("B", "POST", "/workflows/blog-post/runs", { message: "B's", session_id: seed.flowSession });
  expect(flow.status).toBe(200);
  const frames = parseSse(flow.text);
  expect(frames.at(-1)!.event).toBe("WorkflowPaused");
  seed.flowRun = frames[0]!.data.run_id as string;
  const paused = await req("B", "GET", `/workflows/blog-post/runs/${seed.flowRun}`);
  seed.stepId = (paused.body.step_requirements as Array<{ step_id: string }>).at(-1)!.step_id;
});

const expectNotFound = (res: { status: number; body: Record<string, unknown> }, label: string) => {
  expect(res.status, label).toBe(404);
  expect(res.body, label).toMatchObject({ error_id: "not_found" });
};

describe("team and workflow runs are isolated per user", () => {
  it("A cannot read, list, cancel, resume or continue B's team run, nor run into B's team session", async () => {
    const run = `/teams/writing-desk/runs/${seed.teamRun}`;
    for (const q of ["", `?user_id=${B}`]) expectNotFound(await req("A", "GET", `${run}${q}`), `GET run${q}`);
    expectNotFound(
      await req("A", "GET", `/teams/writing-desk/runs?session_id=${seed.teamSession}&user_id=${B}`),
      "list B's session",
    );
    expectNotFound(await req("A", "POST", `${run}/cancel?user_id=${B}`), "cancel");
    expectNotFound(await req("A", "POST", `${run}/resume`, { user_id: B }), "resume");
    expectNotFound(
      await req("A", "POST", `${run}/continue`, { input: "mine now", user_id: B, stream: false }),
      "continue",
    );
    const into = await req("A", "POST", "/teams/writing-desk/runs", {
      message: "into B's",
      session_id: seed.teamSession,
      stream: false,
    });
    expect(into.status, into.text).toBe(404);
    // B's run and session are as B left them.
    expect((await req("B", "GET", run)).body).toMatchObject({ status: "COMPLETED", content: "B's piece." });
    const listed = await req("B", "GET", `/teams/writing-desk/runs?session_id=${seed.teamSession}`);
    expect((listed.body as unknown as Array<{ run_id: string }>).map((r) => r.run_id)).toEqual([seed.teamRun]);
    expect((await req("B", "POST", `${run}/resume`, {})).status).toBe(200);
  });

  it("A cannot fork B's team session nor read B's team run's checkpoints; B can", async () => {
    const run = `/teams/writing-desk/runs/${seed.teamRun}`;
    const session = `session_id=${seed.teamSession}`;
    for (const q of ["", `?user_id=${B}`])
      expectNotFound(await req("A", "POST", `/teams/writing-desk/sessions/${seed.teamSession}/fork${q}`), `fork${q}`);
    expectNotFound(await req("A", "GET", `${run}/checkpoints?${session}&user_id=${B}`), "checkpoints");
    expectNotFound(await req("A", "GET", `${run}/checkpoints/1?${session}&user_id=${B}`), "snapshot");
    const checkpoints = await req("B", "GET", `${run}/checkpoints?${session}`);
    expect(checkpoints).toMatchObject({ status: 200, body: { run_id: seed.teamRun, session_id: seed.teamSession } });
    expect((await req("B", "GET", `${run}/checkpoints/1?${session}`)).status).toBe(200);
    const fork = await req("B", "POST", `/teams/writing-desk/sessions/${seed.teamSession}/fork`);
    expect(fork).toMatchObject({ status: 200, body: { forked_from_session_id: seed.teamSession } });
    // The copy is B's: A cannot list it either.
    expectNotFound(
      await req("A", "GET", `/teams/writing-desk/runs?session_id=${fork.body.session_id as string}&user_id=${B}`),
      "list B's fork",
    );
  });

  it("A cannot read, list, cancel, resume or continue B's paused workflow run, nor run into B's workflow session", async () => {
    const run = `/workflows/blog-post/runs/${seed.flowRun}`;
    for (const q of ["", `?user_id=${B}`]) expectNotFound(await req("A", "GET", `${run}${q}`), `GET run${q}`);
    expectNotFound(
      await req("A", "GET", `/workflows/blog-post/runs?session_id=${seed.flowSession}&user_id=${B}`),
      "list B's session",
    );
    expectNotFound(await req("A", "POST", `${run}/cancel?user_id=${B}`), "cancel");
    expectNotFound(await req("A", "POST", `${run}/resume`, { user_id: B }), "resume");
    for (const stream of [false, true])
      expectNotFound(
        await req("A", "POST", `${run}/continue`, {
          step_requirements: [{ step_id: seed.stepId, confirmed: false }],
          user_id: B,
          stream,
        }),
        `continue (stream ${stream})`,
      );
    const into = await req("A", "POST", "/workflows/blog-post/runs", {
      message: "into B's",
      session_id: seed.flowSession,
      stream: false,
    });
    expect(into.status, into.text).toBe(404);
    // B's run still waits on B's review, in B's session alone.
    expect((await req("B", "GET", run)).body).toMatchObject({ status: "PAUSED", paused_step_name: "write" });
    const listed = await req("B", "GET", `/workflows/blog-post/runs?session_id=${seed.flowSession}`);
    expect((listed.body as unknown as Array<{ run_id: string }>).map((r) => r.run_id)).toEqual([seed.flowRun]);
  });
});

describe("team and workflow scopes", () => {
  it("per-instance scopes filter /teams and /workflows and guard their routes, as agno's teams:<id>:<action>", async () => {
    const jwt = await isolatedJwt(`tw-scope-${tag}`);
    E = { ...E, ...jwt.env };
    who.A = await jwt.bearer(A, ["teams:other:read", "workflows:blog-post:read"]);
    expect((await req("A", "GET", "/teams")).body).toEqual([]);
    expect((await req("A", "GET", "/teams/writing-desk")).status).toBe(403);
    const flows = (await req("A", "GET", "/workflows")).body as unknown as Array<{ id: string }>;
    expect(flows.map((w) => w.id)).toEqual(["blog-post"]);
    // Reading a workflow is not running it: runs need workflows:<id>:run.
    expect((await req("A", "GET", "/workflows/blog-post")).status).toBe(200);
    expect((await req("A", "POST", "/workflows/blog-post/runs", { message: "x", stream: false })).status).toBe(403);
    expect((await req("A", "GET", `/workflows/blog-post/runs/${seed.flowRun}`)).status).toBe(403);
  });
});
