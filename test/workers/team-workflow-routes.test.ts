import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scriptModel, type Turn } from "../support/model-script.js";
import { until } from "../support/until.js";
import { call, codeDefinedOnly, form, JSON_BODY, modelEnv, parseSse, send } from "./worker-client.js";

/*
 * The team and workflow routes of the example Worker (the `writing-desk` team: a researcher and a
 * writer under a leader; the `blog-post` workflow: research, then a person's review, then
 * writing), driven over HTTP against the scripted model.
 */

const tag = `tw-${Date.now().toString(36)}`;
const post = (body: Record<string, unknown>) => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });
const delegate = (member_id: string, id?: string) => ({
  toolCalls: [
    { ...(id ? { id } : {}), name: "delegate_task_to_member", arguments: { member_id, task: "Do your part" } },
  ],
});
/** The queue object's model: the scripted server's "queue" channel (see vitest.config.ts). */
const queueModel = (turns: Turn[]) => scriptModel(env.MODEL_SERVER_URL, turns, { channel: "queue" });

describe("team routes", () => {
  it("lists the team with its members as agno's TeamResponse, in /teams, /config and /info; an unknown team is 404", async () => {
    const { env: e } = await modelEnv([]);
    const teams = await call("/teams", {}, e);
    expect(teams.status).toBe(200);
    const codeTeams = await codeDefinedOnly(teams.body as Array<{ id: string }>, e);
    expect(codeTeams).toHaveLength(1);
    const desk = codeTeams[0] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(desk).toMatchObject({
      id: "writing-desk",
      name: "Writing desk",
      db_id: "default",
      mode: "coordinate",
      model: { model: "gpt-test", provider: "openai" },
      is_factory: false,
      is_component: false,
    });
    expect(desk.members.map((m: { id: string }) => m.id)).toEqual(["researcher", "writer"]);
    expect(desk.members[1].tools.tools[0]).toMatchObject({ name: "publish_draft", requires_confirmation: true });
    expect((await call("/teams/writing-desk", {}, e)).body).toEqual(desk);
    expect(await call("/teams/nobody", {}, e)).toMatchObject({
      status: 404,
      body: { detail: "team nobody not found" },
    });
    const config = (await call("/config", {}, e)).body;
    expect(await codeDefinedOnly(config.teams, e)).toEqual([
      {
        id: "writing-desk",
        name: "Writing desk",
        description: expect.any(String),
        db_id: "default",
        mode: "coordinate",
        model: { id: "gpt-test", provider: "openai" },
      },
    ]);
    expect(await codeDefinedOnly(config.workflows, e)).toEqual([
      {
        id: "blog-post",
        name: "Blog post",
        description: expect.any(String),
        db_id: "default",
        is_factory: false,
        is_component: false,
      },
    ]);
    expect((await call("/info", {}, e)).body).toMatchObject({ agent_count: 1, team_count: 1, workflow_count: 1 });
  });

  it("runs as JSON (TeamRunOutput with the member run), lists the team's own runs and reads one by id", async () => {
    const { env: e, script } = await modelEnv([
      delegate("researcher"),
      { text: "Fact one. Fact two." },
      { text: "A short piece." },
    ]);
    const session = `${tag}-json`;
    const run = await call(
      "/teams/writing-desk/runs",
      form({ message: "Write about tides", stream: "false", session_id: session, user_id: "tw-ann" }),
      e,
    );
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      team_id: "writing-desk",
      team_name: "Writing desk",
      session_id: session,
      user_id: "tw-ann",
      status: "COMPLETED",
      content: "A short piece.",
      content_type: "str",
      member_responses: [{ agent_id: "researcher", status: "COMPLETED", content: "Fact one. Fact two." }],
    });
    expect(run.body.member_responses[0].parent_run_id).toBe(run.body.run_id);
    expect(await script.requests()).toHaveLength(3);

    // The session holds the member's run too; the listing is the team's own runs only.
    const listed = await call(`/teams/writing-desk/runs?session_id=${session}`, {}, e);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ run_id: run.body.run_id, team_id: "writing-desk", status: "COMPLETED" }),
    ]);
    expect((await call(`/teams/writing-desk/runs?session_id=${session}&status=ERROR`, {}, e)).body).toEqual([]);
    expect((await call(`/teams/writing-desk/runs?session_id=${tag}-none`, {}, e)).status).toBe(404);
    expect((await call(`/teams/writing-desk/runs`, {}, e)).status).toBe(422);

    const byId = await call(`/teams/writing-desk/runs/${run.body.run_id}?session_id=${session}`, {}, e);
    expect(byId.body).toMatchObject({ run_id: run.body.run_id, content: "A short piece.", status: "COMPLETED" });
    expect((await call(`/teams/writing-desk/runs/${run.body.run_id}?session_id=${tag}-other`, {}, e)).status).toBe(404);
    // The member's run is not the team's: it is not found under the team.
    const memberRun = run.body.member_responses[0].run_id;
    expect((await call(`/teams/writing-desk/runs/${memberRun}`, {}, e)).status).toBe(404);
    expect((await call(`/teams/nobody/runs/${run.body.run_id}`, {}, e)).status).toBe(404);
    // A finished run is not cancelled.
    expect(await call(`/teams/writing-desk/runs/${run.body.run_id}/cancel`, { method: "POST" }, e)).toMatchObject({
      status: 200,
      body: { run_id: run.body.run_id, cancelled: false },
    });
  });

  it("streams team events numbered as agent SSE is, the member's between them, and /resume replays them", async () => {
    const { env: e } = await modelEnv([delegate("researcher"), { text: "Facts." }, { text: "Streamed piece." }]);
    const res = await send("/teams/writing-desk/runs", post({ message: "Write about rain", user_id: "tw-ann" }), e);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const frames = parseSse(await res.text());
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i));
    expect(frames[0]!.event).toBe("TeamRunStarted");
    expect(frames.at(-1)).toMatchObject({ event: "TeamRunCompleted", data: { content: "Streamed piece." } });
    const teamRun = frames[0]!.data.run_id as string;
    const member = frames.filter((f) => f.data.agent_id === "researcher").map((f) => f.event);
    expect(member).toEqual(expect.arrayContaining(["RunStarted", "RunCompleted"]));
    expect(frames.some((f) => f.event === "TeamToolCallStarted")).toBe(true);

    const resumed = await send(`/teams/writing-desk/runs/${teamRun}/resume`, post({ last_event_index: 0 }), e);
    const replay = parseSse(await resumed.text());
    expect(replay.map((f) => f.id)).toEqual(frames.slice(1).map((f) => f.id));
    expect(replay.at(-1)?.event).toBe("TeamRunCompleted");
    expect((await call(`/teams/writing-desk/runs/${tag}-missing/resume`, post({}), e)).status).toBe(404);
  });

  it("a member's tool needing confirmation pauses the team run; continue goes on with the person's decision", async () => {
    const { env: e } = await modelEnv([
      delegate("writer"),
      { toolCalls: [{ id: "pub-1", name: "publish_draft", arguments: { title: "Tides" } }] },
      { text: "Published." },
      { text: "The piece is out." },
    ]);
    const paused = await call(
      "/teams/writing-desk/runs",
      post({ message: "Write and publish", stream: false, user_id: "tw-ann" }),
      e,
    );
    expect(paused.body).toMatchObject({
      status: "PAUSED",
      requirements: [{ id: "pub-1", member_agent_id: "writer", tool_execution: { tool_name: "publish_draft" } }],
      member_responses: [{ agent_id: "writer", status: "PAUSED" }],
    });
    const runId = paused.body.run_id as string;
    const cont = () =>
      send(
        `/teams/writing-desk/runs/${runId}/continue`,
        post({ requirements: [{ id: "pub-1", confirmed: true }], user_id: "tw-ann" }),
        e,
      );
    const res = await cont();
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    expect(frames.at(-1)).toMatchObject({ event: "TeamRunCompleted", data: { content: "The piece is out." } });
    // Numbered after the paused run's stored events (none: it answered as JSON), from 0.
    expect(frames[0]!.id).toBe(0);
    const done = await call(`/teams/writing-desk/runs/${runId}`, {}, e);
    expect(done.body).toMatchObject({ status: "COMPLETED", member_responses: [{ status: "COMPLETED" }] });
  });

  it("a continue of an unknown run or team is 404, as is a cancel of an unknown team's run", async () => {
    const { env: e } = await modelEnv([]);
    const body = post({ requirements: [{ id: "x", confirmed: true }], stream: false });
    expect((await call(`/teams/writing-desk/runs/${tag}-nope/continue`, body, e)).status).toBe(404);
    expect((await call(`/teams/nobody/runs/${tag}-nope/continue`, body, e)).status).toBe(404);
    expect((await call(`/teams/nobody/runs/${tag}-nope/cancel`, { method: "POST" }, e)).status).toBe(404);
  });

  it("runs in the background through the durable queue: 202, then the queue runs the team", async () => {
    const script = await queueModel([delegate("researcher"), { text: "Queued facts." }, { text: "Queued piece." }]);
    const accepted = await call(
      "/teams/writing-desk/runs",
      post({ message: "Write later", background: true, stream: false, user_id: "tw-bg" }),
    );
    expect(accepted).toMatchObject({
      status: 202,
      body: {
        status: "PENDING",
        run_id: expect.any(String),
        session_id: expect.any(String),
        job_id: expect.any(String),
      },
    });
    const run = await until(
      () => call(`/teams/writing-desk/runs/${accepted.body.run_id}`).then((r) => r.body),
      (r) => r.status === "COMPLETED",
      "the team run to complete",
    );
    expect(run).toMatchObject({
      team_id: "writing-desk",
      content: "Queued piece.",
      user_id: "tw-bg",
      member_responses: [{ agent_id: "researcher", content: "Queued facts." }],
    });
    expect(await script.requests()).toHaveLength(3);
  });

  it("streams a background team run's events as the queue runs it", async () => {
    await queueModel([delegate("researcher"), { text: "Facts, queued." }, { text: "Piece, queued." }]);
    const res = await send(
      "/teams/writing-desk/runs",
      post({ message: "Write later, watch", background: true, user_id: "tw-bg" }),
    );
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    expect(frames[0]!.event).toBe("TeamRunStarted");
    expect(frames.at(-1)).toMatchObject({ event: "TeamRunCompleted", data: { content: "Piece, queued." } });
  });
});

describe("workflow routes", () => {
  it("lists the workflow with its steps as agno's WorkflowResponse; an unknown workflow is 404", async () => {
    const { env: e } = await modelEnv([]);
    const list = await call("/workflows", {}, e);
    expect(list.status).toBe(200);
    const code = await codeDefinedOnly(list.body as Array<{ id: string }>, e);
    expect(code).toHaveLength(1);
    const flow = code[0] as Record<string, unknown>;
    expect(flow).toMatchObject({
      id: "blog-post",
      name: "Blog post",
      db_id: "default",
      workflow_agent: false,
      is_factory: false,
      is_component: false,
      steps: [
        { name: "research", description: "Gather the key facts", type: "Step", agent: { id: "researcher" } },
        { name: "write", type: "Step", agent: { id: "writer" } },
      ],
    });
    expect((await call("/workflows/blog-post", {}, e)).body).toEqual(flow);
    expect(await call("/workflows/nobody", {}, e)).toMatchObject({
      status: 404,
      body: { detail: "workflow nobody not found" },
    });
  });

  it("pauses at the review (JSON), continues with the confirmation, lists and reads the run", async () => {
    const { env: e } = await modelEnv([{ text: "Tides: two a day." }, { text: "A post about tides." }]);
    const session = `${tag}-flow`;
    const paused = await call(
      "/workflows/blog-post/runs",
      form({ message: "Tides", stream: "false", session_id: session, user_id: "tw-ann" }),
      e,
    );
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      workflow_id: "blog-post",
      workflow_name: "Blog post",
      session_id: session,
      status: "PAUSED",
      paused_step_name: "write",
      paused_step_index: 1,
      pause_kind: "step",
      step_requirements: [{ step_name: "write", requires_confirmation: true }],
      step_results: [{ step_name: "research", content: "Tides: two a day." }],
    });
    expect(paused.body).not.toHaveProperty("session_state");
    const runId = paused.body.run_id as string;
    const stepId = paused.body.step_requirements[0].step_id as string;

    const done = await call(
      `/workflows/blog-post/runs/${runId}/continue`,
      form({ step_requirements: JSON.stringify([{ step_id: stepId, confirmed: true }]), stream: "false" }),
      e,
    );
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ run_id: runId, status: "COMPLETED", content: "A post about tides." });
    // Continued once: a second continue finds it no longer paused.
    const again = await call(
      `/workflows/blog-post/runs/${runId}/continue`,
      post({ step_requirements: [{ step_id: stepId, confirmed: true }], stream: false }),
      e,
    );
    expect(again.status).toBe(409);

    const listed = await call(`/workflows/blog-post/runs?session_id=${session}`, {}, e);
    expect(listed.body).toEqual([
      expect.objectContaining({ run_id: runId, workflow_id: "blog-post", status: "COMPLETED" }),
    ]);
    expect((await call(`/workflows/blog-post/runs?session_id=${session}&status=PAUSED`, {}, e)).body).toEqual([]);
    expect((await call(`/workflows/blog-post/runs?session_id=${tag}-none`, {}, e)).status).toBe(404);
    const byId = await call(`/workflows/blog-post/runs/${runId}?session_id=${session}`, {}, e);
    expect(byId.body).toMatchObject({ run_id: runId, status: "COMPLETED", step_executor_runs: expect.any(Array) });
    expect(byId.body.step_executor_runs.map((r: { agent_id: string }) => r.agent_id)).toEqual(["researcher", "writer"]);
    expect((await call(`/workflows/blog-post/runs/${tag}-none`, {}, e)).status).toBe(404);
    expect((await call(`/workflows/nobody/runs/${runId}`, {}, e)).status).toBe(404);
  });

  it("streams its events numbered, pauses, and a streamed continue that rejects the review skips the step", async () => {
    const { env: e, script } = await modelEnv([{ text: "Rain falls." }]);
    const res = await send("/workflows/blog-post/runs", post({ message: "Rain", user_id: "tw-ann" }), e);
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i));
    expect(frames[0]!.event).toBe("WorkflowStarted");
    expect(frames.map((f) => f.event)).toEqual(expect.arrayContaining(["StepStarted", "StepCompleted", "StepPaused"]));
    expect(frames.at(-1)!.event).toBe("WorkflowPaused");
    const runId = frames[0]!.data.run_id as string;
    const stepId = (frames.find((f) => f.event === "StepPaused")!.data.step_id ??
      (frames.at(-1)!.data as { step_requirements?: Array<{ step_id: string }> }).step_requirements?.[0]
        ?.step_id) as string;
    const read = await call(`/workflows/blog-post/runs/${runId}`, {}, e);
    const active = read.body.step_requirements.at(-1).step_id as string;
    expect(stepId).toBe(active);

    const cont = await send(
      `/workflows/blog-post/runs/${runId}/continue`,
      post({ step_requirements: [{ step_id: active, confirmed: false }] }),
      e,
    );
    expect(cont.status).toBe(200);
    const more = parseSse(await cont.text());
    // Numbered after the events the run's log already holds.
    expect(more[0]!.id).toBe(frames.length);
    expect(more.at(-1)!.event).toBe("WorkflowCompleted");
    expect(await script.requests()).toHaveLength(1);
    expect((await call(`/workflows/blog-post/runs/${runId}`, {}, e)).body.status).toBe("COMPLETED");

    const replay = parseSse(await (await send(`/workflows/blog-post/runs/${runId}/resume`, post({}), e)).text());
    expect(replay.map((f) => f.id)).toEqual([...frames, ...more].map((f) => f.id));
  });

  it("refuses media and a continue without the decision; 404 for unknown runs", async () => {
    const { env: e } = await modelEnv([]);
    const media = await call(
      "/workflows/blog-post/runs",
      post({ message: "x", media: [{ mime_type: "text/plain", data: "aGk=" }] }),
      e,
    );
    expect(media).toMatchObject({ status: 422, body: { detail: "body media: workflows take none" } });
    const missing = post({ step_requirements: [{ step_id: "s", confirmed: true }], stream: false });
    expect((await call(`/workflows/blog-post/runs/${tag}-none/continue`, missing, e)).status).toBe(404);
    expect((await call(`/workflows/blog-post/runs/${tag}-none/cancel`, { method: "POST" }, e)).status).toBe(404);
    expect((await call(`/workflows/blog-post/runs/${tag}-none/resume`, post({}), e)).status).toBe(404);
  });

  it("runs in the background through the durable queue, to its review", async () => {
    await queueModel([{ text: "Queued research." }]);
    const accepted = await call(
      "/workflows/blog-post/runs",
      post({ message: "Later", background: true, stream: false, user_id: "tw-bg" }),
    );
    expect(accepted).toMatchObject({ status: 202, body: { status: "PENDING", job_id: expect.any(String) } });
    const run = await until(
      () => call(`/workflows/blog-post/runs/${accepted.body.run_id}`).then((r) => r.body),
      (r) => r.status === "PAUSED",
      "the workflow run to reach its review",
    );
    expect(run).toMatchObject({
      workflow_id: "blog-post",
      user_id: "tw-bg",
      step_results: [{ step_name: "research", content: "Queued research." }],
    });
  });

  it("cancels a running workflow run, from another request, while the queue runs it", async () => {
    await queueModel([{ text: "Slow research.", delayMs: 3000 }]);
    const accepted = await call(
      "/workflows/blog-post/runs",
      post({ message: "Slow", background: true, stream: false }),
    );
    const runId = accepted.body.run_id as string;
    const read = () => call(`/workflows/blog-post/runs/${runId}`).then((r) => r.body);
    await until(read, (r) => r.status === "RUNNING", "the workflow run to start");
    expect((await call(`/workflows/blog-post/runs/${runId}/cancel`, { method: "POST" })).body).toEqual({
      run_id: runId,
      cancelled: true,
    });
    await until(read, (r) => r.status === "CANCELLED", "the workflow run to be cancelled");
  });
});

describe("team cancel", () => {
  it("cancels a running team run", async () => {
    await queueModel([{ text: "Thinking slowly.", delayMs: 3000 }]);
    const accepted = await call("/teams/writing-desk/runs", post({ message: "Slow", background: true, stream: false }));
    const runId = accepted.body.run_id as string;
    const read = () => call(`/teams/writing-desk/runs/${runId}`).then((r) => r.body);
    await until(read, (r) => r.status === "RUNNING", "the team run to start");
    expect((await call(`/teams/writing-desk/runs/${runId}/cancel`, { method: "POST" })).body).toEqual({
      run_id: runId,
      cancelled: true,
    });
    await until(read, (r) => r.status === "CANCELLED", "the team run to be cancelled");
  });
});

describe("schedules of teams and workflows", () => {
  it("a schedule of the team's runs endpoint, triggered, runs the team through the queue", async () => {
    await queueModel([delegate("researcher"), { text: "Scheduled facts." }, { text: "Scheduled piece." }]);
    const created = await call(
      "/schedules",
      post({
        name: `${tag}-desk`,
        cron_expr: "0 3 29 2 *", // valid, but not due while the test runs
        endpoint: "/teams/writing-desk/runs",
        payload: { message: "the weekly piece" },
      }),
    );
    expect(created.status).toBe(201);
    const attempt = await call(`/schedules/${created.body.id}/trigger`, { method: "POST" });
    expect(attempt.body).toMatchObject({ status: "running", run_id: expect.any(String) });
    const run = await until(
      () => call(`/teams/writing-desk/runs/${attempt.body.run_id}`).then((r) => r.body),
      (r) => r.status === "COMPLETED",
      "the scheduled team run",
    );
    expect(run).toMatchObject({ team_id: "writing-desk", content: "Scheduled piece." });
    expect((await call(`/schedules/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
  });
});
