import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { HttpAgent, type BaseEvent } from "@ag-ui/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startDev, type DevServer } from "../support/dev-server.js";
import { scriptModel, type Turn } from "../support/model-script.js";

/**
 * The protocols `npm run dev` serves (MCP, A2A, AG-UI), each driven by its official client over
 * real HTTP against one dev server: a start of the whole dev stack is most of such a test's time.
 * The server requires a bearer key (OS_SECURITY_KEY), so refusals without it are seen; the MCP and
 * A2A clients send it. Its model is a channel of the scripted server that each test re-scripts before it runs.
 */
const KEY = "protocols-secret";
const BEARER = { authorization: `Bearer ${KEY}` };
const CHANNEL = "protocols-dev";
const script = (turns: Turn[]) => scriptModel(inject("modelServerUrl"), turns, { channel: CHANNEL });

let dev: DevServer | undefined;
const dataDir = mkdtempSync(join(tmpdir(), "agno-protocols-dev-"));
beforeAll(async () => {
  dev = await startDev({
    AGNO_DEV_DATA: dataDir,
    AGNO_DEV_CRON: "off",
    OS_SECURITY_KEY: KEY,
    MODEL: "openai:gpt-test",
    OPENAI_BASE_URL: `${inject("modelServerUrl")}/c/${CHANNEL}/v1`,
    OPENAI_API_KEY: "sk-local",
  });
}, 180_000); // startDev allows the whole dev stack two minutes
afterAll(async () => {
  await dev?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run dev", () => {
  it("requires the bearer key when OS_SECURITY_KEY is set", async () => {
    expect((await fetch(`${dev!.url}/sessions`)).status).toBe(401);
    expect((await fetch(`${dev!.url}/sessions`, { headers: BEARER })).status).toBe(200);
  });
});

const textOf = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((c) => c.text ?? "")
    .join("");

/** `npm run dev` serves `/mcp`: the official v2 client lists and calls every built-in tool over real HTTP. */
describe("npm run dev serves the MCP server", () => {
  it("lists agno's eight tools and calls each: runs streamed with progress, a pause continued, sessions read", async () => {
    await script([
      { toolCalls: [{ name: "get_current_time", arguments: {} }] },
      { text: "It is noon." },
      { toolCalls: [{ name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved." },
      { text: "A short piece on tea." },
      { text: "Research on tea." },
    ]);
    const url = dev!.url;
    const client = new Client({ name: "mcp-e2e", version: "1.0.0" });
    try {
      expect(await (await fetch(`${url}/info`)).json()).toMatchObject({ mcp: { enabled: true, path: "/mcp" } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: BEARER } }),
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "get_agentos_config",
        "run_agent",
        "run_team",
        "run_workflow",
        "continue_run",
        "cancel_run",
        "get_sessions",
        "get_session_runs",
      ]);

      const config = await client.callTool({ name: "get_agentos_config", arguments: {} });
      expect(config.structuredContent).toMatchObject({ os_id: "agno-edge", agents: [{ id: "assistant" }] });

      const progress: string[] = [];
      const ran = await client.callTool(
        { name: "run_agent", arguments: { agent_id: "assistant", message: "What time is it?" } },
        { onprogress: (p) => void progress.push(p.message ?? "") },
      );
      expect(textOf(ran)).toBe("It is noon.");
      expect(progress).toEqual([
        "Agent assistant started",
        "Tool call started: get_current_time",
        "Tool call completed: get_current_time",
      ]);
      const { session_id } = ran.structuredContent as { session_id: string };

      const paused = await client.callTool({
        name: "run_agent",
        arguments: { agent_id: "assistant", message: "Note: buy milk", session_id },
      });
      const pausedRun = paused.structuredContent as { run_id: string; requirements: Array<Record<string, unknown>> };
      expect(paused.structuredContent).toMatchObject({ status: "PAUSED" });
      const continued = await client.callTool({
        name: "continue_run",
        arguments: {
          agent_id: "assistant",
          run_id: pausedRun.run_id,
          session_id,
          requirements: pausedRun.requirements.map((r) => ({ ...r, confirmed: true })),
        },
      });
      expect(textOf(continued)).toBe("Saved.");

      const team = await client.callTool({
        name: "run_team",
        arguments: { team_id: "writing-desk", message: "Tea, briefly" },
      });
      expect(textOf(team)).toBe("A short piece on tea.");

      const flow = await client.callTool({
        name: "run_workflow",
        arguments: { workflow_id: "blog-post", message: "Tea" },
      });
      expect(flow.structuredContent).toMatchObject({ status: "PAUSED" });
      const flowRun = flow.structuredContent as { run_id: string; session_id: string };
      const cancelled = await client.callTool({
        name: "cancel_run",
        arguments: { workflow_id: "blog-post", run_id: flowRun.run_id, session_id: flowRun.session_id },
      });
      expect(cancelled.isError, textOf(cancelled)).toBeFalsy();
      expect(cancelled.structuredContent).toMatchObject({ run_id: flowRun.run_id });

      const sessions = await client.callTool({ name: "get_sessions", arguments: { session_type: "agent" } });
      expect(
        (sessions.structuredContent as { data: Array<{ session_id: string }> }).data.map((s) => s.session_id),
      ).toContain(session_id);
      const history = await client.callTool({ name: "get_session_runs", arguments: { session_id } });
      expect((history.structuredContent as { runs: Array<{ content?: unknown }> }).runs.map((r) => r.content)).toEqual([
        "It is noon.",
        "Saved.",
      ]);

      // A page on another origin is refused before any tool runs (DNS-rebinding protection), key or not.
      const rebound = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: {
          ...BEARER,
          origin: "http://attacker.example",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(rebound.status).toBe(403);
      expect(await rebound.json()).toMatchObject({ error_id: "forbidden" });
    } finally {
      await client.close().catch(() => undefined);
    }
  }, 240_000);
});

const say = (text: string, taskId = ""): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** The example assistant over A2A as `npm run dev` serves it, driven by the official A2A client. */
describe("A2A through npm run dev", () => {
  it("runs, streams, and pauses for a confirmation that a follow-up gives", async () => {
    await script([
      { text: "Hello over A2A." },
      { text: "Streamed over A2A." },
      { toolCalls: [{ name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
    ]);
    const withKey: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", BEARER.authorization);
      return fetch(input, { ...init, headers });
    };
    const legacyCompat = { enabled: true };
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ legacyCompat, fetchImpl: withKey })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat, fetchImpl: withKey }),
    });
    const client = await factory.createFromUrl(`${dev!.url}/a2a/agents/assistant/.well-known/agent-card.json`, "");
    const send = async (message: Message) =>
      (await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined })) as Task;

    const done = await send(say("hi"));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const states = [];
    for await (const e of client.sendMessageStream({
      tenant: "",
      message: say("stream it"),
      configuration: undefined,
      metadata: undefined,
    }))
      if (e.payload?.$case === "statusUpdate") states.push(e.payload.value.status?.state);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

    const paused = await send(say("note: buy milk"));
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const saved = await send(say("yes", paused.id));
    expect(saved).toMatchObject({ id: paused.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect((await client.getTask({ tenant: "", id: paused.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 240_000);
});

/**
 * AG-UI as a user reaches it: `npm run dev` (wrangler dev over the example app and its embedded
 * Postgres) serves the assistant at `POST /agui`, and AG-UI's own client, over real HTTP, runs it
 * behind the bearer key, has it pause on a frontend tool, and continues it with the tool's result.
 */
describe("AG-UI through npm run dev", () => {
  it("streams a run to @ag-ui/client, pauses on a frontend tool and continues with its result", async () => {
    await script([
      { toolCalls: [{ id: "call_dev_bg", name: "change_background", arguments: { color: "teal" } }] },
      { text: "The background is teal." },
    ]);
    const url = dev!.url;
    expect(await (await fetch(`${url}/status`)).json()).toEqual({ status: "available" });
    expect((await fetch(`${url}/agui`, { method: "POST", body: "{}" })).status).toBe(401);

    const agent = new HttpAgent({ url: `${url}/agui`, headers: BEARER });
    const events: BaseEvent[] = [];
    agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
    const tools = [
      {
        name: "change_background",
        description: "Changes the page's background",
        parameters: { type: "object", properties: { color: { type: "string" } } },
      },
    ];
    agent.addMessage({ id: "u1", role: "user", content: "Make it teal" });
    await agent.runAgent({ tools });
    expect(events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "change_background" });
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");

    agent.addMessage({ id: "t1", role: "tool", toolCallId: "call_dev_bg", content: "done" });
    await agent.runAgent({ tools });
    expect(agent.messages.at(-1)?.content).toBe("The background is teal.");

    const runs = (await (
      await fetch(`${url}/sessions/${agent.threadId}/runs?type=agent`, { headers: BEARER })
    ).json()) as Array<{ status: string }>;
    expect(runs.map((r) => r.status)).toEqual(["COMPLETED"]);
  }, 240_000);
});
