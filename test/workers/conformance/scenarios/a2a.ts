import { expect, it } from "vitest";
import { JSON_BODY, modelEnv, parseSse } from "../../worker-client.js";
import { conformingCall } from "../check.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read the answers' fields freely
type Json = Record<string, any>;

let n = 0;
const rpc = (method: string, params: unknown) => ({
  method: "POST",
  headers: JSON_BODY,
  body: JSON.stringify({ jsonrpc: "2.0", id: ++n, method, params }),
});
const say = (text: string, more: Record<string, unknown> = {}) => ({
  message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...more },
});
const delegateToWriter = {
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "writer", task: "Write and publish" } }],
};
const publish = { toolCalls: [{ name: "publish_draft", arguments: { title: "Edge" } }] };

/** The last A2A result of an SSE answer. */
const lastResult = (text: string) => parseSse(text).at(-1)!.data.result as Json;

/**
 * The A2A routes of the example's assistant, team and workflow: agent cards, message/send and
 * message/stream to completion and to a pause (input-required), a follow-up that continues a
 * paused team run, tasks/get, and tasks/cancel of a paused task.
 */
export function a2aScenarios(): void {
  it("agent cards of the assistant, the team and the workflow", async () => {
    for (const path of ["agents/assistant", "teams/writing-desk", "workflows/blog-post"]) {
      const card = await conformingCall(`/a2a/${path}/.well-known/agent-card.json`);
      expect(card.body).toMatchObject({
        protocolVersion: "0.3.0",
        url: `http://agno.test/a2a/${path}/v1/message:stream`,
      });
    }
    expect((await conformingCall("/a2a/agents/nobody/.well-known/agent-card.json")).status).toBe(404);
  });

  it("the assistant: send, stream, a pause cancelled, get", async () => {
    const { env: e } = await modelEnv([
      { text: "Hello." },
      { text: "Streamed hello." },
      { toolCalls: [{ name: "save_note", arguments: { note: "milk" } }] },
    ]);
    const base = "/a2a/agents/assistant/v1";
    const sent = await conformingCall(`${base}/message:send`, rpc("message/send", say("hi")), e);
    expect(sent.body.result).toMatchObject({ status: { state: "completed" } });
    const streamed = await conformingCall(`${base}/message:stream`, rpc("message/stream", say("hi again")), e);
    expect(lastResult(streamed.text)).toMatchObject({
      kind: "status-update",
      final: true,
      status: { state: "completed" },
    });
    const paused = await conformingCall(`${base}/message:send`, rpc("message/send", say("note milk")), e);
    expect(paused.body.result).toMatchObject({ status: { state: "input-required" } });
    const cancelled = await conformingCall(
      `${base}/tasks:cancel`,
      rpc("tasks/cancel", { id: paused.body.result.id }),
      e,
    );
    expect(cancelled.body.result).toMatchObject({ status: { state: "canceled" } });
    const got = await conformingCall(`${base}/tasks:get`, rpc("tasks/get", { id: sent.body.result.id }), e);
    expect(got.body.result).toMatchObject({ id: sent.body.result.id, status: { state: "completed" } });
  });

  it("the team: a member's pause is input-required, a yes continues it; a streamed pause cancelled", async () => {
    const { env: e } = await modelEnv([
      delegateToWriter,
      publish,
      { text: "Published." },
      { text: "The piece is out." },
      delegateToWriter,
      publish,
    ]);
    const base = "/a2a/teams/writing-desk/v1";
    const paused = await conformingCall(`${base}/message:send`, rpc("message/send", say("write on edge")), e);
    expect(paused.body.result).toMatchObject({ status: { state: "input-required" } });
    expect(paused.body.result.status.message.parts[0].text).toMatch(/Confirm publish_draft/);
    const { id, contextId } = paused.body.result;
    const done = await conformingCall(`${base}/message:send`, rpc("message/send", say("yes", { taskId: id })), e);
    expect(done.body.result).toMatchObject({ id, contextId, status: { state: "completed" } });
    const streamed = await conformingCall(`${base}/message:stream`, rpc("message/stream", say("once more")), e);
    const last = lastResult(streamed.text);
    expect(last).toMatchObject({ final: true, status: { state: "input-required" } });
    const cancelled = await conformingCall(`${base}/tasks:cancel`, rpc("tasks/cancel", { id: last.taskId }), e);
    expect(cancelled.body.result).toMatchObject({ status: { state: "canceled" } });
    const got = await conformingCall(`${base}/tasks:get`, rpc("tasks/get", { id }), e);
    expect(got.body.result).toMatchObject({ status: { state: "completed" } });
  });

  it("the workflow: its review is input-required, over send and stream; get and cancel", async () => {
    const { env: e } = await modelEnv([{ text: "Facts." }, { text: "More facts." }]);
    const base = "/a2a/workflows/blog-post/v1";
    const paused = await conformingCall(`${base}/message:send`, rpc("message/send", say("edge")), e);
    expect(paused.body.result).toMatchObject({ status: { state: "input-required" } });
    const streamed = await conformingCall(`${base}/message:stream`, rpc("message/stream", say("edge again")), e);
    expect(lastResult(streamed.text)).toMatchObject({ final: true, status: { state: "input-required" } });
    const { id } = paused.body.result;
    expect((await conformingCall(`${base}/tasks:get`, rpc("tasks/get", { id }), e)).body.result).toMatchObject({
      status: { state: "input-required" },
    });
    const cancelled = await conformingCall(`${base}/tasks:cancel`, rpc("tasks/cancel", { id }), e);
    expect(cancelled.body.result).toMatchObject({ id, status: { state: "canceled" } });
  });
}
