import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { scriptModel } from "../../../support/model-script.js";
import { until } from "../../../support/until.js";
import { openSocket } from "../../socket-session.js";
import { auth, codeDefinedOnly, form, JSON_BODY, modelEnv, parseSse } from "../../worker-client.js";
import { conformingCall, recordAnswer } from "../check.js";

const post = (body: Record<string, unknown>) => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });
const tag = `conf-tw-${Date.now().toString(36)}`;
const delegate = (member_id: string) => ({
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id, task: "Your part" } }],
});

/**
 * The team and workflow routes, driven with real runs of the example's `writing-desk` team and
 * `blog-post` workflow against the scripted model, each answer checked against agno's model.
 */
export function teamsWorkflowsScenarios(): void {
  it("GET /teams and /teams/{id} are agno's TeamResponse (members as AgentResponse); an unknown team is 404", async () => {
    const list = await conformingCall("/teams");
    // Teams other files store in the shared database are listed too: the code-defined ones are compared.
    expect((await codeDefinedOnly(list.body as Array<{ id: string }>)).map((t) => t.id)).toEqual(["writing-desk"]);
    const one = await conformingCall("/teams/writing-desk");
    expect(one.body.members).toHaveLength(2);
    expect((await conformingCall("/teams/nobody")).status).toBe(404);
  });

  it("team runs: JSON and SSE, listed as TeamRunSchema, read as TeamRunOutput, resumed, cancelled", async () => {
    const { env: e } = await modelEnv([
      delegate("researcher"),
      { text: "Facts." },
      { text: "Piece one." },
      delegate("researcher"),
      { text: "More facts." },
      { text: "Piece two." },
    ]);
    const session = `${tag}-team`;
    const json = await conformingCall(
      "/teams/writing-desk/runs",
      form({ message: "Write", stream: "false", session_id: session, user_id: "conf-tw" }),
      e,
    );
    expect(json.body).toMatchObject({ status: "COMPLETED", content: "Piece one.", member_responses: [{}] });
    const streamed = await conformingCall(
      "/teams/writing-desk/runs",
      post({ message: "Again", session_id: session, user_id: "conf-tw" }),
      e,
    );
    const frames = parseSse(streamed.text);
    expect(frames.at(-1)?.event).toBe("TeamRunCompleted");
    const listed = await conformingCall(`/teams/writing-desk/runs?session_id=${session}`, {}, e);
    expect(listed.body).toHaveLength(2);
    const byId = await conformingCall(`/teams/writing-desk/runs/${json.body.run_id}?session_id=${session}`, {}, e);
    expect(byId.body.run_id).toBe(json.body.run_id);
    const resumed = await conformingCall(
      `/teams/writing-desk/runs/${frames[0]!.data.run_id}/resume`,
      post({ last_event_index: 0 }),
    );
    expect(parseSse(resumed.text).at(-1)?.event).toBe("TeamRunCompleted");
    expect((await conformingCall(`/teams/writing-desk/runs/${json.body.run_id}/resume`, post({}))).status).toBe(409);
    const cancelled = await conformingCall(`/teams/writing-desk/runs/${json.body.run_id}/cancel`, { method: "POST" });
    expect(cancelled.body).toEqual({ run_id: json.body.run_id, cancelled: false });
  });

  it("a team run in the background is accepted (202) and polled to its end", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [delegate("researcher"), { text: "Q facts." }, { text: "Q piece." }], {
      channel: "queue",
    });
    const accepted = await conformingCall(
      "/teams/writing-desk/runs",
      post({ message: "Later", background: true, stream: false }),
    );
    expect(accepted.status).toBe(202);
    await until(
      () => conformingCall(`/teams/writing-desk/runs/${accepted.body.run_id}`).then((r) => r.body),
      (r) => r.status === "COMPLETED",
      "the background team run",
    );
  });

  it("a team run paused by a member's confirmation continues (TeamRunOutput)", async () => {
    const { env: e } = await modelEnv([
      delegate("writer"),
      { toolCalls: [{ id: "conf-pub", name: "publish_draft", arguments: { title: "T" } }] },
      { text: "Published." },
      { text: "Done." },
    ]);
    const paused = await conformingCall("/teams/writing-desk/runs", post({ message: "Publish", stream: false }), e);
    expect(paused.body.status).toBe("PAUSED");
    const done = await conformingCall(
      `/teams/writing-desk/runs/${paused.body.run_id}/continue`,
      post({ requirements: [{ id: "conf-pub", confirmed: true }], stream: false }),
      e,
    );
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "Done." });
  });

  it("a team run's checkpoints, the run cut at one (TeamRunOutput), and its session forked", async () => {
    const { env: e } = await modelEnv([delegate("researcher"), { text: "Facts." }, { text: "Piece." }]);
    const session = `${tag}-team-timeline`;
    const run = await conformingCall(
      "/teams/writing-desk/runs",
      post({ message: "Write", stream: false, session_id: session }),
      e,
    );
    const runId = run.body.run_id as string;
    const count = run.body.messages.length as number;
    const listed = await conformingCall(`/teams/writing-desk/runs/${runId}/checkpoints?session_id=${session}`);
    expect(listed.body).toEqual({
      run_id: runId,
      session_id: session,
      checkpoints: [expect.objectContaining({ checkpoint_id: "1", message_index: count, reason: "end" })],
    });
    // Cut between the delegation and its result, the snapshot snaps back before the call.
    const userAt = run.body.messages.findIndex((m: { role: string }) => m.role === "user") + 1;
    const snap = await conformingCall(
      `/teams/writing-desk/runs/${runId}/checkpoints/${userAt + 1}?session_id=${session}`,
    );
    expect(snap.body.checkpoint).toMatchObject({ message_index: userAt + 1, reason: "snapshot", checkpoint_id: null });
    expect(snap.body.snapshot).toMatchObject({ run_id: runId, team_id: "writing-desk" });
    expect(snap.body.snapshot.messages).toHaveLength(userAt);
    const path = `/teams/writing-desk/runs/${runId}/checkpoints`;
    expect((await conformingCall(`${path}/${count + 1}?session_id=${session}`)).status).toBe(400);
    expect((await conformingCall(`${path}?session_id=${tag}-elsewhere`)).status).toBe(404);
    expect((await conformingCall(path)).status).toBe(422);

    const forked = await conformingCall(`/teams/writing-desk/sessions/${session}/fork`, { method: "POST" });
    expect(forked.body).toEqual({ session_id: expect.any(String), forked_from_session_id: session });
    const copies = await conformingCall(`/teams/writing-desk/runs?session_id=${forked.body.session_id}`);
    expect(copies.body).toHaveLength(1);
    expect(copies.body[0]).toMatchObject({ content: "Piece." });
    expect(copies.body[0].run_id).not.toBe(runId);
    // An agent's fork route does not fork a team's session, nor the team's an unknown one.
    expect((await conformingCall(`/agents/assistant/sessions/${session}/fork`, { method: "POST" })).status).toBe(404);
    expect((await conformingCall(`/teams/writing-desk/sessions/${tag}-none/fork`, { method: "POST" })).status).toBe(
      404,
    );
  });

  it("GET /ws runs a team and GET /workflows/ws starts a workflow, in agno's frames; a plain GET is told to upgrade", async () => {
    const { env: e } = await modelEnv([delegate("researcher"), { text: "Facts." }, { text: "Piece." }, { text: "R." }]);
    const ws = await openSocket(e, auth);
    recordAnswer("GET", "/ws", 101);
    const team = await ws.ask({ action: "run", team_id: "writing-desk", message: "Write" });
    const done = await ws.until((f) => f.request_id === team.id && f.event === "TeamRunCompleted");
    expect(done).toMatchObject({ content: "Piece.", event_index: ws.of(team.id).length - 1 });
    await ws.close();
    const flows = await openSocket(e, auth, "/workflows/ws");
    recordAnswer("GET", "/workflows/ws", 101);
    expect(await flows.until((f) => f.event === "connected")).toEqual({
      event: "connected",
      message: "Connected to AgentOS.",
      requires_auth: false,
    });
    flows.send({ action: "start-workflow", workflow_id: "blog-post", message: "Tides" });
    expect(await flows.until((f) => f.event === "WorkflowPaused")).toMatchObject({ workflow_id: "blog-post" });
    await flows.close();
    expect((await conformingCall("/workflows/ws")).status).toBe(426);
  });

  it("GET /workflows and /workflows/{id} are agno's WorkflowResponse with steps; an unknown workflow is 404", async () => {
    const list = await conformingCall("/workflows");
    expect((await codeDefinedOnly(list.body as Array<{ id: string }>)).map((w) => w.id)).toEqual(["blog-post"]);
    const one = await conformingCall("/workflows/blog-post");
    expect(one.body.steps.map((s: { name: string }) => s.name)).toEqual(["research", "write"]);
    expect((await conformingCall("/workflows/nobody")).status).toBe(404);
  });

  it("workflow runs: paused at the review, continued (JSON and SSE), listed, read, resumed, cancelled", async () => {
    const { env: e } = await modelEnv([{ text: "Facts." }, { text: "The post." }, { text: "More facts." }]);
    const session = `${tag}-flow`;
    const paused = await conformingCall(
      "/workflows/blog-post/runs",
      form({ message: "Tides", stream: "false", session_id: session }),
      e,
    );
    expect(paused.body.status).toBe("PAUSED");
    const step_id = paused.body.step_requirements[0].step_id as string;
    const done = await conformingCall(
      `/workflows/blog-post/runs/${paused.body.run_id}/continue`,
      post({ step_requirements: [{ step_id, confirmed: true }], stream: false }),
      e,
    );
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "The post." });

    const streamed = await conformingCall(
      "/workflows/blog-post/runs",
      post({ message: "Rain", session_id: session }),
      e,
    );
    const frames = parseSse(streamed.text);
    expect(frames.at(-1)?.event).toBe("WorkflowPaused");
    const runId = frames[0]!.data.run_id as string;
    const read = await conformingCall(`/workflows/blog-post/runs/${runId}?session_id=${session}`, {}, e);
    const rejected = await conformingCall(
      `/workflows/blog-post/runs/${runId}/continue`,
      post({ step_requirements: [{ step_id: read.body.step_requirements.at(-1).step_id, confirmed: false }] }),
      e,
    );
    expect(parseSse(rejected.text).at(-1)?.event).toBe("WorkflowCompleted");
    const listed = await conformingCall(`/workflows/blog-post/runs?session_id=${session}`, {}, e);
    expect(listed.body).toHaveLength(2);
    const resumed = await conformingCall(`/workflows/blog-post/runs/${runId}/resume`, post({}));
    expect(parseSse(resumed.text).at(-1)?.event).toBe("WorkflowCompleted");
    const cancelled = await conformingCall(`/workflows/blog-post/runs/${runId}/cancel`, { method: "POST" });
    expect(cancelled.body).toEqual({ run_id: runId, cancelled: false });
  });

  it("a workflow run in the background is accepted (202)", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [{ text: "Q research." }], { channel: "queue" });
    const accepted = await conformingCall(
      "/workflows/blog-post/runs",
      post({ message: "Later", background: true, stream: false }),
    );
    expect(accepted.status).toBe(202);
    await until(
      () => conformingCall(`/workflows/blog-post/runs/${accepted.body.run_id}`).then((r) => r.body),
      (r) => r.status === "PAUSED",
      "the background workflow run",
    );
  });
}
