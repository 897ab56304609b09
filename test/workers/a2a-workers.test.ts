import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { isolatedJwt, modelEnv, send } from "./worker-client.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read the answers' fields freely
type Json = Record<string, any>;

/*
 * The example Worker's A2A routes (what `npm run dev` serves under /a2a), with JWT auth and user
 * isolation: B's tasks on the assistant, the team and the workflow (paused at its review, then
 * continued by B's follow-up) are 404 to A through tasks/get, tasks/cancel and a follow-up
 * message, whatever user A names.
 */

const tag = crypto.randomUUID().slice(0, 8);
const A = `a2a-a-${tag}`;
const B = `a2a-b-${tag}`;
const SCOPES = ["agents", "teams", "workflows"].flatMap((r) => [`${r}:read`, `${r}:run`]);

let E: Partial<Env>;
const who: Record<"A" | "B", Record<string, string>> = { A: {}, B: {} };
let n = 0;

async function rpc(as: "A" | "B", path: string, method: string, params: unknown) {
  const id = ++n;
  const res = await send(
    `/a2a/${path}`,
    { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) },
    E,
    { ...who[as], "content-type": "application/json" },
  );
  const body = (await res.json()) as Json;
  if (res.status === 200) expect(body).toMatchObject({ jsonrpc: "2.0", id });
  return { status: res.status, body, task: body.result as Json };
}

const message = (text: string, more: Record<string, unknown> = {}) => ({
  message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...more },
});

beforeAll(async () => {
  const jwt = await isolatedJwt(`a2a-${tag}`);
  const { env: model } = await modelEnv([
    { text: "B's research." },
    { text: "B's post." },
    { text: "B's answer." },
    { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "x" } }] },
    { text: "B's facts." },
    { text: "B's piece." },
  ]);
  E = { ...jwt.env, ...model };
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
});

describe("A2A on the example Worker", () => {
  it("serves each component's agent card; a workflow's review is input-required, B's follow-up continues it, A gets 404", async () => {
    for (const path of ["agents/assistant", "teams/writing-desk", "workflows/blog-post"]) {
      const res = await send(`/a2a/${path}/.well-known/agent-card.json`, {}, E, who.B);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({ url: `http://agno.test/a2a/${path}/v1/message:stream` });
    }
    const flow = "workflows/blog-post";
    const paused = await rpc("B", `${flow}/v1/message:send`, "message/send", message("edge computing"));
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.task).toMatchObject({ kind: "task", status: { state: "input-required" } });
    expect(paused.task.status.message.parts[0].text).toMatch(/Write the post from this research\?/);
    const { id, contextId } = paused.task;
    for (const params of [{ id }, { id, contextId }, { id, metadata: { userId: B } }]) {
      expect((await rpc("A", `${flow}/v1/tasks:get`, "tasks/get", params)).status).toBe(404);
      expect((await rpc("A", `${flow}/v1/tasks:cancel`, "tasks/cancel", params)).status).toBe(404);
    }
    const stolen = await rpc("A", `${flow}/v1/message:send`, "message/send", message("yes", { taskId: id }));
    expect(stolen).toMatchObject({ status: 404, body: { error_id: "not_found" } });
    const streamed = await rpc("A", `${flow}/v1/message:stream`, "message/stream", message("yes", { taskId: id }));
    expect(streamed).toMatchObject({ status: 404, body: { error_id: "not_found" } });
    // Still waiting on B's review; B's yes writes the post.
    expect((await rpc("B", `${flow}/v1/tasks:get`, "tasks/get", { id })).task.status.state).toBe("input-required");
    const done = await rpc("B", `${flow}/v1/message:send`, "message/send", message("yes", { taskId: id, contextId }));
    expect(done.task).toMatchObject({ id, contextId, status: { state: "completed" } });
    expect(done.task.artifacts[0].parts[0].text).toBe("B's post.");
  });

  it("B's agent and team tasks are 404 to A", async () => {
    for (const path of ["agents/assistant", "teams/writing-desk"]) {
      const mine = await rpc("B", `${path}/v1/message:send`, "message/send", message("hello"));
      expect(mine.task?.status.state, JSON.stringify(mine.body)).toBe("completed");
      const { id } = mine.task;
      expect((await rpc("A", `${path}/v1/tasks:get`, "tasks/get", { id })).status, path).toBe(404);
      expect((await rpc("A", `${path}/v1/tasks:cancel`, "tasks/cancel", { id })).status, path).toBe(404);
      expect((await rpc("B", `${path}/v1/tasks:get`, "tasks/get", { id })).task.status.state, path).toBe("completed");
    }
  });
});
