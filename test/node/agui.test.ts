/**
 * The AG-UI interface driven by AG-UI's own client (`@ag-ui/client`'s HttpAgent), its requests
 * answered by the AgentOS's fetch handler: text, tool calls, a frontend tool that pauses the run
 * and the follow-up that continues it, state, bad input, auth and per-user threads.
 */
import { HttpAgent, type BaseEvent, type Message } from "@ag-ui/client";
import { base64url, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { AGUI } from "../../src/interfaces/agui/index.js";
import type { Model } from "../../src/models/model.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import type { AuthConfig } from "../../src/os/auth/middleware.js";
import { tool } from "../../src/tools/tool.js";
import { Team } from "../../src/team/team.js";
import { scriptedModel } from "../support/agent-kit.js";
import { scriptedAgent } from "../support/team-kit.js";
import type { Turn } from "../support/model-script.js";

const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const token = (sub: string, scopes: string[]) =>
  new SignJWT({ scopes })
    .setProtectedHeader({ alg: "HS256", kid: "k" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(secret);

const addToCount = tool({
  name: "add_to_count",
  description: "Adds to the counter in the session state",
  parameters: z.object({ by: z.number() }),
  execute: ({ by }, ctx) => {
    ctx.sessionState.count = Number(ctx.sessionState.count ?? 0) + by;
    return { count: ctx.sessionState.count };
  },
});

/** Appends a note to a list in the session state (a list and a key with `/` and `~` in its name, for STATE_DELTA's paths). */
const takeNote = tool({
  name: "take_note",
  description: "Keeps a note in the session state",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }, ctx) => {
    const notes = (ctx.sessionState["notes/~all"] ??= []) as Array<{ text: string }>;
    notes.push({ text });
    return "noted";
  },
});

const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, celsius: 21 }),
});

const deleteFile = tool({
  name: "delete_file",
  description: "Deletes a file",
  parameters: z.object({ path: z.string() }),
  requiresConfirmation: true,
  execute: ({ path }) => `deleted ${path}`,
});

function assistant(model: Model) {
  return new Agent({ id: "assistant", name: "Assistant", model, tools: [weather, addToCount, takeNote, deleteFile] });
}

/** An AgentOS serving the agent with AGUI in front, on a memory db; `fetch` routes a client's requests to it. */
function osFor(model: Model, auth: AuthConfig = { mode: "none" }, opts: { maxBodyBytes?: number } = {}) {
  const agent = assistant(model);
  const db = new MemoryDb();
  const os = new AgentOS({ agents: [agent], interfaces: [new AGUI({ agent })], auth, ...opts });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => undefined };
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const res = await os.fetch(new Request(url, init), { dbs: [db] }, ctx);
    return res;
  };
  return { os, db, fetch, settled: () => Promise.allSettled(pending.splice(0)) };
}

/** AG-UI's client, its requests answered by `fetch`; `events` collects what it receives. */
function client(
  fetch: (url: string, init: RequestInit) => Promise<Response>,
  opts: Partial<{ threadId: string; headers: Record<string, string>; state: Record<string, unknown> }> = {},
) {
  const agent = new HttpAgent({
    url: "http://os.test/agui",
    fetch,
    ...(opts.threadId ? { threadId: opts.threadId } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.state ? { initialState: opts.state } : {}),
  });
  const events: BaseEvent[] = [];
  agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return { agent, events };
}

const userSays = (text: string): Message => ({ id: crypto.randomUUID(), role: "user", content: text });
const types = (events: BaseEvent[]) => events.map((e) => e.type as string);
type Call = { id: string; function: { name: string; arguments: string } };
const callsOf = (m: Message | undefined): Call[] => (m as { toolCalls?: Call[] } | undefined)?.toolCalls ?? [];

async function scripted(turns: Turn[]) {
  return scriptedModel(turns);
}

describe("AGUI interface", () => {
  it("streams a run's text as one assistant message, in a session named by the thread", async () => {
    const { model } = await scripted([{ text: "Hello from the edge." }]);
    const { fetch, db } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-text" });
    agent.addMessage(userSays("Say hello"));
    await agent.runAgent();

    const seen = types(events);
    expect(seen[0]).toBe("RUN_STARTED");
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    expect(seen).toContain("TEXT_MESSAGE_START");
    expect(seen).toContain("TEXT_MESSAGE_END");
    const last = agent.messages.at(-1)!;
    expect(last.role).toBe("assistant");
    expect(last.content).toBe("Hello from the edge.");

    const session = await db.getSession("thread-text");
    expect(session?.runs.map((r) => r.status)).toEqual(["COMPLETED"]);
    expect(session?.runs[0]?.run_id).toBe((events[0] as unknown as { runId: string }).runId);
  });

  it("streams the model's reasoning as a reasoning message before the answer", async () => {
    const { model } = await scriptedModel([{ reasoning: "The user wants a greeting.", text: "Hello." }], "anthropic");
    const { fetch } = osFor(model);
    const { agent, events } = client(fetch);
    agent.addMessage(userSays("Say hello"));
    await agent.runAgent();

    const seen = types(events);
    expect(seen.indexOf("REASONING_START")).toBeGreaterThan(0);
    expect(seen.indexOf("REASONING_END")).toBeLessThan(seen.indexOf("TEXT_MESSAGE_START"));
    const thought = events
      .filter((e) => e.type === "REASONING_MESSAGE_CONTENT")
      .map((e) => (e as unknown as { delta: string }).delta)
      .join("");
    expect(thought).toBe("The user wants a greeting.");
    expect(agent.messages.at(-1)?.content).toBe("Hello.");
  });

  it("streams a tool call as start, args, end and result, then the answer", async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: "call_w", name: "get_weather", arguments: { city: "Lyon" } }] },
      { text: "It is 21 degrees in Lyon." },
    ]);
    const { fetch } = osFor(model);
    const { agent, events } = client(fetch);
    agent.addMessage(userSays("Weather in Lyon?"));
    await agent.runAgent();

    const tooling = events.filter((e) => (e.type as string).startsWith("TOOL_CALL"));
    expect(types(tooling)).toEqual(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]);
    expect(tooling[0]).toMatchObject({ toolCallId: "call_w", toolCallName: "get_weather" });
    expect(JSON.parse((tooling[1] as unknown as { delta: string }).delta)).toEqual({ city: "Lyon" });
    expect(JSON.parse((tooling[3] as unknown as { content: string }).content)).toEqual({ city: "Lyon", celsius: 21 });
    expect(agent.messages.at(-1)?.content).toBe("It is 21 degrees in Lyon.");
    const call = agent.messages.find((m) => m.role === "assistant" && callsOf(m).length > 0);
    expect(callsOf(call)[0]?.function.name).toBe("get_weather");
  });

  it("pauses on a frontend tool and goes on when the next input carries its result", async () => {
    const { model, script } = await scripted([
      { toolCalls: [{ id: "call_bg", name: "change_background", arguments: { color: "teal" } }] },
      { text: "The background is teal now." },
    ]);
    const { fetch, db } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-frontend" });
    const frontendTools = [
      {
        name: "change_background",
        description: "Changes the page's background color",
        parameters: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      },
    ];
    agent.addMessage(userSays("Make the background teal"));
    await agent.runAgent({ tools: frontendTools });

    expect(types(events).at(-1)).toBe("RUN_FINISHED");
    const asked = agent.messages.find((m) => m.role === "assistant" && callsOf(m).length > 0);
    expect(callsOf(asked)[0]).toMatchObject({ id: "call_bg", function: { name: "change_background" } });
    expect(JSON.parse(callsOf(asked)[0]!.function.arguments)).toEqual({ color: "teal" });
    const firstRequest = (await script.requests())[0]!.body as { tools?: Array<{ function: { name: string } }> };
    expect(firstRequest.tools?.map((t) => t.function.name)).toContain("change_background");
    const [paused] = (await db.getRuns({ sessionId: "thread-frontend" })).data;
    expect(paused?.status).toBe("PAUSED");

    // The frontend ran the tool: its result goes back as a tool message, and the run goes on.
    events.length = 0;
    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "call_bg", content: "background set" });
    await agent.runAgent({ tools: frontendTools });

    expect(types(events)[0]).toBe("RUN_STARTED");
    expect(types(events).at(-1)).toBe("RUN_FINISHED");
    expect(agent.messages.at(-1)?.content).toBe("The background is teal now.");
    const runs = (await db.getRuns({ sessionId: "thread-frontend" })).data;
    expect(runs.map((r) => r.status)).toEqual(["COMPLETED"]);
    const second = (await script.requests())[1]!.body as { messages: Array<{ role: string; content?: unknown }> };
    expect(second.messages.find((m) => m.role === "tool")?.content).toBe("background set");
  });

  it("asks the frontend to confirm an agent's own tool, and runs it once the answer accepts", async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: "call_del", name: "delete_file", arguments: { path: "a.txt" } }] },
      { text: "Deleted a.txt." },
    ]);
    const { fetch, db } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-confirm" });
    agent.addMessage(userSays("Delete a.txt"));
    await agent.runAgent();
    expect(events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({
      toolCallId: "call_del",
      toolCallName: "delete_file",
    });
    expect((await db.getRuns({ sessionId: "thread-confirm" })).data[0]?.status).toBe("PAUSED");

    events.length = 0;
    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "call_del", content: '{"accepted": true}' });
    await agent.runAgent();
    const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as unknown as { content: string } | undefined;
    expect(result?.content).toBe(JSON.stringify("deleted a.txt"));
    expect(agent.messages.at(-1)?.content).toBe("Deleted a.txt.");
  });

  it("starts with the frontend's state and ends with the state the run left", async () => {
    const { model } = await scripted([
      { toolCalls: [{ name: "add_to_count", arguments: { by: 2 } }] },
      { text: "Added." },
    ]);
    const { fetch, db } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-state", state: { count: 1, theme: "dark" } });
    agent.addMessage(userSays("Add two"));
    await agent.runAgent();

    const snapshots = events.filter((e) => e.type === "STATE_SNAPSHOT") as unknown as Array<{ snapshot: unknown }>;
    expect(snapshots[0]?.snapshot).toEqual({ count: 1, theme: "dark" });
    expect(snapshots.at(-1)?.snapshot).toEqual({ count: 3, theme: "dark" });
    expect(agent.state).toEqual({ count: 3, theme: "dark" });
    const session = await db.getSession("thread-state");
    expect(session?.record.session_data?.session_state).toMatchObject({ count: 3 });
  });

  it("sends a STATE_DELTA after each tool call that changed the state, which AG-UI's client applies", async () => {
    const { model } = await scripted([
      { toolCalls: [{ name: "add_to_count", arguments: { by: 2 } }] },
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
      { toolCalls: [{ name: "take_note", arguments: { text: "buy milk" } }] },
      { toolCalls: [{ name: "take_note", arguments: { text: "call ann" } }] },
      { text: "Done." },
    ]);
    const { fetch } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-delta", state: { count: 1, theme: "dark" } });
    // The client's own state after each STATE_DELTA it applied (before the final snapshot replaces it).
    const applied: unknown[] = [];
    let delta = false;
    agent.subscribe({
      onStateDeltaEvent: () => void (delta = true),
      onStateChanged: ({ state }) => {
        if (delta) applied.push(structuredClone(state));
        delta = false;
      },
    });
    agent.addMessage(userSays("Count and take notes"));
    await agent.runAgent();

    const seen = types(events);
    const deltas = events.filter((e) => e.type === "STATE_DELTA") as unknown as Array<{ delta: unknown[] }>;
    // Three of the four tool calls changed the state; the weather call did not.
    expect(deltas.map((d) => d.delta)).toEqual([
      [{ op: "replace", path: "/count", value: 3 }],
      [{ op: "add", path: "/notes~1~0all", value: [{ text: "buy milk" }] }],
      [{ op: "add", path: "/notes~1~0all/1", value: { text: "call ann" } }],
    ]);
    // Each follows its call's result.
    for (let i = 0; i < seen.length; i++) if (seen[i] === "STATE_DELTA") expect(seen[i - 1]).toBe("TOOL_CALL_RESULT");
    const final = { count: 3, theme: "dark", "notes/~all": [{ text: "buy milk" }, { text: "call ann" }] };
    expect(applied).toEqual([
      { count: 3, theme: "dark" },
      { count: 3, theme: "dark", "notes/~all": [{ text: "buy milk" }] },
      final,
    ]);
    const snapshots = events.filter((e) => e.type === "STATE_SNAPSHOT") as unknown as Array<{ snapshot: unknown }>;
    expect(snapshots.at(-1)?.snapshot).toEqual(final);
    expect(agent.state).toEqual(final);
  });

  it("sends STATE_DELTA from a continued run's tool calls too", async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: "call_del", name: "delete_file", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "add_to_count", arguments: { by: 2 } }] },
      { text: "Deleted and counted." },
    ]);
    const { fetch } = osFor(model);
    const { agent, events } = client(fetch, { threadId: "thread-resume-state", state: { count: 1 } });
    agent.addMessage(userSays("Delete a.txt, then add two"));
    await agent.runAgent();
    expect(events.filter((e) => e.type === "STATE_DELTA")).toEqual([]);

    events.length = 0;
    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "call_del", content: '{"accepted": true}' });
    await agent.runAgent();
    const deltas = events.filter((e) => e.type === "STATE_DELTA") as unknown as Array<{ delta: unknown[] }>;
    expect(deltas.map((d) => d.delta)).toEqual([[{ op: "replace", path: "/count", value: 3 }]]);
    expect(agent.state).toEqual({ count: 3 });
  });

  it("sends no state events when the request has no state (AG-UI's client always sends one)", async () => {
    const { model } = await scripted([
      { toolCalls: [{ name: "add_to_count", arguments: { by: 2 } }] },
      { text: "Added." },
    ]);
    const { fetch } = osFor(model);
    const res = await fetch("http://os.test/agui", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId: "thread-no-state", runId: "r-no-state", messages: [userSays("Add two")] }),
    });
    expect(res.status).toBe(200);
    const seen = (await res.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => (JSON.parse(line.slice(6)) as { type: string }).type);
    expect(seen).toContain("TOOL_CALL_RESULT");
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    expect(seen.filter((t) => t.startsWith("STATE_"))).toEqual([]);
  });

  it("answers input that is not a RunAgentInput with a 4xx and agno's error body", async () => {
    const { model } = await scripted([]);
    const { fetch } = osFor(model, { mode: "none" }, { maxBodyBytes: 64 * 1024 });
    const post = (body: string) =>
      fetch("http://os.test/agui", { method: "POST", headers: { "content-type": "application/json" }, body });
    const valid = { threadId: "t", runId: "r", messages: [{ id: "m", role: "user", content: "hi" }] };
    const cases: Array<[string, string, number]> = [
      ["not JSON", "{nope", 422],
      ["no threadId", JSON.stringify({ runId: "r", messages: [] }), 422],
      ["messages not a list", JSON.stringify({ ...valid, messages: "hi" }), 422],
      ["no user message", JSON.stringify({ ...valid, messages: [{ id: "m", role: "assistant", content: "x" }] }), 422],
      ["a tool with a bad name", JSON.stringify({ ...valid, tools: [{ name: "a b", description: "" }] }), 422],
      [
        "tool results nobody waits on",
        JSON.stringify({ ...valid, messages: [{ id: "t", role: "tool", toolCallId: "x", content: "1" }] }),
        404,
      ],
      ["too large", JSON.stringify({ ...valid, state: { blob: "x".repeat(100 * 1024) } }), 413],
    ];
    for (const [name, body, status] of cases) {
      const res = await post(body);
      expect(res.status, name).toBe(status);
      const problem = (await res.json()) as { detail?: string; error_id?: string };
      expect(typeof problem.detail, name).toBe("string");
      expect(typeof problem.error_id, name).toBe("string");
    }
    const status = await fetch("http://os.test/status");
    expect(await status.json()).toEqual({ status: "available" });
  });

  it("needs a token with agents:run for the agent (401 without one, 403 without the scope)", async () => {
    const { model } = await scripted([{ text: "ok" }]);
    const { fetch } = osFor(model, { mode: "jwt", verifier, userIsolation: true });
    const body = JSON.stringify({
      threadId: "t-auth",
      runId: crypto.randomUUID(),
      messages: [{ id: "m", role: "user", content: "hi" }],
    });
    const post = (headers: Record<string, string>) =>
      fetch("http://os.test/agui", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    expect((await post({})).status).toBe(401);
    const reader = await token("ann", ["agents:read", "sessions:read"]);
    expect((await post({ authorization: `Bearer ${reader}` })).status).toBe(403);
    const other = await token("ann", ["agents:other:run"]);
    expect((await post({ authorization: `Bearer ${other}` })).status).toBe(403);

    const runner = await token("ann", ["agents:assistant:run"]);
    const { agent, events } = client(fetch, { threadId: "t-auth", headers: { authorization: `Bearer ${runner}` } });
    agent.addMessage(userSays("hi"));
    await agent.runAgent();
    expect(types(events).at(-1)).toBe("RUN_FINISHED");
  });

  it("keeps a thread to its user: another user can neither add to it nor continue its paused run", async () => {
    const { model } = await scripted([
      { toolCalls: [{ id: "call_ann", name: "confirm_order", arguments: { item: "book" } }] },
      { text: "Ordered." },
    ]);
    const { fetch, db } = osFor(model, { mode: "jwt", verifier, userIsolation: true });
    const ann = { authorization: `Bearer ${await token("ann", ["agents:run"])}` };
    const bob = { authorization: `Bearer ${await token("bob", ["agents:run"])}` };
    const tools = [{ name: "confirm_order", description: "Asks the user to confirm", parameters: { type: "object" } }];

    const { agent } = client(fetch, { threadId: "thread-ann", headers: ann });
    agent.addMessage(userSays("Order a book"));
    await agent.runAgent({ tools });
    const [paused] = (await db.getRuns({ sessionId: "thread-ann" })).data;
    expect(paused?.status).toBe("PAUSED");
    expect(paused?.user_id).toBe("ann");

    const post = (headers: Record<string, string>, messages: unknown[]) =>
      fetch("http://os.test/agui", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ threadId: "thread-ann", runId: crypto.randomUUID(), messages, tools }),
      });
    const bobAdds = await post(bob, [{ id: "m", role: "user", content: "Cancel it" }]);
    expect(bobAdds.status).toBe(404);
    const bobAnswers = await post(bob, [
      { id: "m", role: "user", content: "Order a book" },
      { id: "t", role: "tool", toolCallId: "call_ann", content: "yes" },
    ]);
    expect(bobAnswers.status).toBe(404);
    expect((await db.getRun(paused!.run_id))?.status).toBe("PAUSED");

    // Ann herself goes on.
    agent.addMessage({ id: crypto.randomUUID(), role: "tool", toolCallId: "call_ann", content: "confirmed" });
    await agent.runAgent({ tools });
    const done = (await db.getRun(paused!.run_id))?.run_data as unknown as RunOutput;
    expect(done.status).toBe("COMPLETED");
    expect(agent.messages.at(-1)?.content).toBe("Ordered.");
  });

  it("runs a team: the leader's delegation as a tool call, the member's run as a step, the leader's answer as text", async () => {
    const member = await scriptedAgent("researcher", [{ text: "Found it.", chunkSize: 100 }]);
    const { model } = await scripted([
      {
        toolCalls: [
          { id: "call_d", name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Find" } },
        ],
      },
      { text: "The team found it." },
    ]);
    const team = new Team({ id: "desk", name: "Desk", model, members: [member.agent] });
    const db = new MemoryDb();
    const os = new AgentOS({
      teams: [team],
      interfaces: [new AGUI({ team, prefix: "/desk" })],
      auth: { mode: "none" },
    });
    const fetch = async (url: string, init?: RequestInit) => os.fetch(new Request(url, init), { dbs: [db] });
    const agent = new HttpAgent({ url: "http://os.test/desk/agui", fetch, threadId: "thread-team" });
    const events: BaseEvent[] = [];
    agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
    agent.addMessage(userSays("Find it"));
    await agent.runAgent();

    const seen = types(events);
    expect(seen.filter((t) => t.startsWith("STEP_"))).toEqual(["STEP_STARTED", "STEP_FINISHED"]);
    expect(events.find((e) => e.type === "STEP_STARTED")).toMatchObject({ stepName: "researcher" });
    expect(events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "delegate_task_to_member" });
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    expect(agent.messages.at(-1)?.content).toBe("The team found it.");
    const runs = (await db.getRuns({ sessionId: "thread-team", teamId: "desk" })).data;
    expect(runs.map((r) => r.status)).toEqual(["COMPLETED"]);
    expect(await (await fetch("http://os.test/desk/status")).json()).toEqual({ status: "available" });
  });
});
