import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { scriptModel } from "../../../support/model-script.js";
import { until } from "../../../support/until.js";
import { form, JSON_BODY, modelEnv, parseSse } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const post = (body: Record<string, unknown>) => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });
const tag = `conf-agents-${Date.now().toString(36)}`;
const sid = (name: string) => `${tag}-${name}`;

/**
 * The agent routes (`/agents`, runs, continue, resume, cancel, checkpoints, session fork), driven
 * with real runs of the example agent against the scripted model, each answer checked against
 * agno's model for it.
 */
export function agentsScenarios(): void {
  it("GET /agents and GET /agents/{id} are agno's AgentResponse; an unknown agent is 404", async () => {
    const list = await conformingCall("/agents");
    expect(list.status).toBe(200);
    expect(list.body.map((a: { id: string }) => a.id)).toContain("assistant");
    const one = await conformingCall("/agents/assistant");
    expect(one.body).toMatchObject({ id: "assistant", is_factory: false, tools: { tools: expect.any(Array) } });
    expect((await conformingCall("/agents/nobody")).status).toBe(404);
  });

  it("a run as JSON and streamed; its listing as RunSchema and its RunOutput by id", async () => {
    const { env: e } = await modelEnv([{ text: "First answer." }, { text: "Second, streamed.", chunkSize: 4 }]);
    const session = sid("runs");
    const json = await conformingCall(
      "/agents/assistant/runs",
      form({ message: "hello there", stream: "false", session_id: session, user_id: "conf-ann" }),
      e,
    );
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ status: "COMPLETED", content: "First answer.", session_id: session });
    const streamed = await conformingCall(
      "/agents/assistant/runs",
      post({ message: "and again", session_id: session, user_id: "conf-ann" }),
      e,
    );
    expect(streamed.status).toBe(200);
    const frames = parseSse(streamed.text);
    expect(frames.at(-1)?.event).toBe("RunCompleted");
    const streamedRun = frames[0]!.data.run_id as string;

    const listed = await conformingCall(`/agents/assistant/runs?session_id=${session}`, {}, e);
    expect(listed.body.map((r: { run_id: string }) => r.run_id)).toEqual([json.body.run_id, streamedRun]);
    expect(listed.body[0]).toMatchObject({
      run_input: "hello there",
      run_response_format: "text",
      user_id: "conf-ann",
      created_at: expect.stringMatching(/Z$/),
    });
    const completed = await conformingCall(`/agents/assistant/runs?session_id=${session}&status=COMPLETED`, {}, e);
    expect(completed.body).toHaveLength(2);
    expect((await conformingCall(`/agents/assistant/runs?session_id=${session}&status=ERROR`, {}, e)).body).toEqual([]);
    expect((await conformingCall(`/agents/assistant/runs`, {}, e)).status).toBe(422);
    expect((await conformingCall(`/agents/assistant/runs?session_id=${sid("none")}`, {}, e)).status).toBe(404);

    const byId = await conformingCall(`/agents/assistant/runs/${streamedRun}?session_id=${session}`, {}, e);
    expect(byId.body).toMatchObject({ run_id: streamedRun, content: "Second, streamed." });
    expect((await conformingCall(`/agents/assistant/runs/${streamedRun}?session_id=${sid("other")}`)).status).toBe(404);
    expect((await conformingCall(`/agents/assistant/runs/${sid("no-run")}`)).status).toBe(404);

    // A streamed run's events can be read again; a run answered as JSON has none to read.
    const resumed = await conformingCall(`/agents/assistant/runs/${streamedRun}/resume`, post({ last_event_index: 0 }));
    expect(resumed.status).toBe(200);
    expect(parseSse(resumed.text).at(-1)?.event).toBe("RunCompleted");
    expect((await conformingCall(`/agents/assistant/runs/${json.body.run_id}/resume`, post({}))).status).toBe(409);

    const cancelled = await conformingCall(`/agents/assistant/runs/${json.body.run_id}/cancel`, { method: "POST" });
    expect(cancelled.body).toEqual({ run_id: json.body.run_id, cancelled: false });
  });

  it("a paused run continues with agno's tools list; a finished one goes on in a new run (follow-up, fork, regenerate)", async () => {
    const { env: e } = await modelEnv([
      { toolCalls: [{ id: "note-1", name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
      { text: "You asked me to save a note." },
      { text: "Saved it, again in other words." },
      { text: "From the question, streamed." },
    ]);
    const session = sid("hitl");
    const paused = await conformingCall(
      "/agents/assistant/runs",
      form({ message: "remember to buy milk", stream: "false", session_id: session }),
      e,
    );
    expect(paused.body).toMatchObject({ status: "PAUSED", requirements: [{ id: "note-1" }] });
    const runId = paused.body.run_id as string;
    // Without its requirements resolved, the paused run cannot go on.
    expect((await conformingCall(`/agents/assistant/runs/${runId}/continue`, post({ stream: false }), e)).status).toBe(
      400,
    );
    const tools = paused.body.tools.map((t: Record<string, unknown>) => ({ ...t, confirmed: true }));
    const done = await conformingCall(
      `/agents/assistant/runs/${runId}/continue`,
      form({ tools: JSON.stringify(tools), session_id: session, stream: "false" }),
      e,
    );
    expect(done.body).toMatchObject({ run_id: runId, status: "COMPLETED", content: "Saved your note." });

    // A follow-up to a finished run is a new run beside it, the original untouched.
    const followUp = await conformingCall(
      `/agents/assistant/runs/${runId}/continue`,
      post({ input: "what did I ask?", stream: false }),
      e,
    );
    expect(followUp.body).toMatchObject({
      status: "COMPLETED",
      forked_from_run_id: runId,
      content: "You asked me to save a note.",
    });
    expect(followUp.body.run_id).not.toBe(runId);
    expect(followUp.body.messages.at(-2)).toMatchObject({ role: "user", content: "what did I ask?" });

    const regenerated = await conformingCall(
      `/agents/assistant/runs/${runId}/continue`,
      post({ regenerate: true, stream: false }),
      e,
    );
    expect(regenerated.body).toMatchObject({ regenerated_from: runId, content: "Saved it, again in other words." });
    const original = await conformingCall(`/agents/assistant/runs/${runId}?session_id=${session}`);
    expect(original.body.status).toBe("REGENERATED");

    // From the user's question, streamed: the fork's own events.
    const fromQuestion = await conformingCall(
      `/agents/assistant/runs/${followUp.body.run_id}/continue`,
      form({ continue_from: "last_user", fork: "true" }),
      e,
    );
    const frames = parseSse(fromQuestion.text);
    expect(frames[0]!.event).toBe("RunContinued");
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "From the question, streamed." } });
    expect(frames[0]!.data.run_id).not.toBe(followUp.body.run_id);

    const listed = await conformingCall(`/agents/assistant/runs?session_id=${session}`);
    expect(listed.body.map((r: { run_id: string }) => r.run_id)).toEqual(
      expect.arrayContaining([runId, followUp.body.run_id, regenerated.body.run_id, frames[0]!.data.run_id]),
    );
    expect(listed.body.find((r: { run_id: string }) => r.run_id === followUp.body.run_id)).toMatchObject({
      forked_from_run_id: runId,
    });

    const badFrom = await conformingCall(
      `/agents/assistant/runs/${runId}/continue`,
      post({ continue_from: 999, stream: false }),
    );
    expect(badFrom.status).toBe(400);
    expect(
      (await conformingCall(`/agents/assistant/runs/${sid("gone")}/continue`, post({ stream: false }))).status,
    ).toBe(404);
  });

  it("a run's checkpoints and the run cut at one of them", async () => {
    const { env: e } = await modelEnv([
      { toolCalls: [{ id: "dice-1", name: "roll_dice", arguments: { count: 1, sides: 6 } }] },
      { text: "You rolled it." },
    ]);
    const session = sid("checkpoints");
    const run = await conformingCall(
      "/agents/assistant/runs",
      post({ message: "roll a die", stream: false, session_id: session }),
      e,
    );
    const runId = run.body.run_id as string;
    const count = run.body.messages.length as number;
    const listed = await conformingCall(`/agents/assistant/runs/${runId}/checkpoints?session_id=${session}`);
    expect(listed.body).toEqual({
      run_id: runId,
      session_id: session,
      checkpoints: [
        expect.objectContaining({ checkpoint_id: "1", message_index: count, reason: "end", is_latest: true }),
      ],
    });
    // Cut inside the tool exchange, the snapshot snaps back before the call.
    const userAt = run.body.messages.findIndex((m: { role: string }) => m.role === "user") + 1;
    const snap = await conformingCall(
      `/agents/assistant/runs/${runId}/checkpoints/${userAt + 1}?session_id=${session}`,
    );
    expect(snap.body.checkpoint).toMatchObject({ message_index: userAt + 1, reason: "snapshot", checkpoint_id: null });
    expect(snap.body.snapshot.messages).toHaveLength(userAt);
    expect(snap.body.snapshot.tools).toEqual([]);
    const end = await conformingCall(`/agents/assistant/runs/${runId}/checkpoints/${count}?session_id=${session}`);
    expect(end.body.checkpoint.checkpoint_id).toBe("1");
    expect(
      (await conformingCall(`/agents/assistant/runs/${runId}/checkpoints/${count + 1}?session_id=${session}`)).status,
    ).toBe(400);
    expect((await conformingCall(`/agents/assistant/runs/${runId}/checkpoints?session_id=${sid("x")}`)).status).toBe(
      404,
    );
    expect((await conformingCall(`/agents/assistant/runs/${runId}/checkpoints`)).status).toBe(422);
  });

  it("POST /agents/{id}/sessions/{session_id}/fork copies the session under new ids", async () => {
    const { env: e } = await modelEnv([{ text: "Kept in both." }]);
    const session = sid("fork-src");
    const run = await conformingCall(
      "/agents/assistant/runs",
      post({ message: "fork me", stream: false, session_id: session }),
      e,
    );
    const forked = await conformingCall(`/agents/assistant/sessions/${session}/fork`, { method: "POST" });
    expect(forked.body).toEqual({ session_id: expect.any(String), forked_from_session_id: session });
    expect(forked.body.session_id).not.toBe(session);
    const copies = await conformingCall(`/agents/assistant/runs?session_id=${forked.body.session_id}`);
    expect(copies.body).toHaveLength(1);
    expect(copies.body[0]).toMatchObject({ run_input: "fork me", forked_from_session_id: session });
    expect(copies.body[0].run_id).not.toBe(run.body.run_id);
    expect((await conformingCall(`/agents/assistant/sessions/${sid("nowhere")}/fork`, { method: "POST" })).status).toBe(
      404,
    );
  });

  it("a background run is accepted (202) and polled to its end", async () => {
    const script = await scriptModel(env.MODEL_SERVER_URL, [{ text: "Done later." }], { channel: "queue" });
    const accepted = await conformingCall(
      "/agents/assistant/runs",
      post({ message: "later please", stream: false, background: true }),
    );
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: "PENDING", session_id: expect.any(String) });
    const run = await until(
      async () => (await conformingCall(`/agents/assistant/runs/${accepted.body.run_id}`)).body,
      (r) => r.status === "COMPLETED",
      "the background run to complete",
    );
    expect(run.content).toBe("Done later.");
    expect(await script.requests()).toHaveLength(1);
  });
}
