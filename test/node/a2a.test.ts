/**
 * The A2A interface driven by the official A2A JavaScript client (@a2a-js/sdk, through its v0.3
 * compatibility layer: agno serves A2A 0.3 over JSON-RPC) against an AgentOS's fetch handler:
 * the card, a run, a streamed run, a pause answered by a follow-up, get and cancel, a team and a
 * workflow; and raw requests for bad input, auth and per-user isolation.
 */
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import {
  Role,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from "@a2a-js/sdk";
import { base64url, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { A2A } from "../../src/interfaces/a2a/index.js";
import type { Model } from "../../src/models/model.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import { Team } from "../../src/team/team.js";
import { tool } from "../../src/tools/tool.js";
import { Step } from "../../src/workflow/step.js";
import { Workflow } from "../../src/workflow/workflow.js";
import { scriptedModel } from "../support/agent-kit.js";
import type { Turn } from "../support/model-script.js";

const ALL = ["agents", "teams", "workflows"].flatMap((r) => [`${r}:read`, `${r}:run`]);
const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const token = (sub: string, scopes = ALL) =>
  new SignJWT({ scopes })
    .setProtectedHeader({ alg: "HS256", kid: "k" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(secret);

const executed: string[] = [];
const deleteFile = tool({
  name: "delete_file",
  parameters: z.object({ path: z.string() }),
  requiresConfirmation: true,
  execute: ({ path }) => {
    executed.push(path);
    return `deleted ${path}`;
  },
});

/** An AgentOS with an agent, a team and a workflow behind A2A, all answering from `turns`. */
async function setup(turns: Turn[]) {
  const { model, script } = await scriptedModel(turns);
  const db = new MemoryDb();
  const agent = new Agent({ id: "ops", name: "Ops", description: "Does operations", model, tools: [deleteFile] });
  const team = new Team({ id: "desk", name: "Desk", model, members: [new Agent({ id: "m", model: model as Model })] });
  const workflow = new Workflow({
    id: "flow",
    name: "flow",
    steps: [new Step({ name: "shout", executor: (input) => `${String(input.input).toUpperCase()}!` })],
  });
  const os = new AgentOS({
    agents: [agent],
    teams: [team],
    workflows: [workflow],
    auth: { mode: "jwt", verifier, userIsolation: true },
    interfaces: [new A2A({ agents: [agent], teams: [team], workflows: [workflow] })],
  });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => undefined };
  /** A fetch that reaches the AgentOS as `user` (no header: anonymous). */
  const fetchAs =
    (user?: string, scopes?: string[]): typeof fetch =>
    async (input, init) => {
      const request = new Request(input, init);
      if (user) request.headers.set("authorization", `Bearer ${await token(user, scopes)}`);
      return os.fetch(request, { dbs: [db] }, ctx);
    };
  const clientFor = async (path: string, user = "alice") => {
    const fetchImpl = fetchAs(user);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
    });
    return factory.createFromUrl(`http://os.test/a2a/${path}/.well-known/agent-card.json`, "");
  };
  const rpc = async (path: string, body: unknown, user: string | null = "alice", scopes?: string[]) => {
    const res = await fetchAs(user ?? undefined, scopes)(`http://os.test/a2a/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read the answer's fields freely
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return { os, db, script, clientFor, rpc, fetchAs, settle: () => Promise.all(pending) };
}

const userMessage = (text: string, more: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...more,
});
const send = (client: Client, message: Message) =>
  client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined });
const textOf = (parts: Message["parts"] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
/** A stream event's status update, or its artifact update (undefined for another kind). */
const statusOf = (e: StreamResponse | undefined): TaskStatusUpdateEvent | undefined =>
  e?.payload?.$case === "statusUpdate" ? e.payload.value : undefined;
const artifactOf = (e: StreamResponse): TaskArtifactUpdateEvent | undefined =>
  e.payload?.$case === "artifactUpdate" ? e.payload.value : undefined;
const asTask = (result: Message | Task): Task => {
  expect("status" in result).toBe(true);
  return result as Task;
};

describe("A2A through the official client", () => {
  it("serves the agent card at agno's path, with the JSON-RPC endpoint that takes every method", async () => {
    const { fetchAs } = await setup([]);
    const res = await fetchAs("alice")("http://os.test/a2a/agents/ops/.well-known/agent-card.json");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      protocolVersion: "0.3.0",
      name: "Ops",
      description: "Does operations",
      url: "http://os.test/a2a/agents/ops/v1/message:stream",
      preferredTransport: "JSONRPC",
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: "ops", name: "Ops" }],
    });
  });

  it("sends a message: the run completes, and tasks/get reads the same task", async () => {
    const { clientFor, script } = await setup([{ text: "Hello from ops." }]);
    const client = await clientFor("agents/ops");
    const task = asTask(await send(client, userMessage("hi there")));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message?.parts)).toBe("Hello from ops.");
    expect(task.artifacts.map((a) => textOf(a.parts))).toEqual(["Hello from ops."]);
    expect(task.history.map((m) => [m.role, textOf(m.parts)])).toEqual([
      [Role.ROLE_USER, "hi there"],
      [Role.ROLE_AGENT, "Hello from ops."],
    ]);
    expect((await script.requests())[0]!.body.messages).toEqual(
      expect.arrayContaining([expect.objectContaining({ role: "user", content: "hi there" })]),
    );
    const got = await client.getTask({ tenant: "", id: task.id });
    expect(got).toMatchObject({ id: task.id, contextId: task.contextId });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The contextId is the session: a second message in it sees the first exchange.
  });

  it("keeps a conversation in one context: contextId is the session", async () => {
    const { clientFor, db } = await setup([{ text: "First." }, { text: "Second." }]);
    const client = await clientFor("agents/ops");
    const first = asTask(await send(client, userMessage("one")));
    const second = asTask(await send(client, userMessage("two", { contextId: first.contextId })));
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    const session = await db.getSession(first.contextId, {});
    expect(session?.record.user_id).toBe("alice");
    expect(session?.runs.map((r) => r.run_id)).toEqual([first.id, second.id]);
  });

  it("streams a message: the task, working, the answer as artifact chunks, then completed", async () => {
    const { clientFor, settle } = await setup([{ text: "Streaming answer here.", chunkSize: 5 }]);
    const client = await clientFor("agents/ops");
    const events = [];
    for await (const e of client.sendMessageStream({
      tenant: "",
      message: userMessage("stream please"),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(e);
    await settle();
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds[1]).toBe("statusUpdate");
    expect(kinds.at(-1)).toBe("statusUpdate");
    const chunks = events.flatMap((e) => artifactOf(e) ?? []);
    expect(chunks.length).toBeGreaterThan(2);
    const last = chunks.at(-1)!;
    expect(last).toMatchObject({ lastChunk: true, append: false });
    expect(textOf(last.artifact?.parts)).toBe("Streaming answer here.");
    expect(
      chunks
        .slice(0, -1)
        .map((c) => textOf(c.artifact?.parts))
        .join(""),
    ).toBe("Streaming answer here.");
    const final = statusOf(events.at(-1))!;
    expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = (events[0]!.payload!.value as Task).id;
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("a run that pauses is input-required; a follow-up with its taskId confirms and the run goes on", async () => {
    executed.length = 0;
    const { clientFor } = await setup([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted /tmp/a." },
    ]);
    const client = await clientFor("agents/ops");
    const paused = asTask(await send(client, userMessage("delete /tmp/a")));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(paused.status?.message?.parts)).toMatch(
      /Confirm delete_file\(\{"path":"\/tmp\/a"\}\)\? Answer yes or no/,
    );
    expect(executed).toEqual([]);
    const done = asTask(await send(client, userMessage("yes", { taskId: paused.id, contextId: paused.contextId })));
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.status?.message?.parts)).toBe("Deleted /tmp/a.");
    expect(executed).toEqual(["/tmp/a"]);
  });

  it("a streamed pause ends with input-required; a no (with a reason) rejects the call over the stream", async () => {
    executed.length = 0;
    const { clientFor, script, settle } = await setup([
      { toolCalls: [{ id: "c2", name: "delete_file", arguments: { path: "/etc" } }] },
      { text: "Left /etc alone." },
    ]);
    const client = await clientFor("agents/ops");
    const stream = async (message: Message) => {
      const out = [];
      for await (const e of client.sendMessageStream({
        tenant: "",
        message,
        configuration: undefined,
        metadata: undefined,
      }))
        out.push(e);
      await settle();
      return out;
    };
    const first = await stream(userMessage("delete /etc"));
    const pausedAt = statusOf(first.at(-1))!;
    expect(pausedAt.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const second = await stream(userMessage("no, that is the system folder", { taskId: pausedAt.taskId }));
    const end = statusOf(second.at(-1))!;
    expect(end.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(end.status?.message?.parts)).toBe("Left /etc alone.");
    expect(executed).toEqual([]);
    const toolMessage = ((await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>).find(
      (m) => m.role === "tool",
    );
    expect(toolMessage?.content).toMatch(/that is the system folder/);
  });

  it("cancels a task: tasks/cancel answers it canceled and tasks/get agrees", async () => {
    const { clientFor } = await setup([{ toolCalls: [{ id: "c3", name: "delete_file", arguments: { path: "/x" } }] }]);
    const client = await clientFor("agents/ops");
    const paused = asTask(await send(client, userMessage("delete /x")));
    const cancelled = await client.cancelTask({ tenant: "", id: paused.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // A task that has ended takes no follow-up and cannot be cancelled again.
    await expect(send(client, userMessage("yes", { taskId: paused.id }))).rejects.toThrow(/409/);
    await expect(client.cancelTask({ tenant: "", id: paused.id, metadata: undefined })).resolves.toMatchObject({
      id: paused.id,
    });
  });

  it("cancels a running task: the stream that runs it ends canceled", async () => {
    const { clientFor, settle } = await setup([{ hang: true }]);
    const client = await clientFor("agents/ops");
    const stream = client.sendMessageStream({
      tenant: "",
      message: userMessage("take your time"),
      configuration: undefined,
      metadata: undefined,
    });
    const first = await stream.next();
    const taskId = (first.value!.payload!.value as Task).id;
    expect((await client.getTask({ tenant: "", id: taskId })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const cancelled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = [];
    for await (const e of stream) rest.push(e);
    await settle();
    expect(statusOf(rest.at(-1))?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  }, 30_000);

  it("runs a team and a workflow", async () => {
    const { clientFor } = await setup([{ text: "The desk answers." }]);
    const team = await clientFor("teams/desk");
    const teamTask = asTask(await send(team, userMessage("hello desk")));
    expect(teamTask.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(teamTask.status?.message?.parts)).toBe("The desk answers.");
    expect((await team.getTask({ tenant: "", id: teamTask.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const flow = await clientFor("workflows/flow");
    const flowTask = asTask(await send(flow, userMessage("go")));
    expect(flowTask.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(flowTask.artifacts[0]?.parts)).toBe("GO!");
    const events = [];
    for await (const e of flow.sendMessageStream({
      tenant: "",
      message: userMessage("again"),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(e);
    const final = statusOf(events.at(-1))!;
    expect(final.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(final.status?.message?.parts)).toBe("AGAIN!");
    expect(events.some((e) => statusOf(e)?.metadata?.agno_event_type === "step_started")).toBe(true);
  });
});

describe("A2A bad input, auth and isolation", () => {
  const envelope = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: 7, method, params });

  it("answers bad input with a 4xx {detail, error_id}, never running anything", async () => {
    const { rpc, script } = await setup([]);
    const cases: Array<[string, unknown, number]> = [
      ["agents/ops/v1/message:send", "{not json", 422],
      ["agents/ops/v1/message:send", { jsonrpc: "1.0", params: {} }, 422],
      ["agents/ops/v1/message:send", envelope("tasks/resubscribe", {}), 422],
      ["agents/ops/v1/message:send", envelope("message/send", {}), 400],
      [
        "agents/ops/v1/message:send",
        envelope("message/send", { message: { messageId: "m", role: "user", parts: [] } }),
        400,
      ],
      [
        "agents/ops/v1/message:send",
        envelope("message/send", { message: { messageId: "m", role: "agent", parts: [{ kind: "text", text: "x" }] } }),
        400,
      ],
      [
        "agents/ops/v1/message:stream",
        envelope("message/stream", { message: { messageId: "m", role: "user", parts: [{ kind: "video" }] } }),
        400,
      ],
      [
        "agents/ops/v1/message:send",
        envelope("message/send", {
          message: { messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }], taskId: "nope" },
        }),
        404,
      ],
      ["agents/ops/v1/tasks:get", envelope("tasks/get", {}), 400],
      ["agents/ops/v1/tasks:get", envelope("tasks/get", { id: "nope" }), 404],
      ["agents/ops/v1/tasks:cancel", envelope("tasks/cancel", { id: "nope" }), 404],
      ["agents/nobody/v1/tasks:get", envelope("tasks/get", { id: "x" }), 404],
      ["agents/ops/v1/message:send", envelope("message/send", { message: { messageId: "a\u0000b" } }), 422],
    ];
    for (const [path, body, status] of cases) {
      const res = await rpc(path, body);
      expect([path, res.status], JSON.stringify(body).slice(0, 80)).toEqual([path, status]);
      expect(typeof res.body.detail).toBe("string");
      expect(typeof res.body.error_id).toBe("string");
    }
    expect(await script.requests()).toEqual([]);
  });

  it("refuses a missing token (401) and a token without the method's scope (403)", async () => {
    const { rpc, fetchAs } = await setup([]);
    expect((await fetchAs()("http://os.test/a2a/agents/ops/.well-known/agent-card.json")).status).toBe(401);
    const send = envelope("message/send", {
      message: { messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }] },
    });
    expect((await rpc("agents/ops/v1/message:send", send, null)).status).toBe(401);
    const readOnly = ["agents:read"];
    expect((await rpc("agents/ops/v1/message:send", send, "alice", readOnly)).status).toBe(403);
    // The method decides the scope whatever the path: message/send through tasks:get still needs agents:run.
    expect((await rpc("agents/ops/v1/tasks:get", send, "alice", readOnly)).status).toBe(403);
    expect((await rpc("agents/ops/v1/tasks:get", envelope("tasks/get", { id: "x" }), "alice", readOnly)).status).toBe(
      404,
    );
    // A per-agent scope for another agent grants nothing here.
    expect((await rpc("agents/ops/v1/message:send", send, "alice", ["agents:other:run"])).status).toBe(403);
    expect((await rpc("teams/desk/v1/message:send", send, "alice", ["agents:run"])).status).toBe(403);
  });

  it("another user's task is 404 for get, cancel and a follow-up; the owner still sees it", async () => {
    const { rpc } = await setup([{ toolCalls: [{ id: "c4", name: "delete_file", arguments: { path: "/y" } }] }]);
    const started = await rpc(
      "agents/ops/v1/message:send",
      envelope("message/send", {
        message: { messageId: "m1", role: "user", parts: [{ kind: "text", text: "delete /y" }] },
      }),
      "alice",
    );
    expect(started.status).toBe(200);
    const task = started.body.result;
    expect(task).toMatchObject({ kind: "task", status: { state: "input-required" } });
    expect(started.body).toMatchObject({ jsonrpc: "2.0", id: 7 });
    const asBob = async (method: string, params: unknown, path: string) =>
      (await rpc(path, envelope(method, params), "bob")).status;
    expect(await asBob("tasks/get", { id: task.id }, "agents/ops/v1/tasks:get")).toBe(404);
    expect(await asBob("tasks/get", { id: task.id, contextId: task.contextId }, "agents/ops/v1/tasks:get")).toBe(404);
    expect(await asBob("tasks/cancel", { id: task.id }, "agents/ops/v1/tasks:cancel")).toBe(404);
    expect(
      await asBob(
        "message/send",
        { message: { messageId: "m2", role: "user", taskId: task.id, parts: [{ kind: "text", text: "yes" }] } },
        "agents/ops/v1/message:send",
      ),
    ).toBe(404);
    // Naming alice as the user changes nothing under isolation.
    const header = await rpc(
      "agents/ops/v1/tasks:get",
      envelope("tasks/get", { id: task.id, metadata: { userId: "alice" } }),
      "bob",
    );
    expect(header.status).toBe(404);
    const mine = await rpc("agents/ops/v1/tasks:get", envelope("tasks/get", { id: task.id }), "alice");
    expect(mine.body.result).toMatchObject({ id: task.id, status: { state: "input-required" } });
  });
});
