import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { base64url, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryDb } from "../../src/db/memory/index.js";
import { exampleAssistant } from "../../src/example/assistant.js";
import { exampleBlogPost } from "../../src/example/blog-post.js";
import { exampleWritingDesk } from "../../src/example/writing-desk.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import type { McpServerOptions } from "../../src/mcp/mcp-server-options.js";
import { mcpServer } from "../../src/mcp/mcp-server.js";
import type { McpTool } from "../../src/mcp/mcp-tool.js";
import type { Turn } from "../support/model-script.js";
import { scriptedModel } from "../support/agent-kit.js";

/**
 * `/mcp` driven by the official MCP clients (the v2 `@modelcontextprotocol/client` and the v1
 * `@modelcontextprotocol/sdk`), in process: their `fetch` goes to the AgentOS's own handler, as
 * a Worker's would. Every tool goes through the REST route it stands for, so the answers,
 * refusals and isolation are the HTTP API's.
 */
const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const USER = ["config:read", "sessions:read", "agents:run", "teams:run", "workflows:run"];
const token = (sub: string, scopes: string[] = USER) =>
  new SignJWT({ scopes })
    .setProtectedHeader({ alg: "HS256", kid: "k" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(secret);

async function deployment(turns: Turn[], mcpOptions: McpServerOptions = {}) {
  const { model, script } = await scriptedModel(turns);
  const db = new MemoryDb();
  const os = new AgentOS({
    agents: [exampleAssistant(model)],
    teams: [exampleWritingDesk(model)],
    workflows: [exampleBlogPost(model)],
    auth: { mode: "jwt", verifier, userIsolation: true },
    mcpServer: mcpServer(mcpOptions),
  });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException: () => undefined };
  const fetch = async (url: string | URL | Request, init?: RequestInit) =>
    os.fetch(new Request(url, init), { dbs: [db] }, ctx);
  return { os, db, script, fetch, settle: () => Promise.allSettled(pending.splice(0)) };
}

type Fetch = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;
const URL_ = new URL("http://os.test/mcp");

/** The v2 client; `modern` negotiates MCP's 2026-07-28 revision (per-request envelope) instead of the 2025 handshake. */
async function v2(fetch: Fetch, bearer?: string, modern = false) {
  const client = new ClientV2(
    { name: "mcp-test", version: "1.0.0" },
    modern ? { versionNegotiation: { mode: "auto" } } : {},
  );
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new TransportV2(URL_, { fetch, requestInit: { headers } }));
  return client;
}

async function v1(fetch: Fetch, bearer?: string) {
  const client = new ClientV1({ name: "mcp-test-v1", version: "1.0.0" });
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  await client.connect(new TransportV1(URL_, { fetch, requestInit: { headers } }));
  return client;
}

const textOf = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>)
    .map((c) => c.text ?? "")
    .join("");

const BUILTIN = [
  "get_agentos_config",
  "run_agent",
  "run_team",
  "run_workflow",
  "continue_run",
  "cancel_run",
  "get_sessions",
  "get_session_runs",
];

describe("the MCP server with the v2 client", () => {
  it("lists agno's eight tools and answers the config", async () => {
    const d = await deployment([]);
    const client = await v2(d.fetch, await token("u-config"));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(BUILTIN);
    const runAgent = tools.find((t) => t.name === "run_agent")!;
    expect(runAgent.inputSchema).toMatchObject({ type: "object", required: ["agent_id", "message"] });
    const config = await client.callTool({ name: "get_agentos_config", arguments: {} });
    expect(config.isError).toBeFalsy();
    expect(config.structuredContent).toMatchObject({
      agents: [{ id: "assistant" }],
      teams: [{ id: "writing-desk" }],
      workflows: [{ id: "blog-post" }],
    });
    await client.close();
  });

  it("runs an agent, streams its tool calls as progress, pauses, continues, and reads the session back", async () => {
    const d = await deployment([
      { toolCalls: [{ name: "get_current_time", arguments: {} }] },
      { text: "It is noon." },
      { toolCalls: [{ name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved." },
    ]);
    const client = await v2(d.fetch, await token("u-run"));
    const progress: string[] = [];
    const ran = await client.callTool(
      { name: "run_agent", arguments: { agent_id: "assistant", message: "What time is it?" } },
      { onprogress: (p) => void progress.push(p.message ?? "") },
    );
    expect(ran.isError).toBeFalsy();
    expect(textOf(ran)).toBe("It is noon.");
    expect(ran.structuredContent).toMatchObject({ status: "COMPLETED" });
    expect(progress).toEqual([
      "Agent assistant started",
      "Tool call started: get_current_time",
      "Tool call completed: get_current_time",
    ]);
    const { session_id, run_id } = ran.structuredContent as { session_id: string; run_id: string };

    // Without a progressToken the run is answered in one piece, into the same session.
    const paused = await client.callTool({
      name: "run_agent",
      arguments: { agent_id: "assistant", message: "Note: buy milk", session_id },
    });
    expect(paused.structuredContent).toMatchObject({ status: "PAUSED", session_id });
    const requirements = (paused.structuredContent as { requirements: Array<Record<string, unknown>> }).requirements;
    expect(requirements).toHaveLength(1);
    const continued = await client.callTool({
      name: "continue_run",
      arguments: {
        agent_id: "assistant",
        run_id: (paused.structuredContent as { run_id: string }).run_id,
        session_id,
        requirements: requirements.map((r) => ({ ...r, confirmed: true })),
      },
    });
    expect(continued.isError, textOf(continued)).toBeFalsy();
    expect(textOf(continued)).toBe("Saved.");

    const sessions = await client.callTool({ name: "get_sessions", arguments: {} });
    expect(
      (sessions.structuredContent as { data: Array<{ session_id: string }> }).data.map((s) => s.session_id),
    ).toEqual([session_id]);
    const history = await client.callTool({ name: "get_session_runs", arguments: { session_id } });
    const runs = (history.structuredContent as { runs: Array<Record<string, unknown>> }).runs;
    expect(runs.map((r) => [r.run_id === run_id, r.status, r.content])).toEqual([
      [true, "COMPLETED", "It is noon."],
      [false, "COMPLETED", "Saved."],
    ]);
    expect(Object.keys(runs[0]!)).not.toContain("messages");
    const one = await client.callTool({ name: "get_session_runs", arguments: { session_id, run_id } });
    expect((one.structuredContent as { runs: Array<Record<string, unknown>> }).runs[0]).toHaveProperty("messages");
    await client.close();
    await d.settle();
  });

  it("runs a team, and a workflow through its review pause", async () => {
    const d = await deployment([{ text: "A short piece." }, { text: "Research notes." }, { text: "The post." }]);
    const client = await v2(d.fetch, await token("u-components"));
    const team = await client.callTool({
      name: "run_team",
      arguments: { team_id: "writing-desk", message: "Write about tea" },
    });
    expect(team.isError, textOf(team)).toBeFalsy();
    expect(textOf(team)).toBe("A short piece.");
    const steps: string[] = [];
    const flow = await client.callTool(
      { name: "run_workflow", arguments: { workflow_id: "blog-post", message: "Tea" } },
      { onprogress: (p) => void steps.push(p.message ?? "") },
    );
    expect(flow.structuredContent).toMatchObject({ status: "PAUSED" });
    expect(steps).toEqual(["Workflow blog-post started", "Step started: research", "Step completed: research"]);
    const { run_id, session_id, requirements } = flow.structuredContent as {
      run_id: string;
      session_id: string;
      requirements: Array<Record<string, unknown>>;
    };
    const done = await client.callTool({
      name: "continue_run",
      arguments: {
        workflow_id: "blog-post",
        run_id,
        session_id,
        requirements: requirements.map((r) => ({ ...r, confirmed: true })),
      },
    });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ status: "COMPLETED" });
    expect(textOf(done)).toBe("The post.");
    await client.close();
    await d.settle();
  });

  it("cancels a run through the run route, and names the ids a lifecycle tool needs", async () => {
    const d = await deployment([{ text: "Hello." }]);
    const client = await v2(d.fetch, await token("u-cancel"));
    const ran = await client.callTool({ name: "run_agent", arguments: { agent_id: "assistant", message: "Hi" } });
    const { run_id, session_id } = ran.structuredContent as { run_id: string; session_id: string };
    const cancel = await client.callTool({
      name: "cancel_run",
      arguments: { agent_id: "assistant", run_id, session_id },
    });
    expect(cancel.isError).toBeFalsy();
    expect(cancel.structuredContent).toMatchObject({ run_id });
    const neither = await client.callTool({ name: "cancel_run", arguments: { run_id } });
    expect(neither).toMatchObject({ isError: true });
    expect(textOf(neither)).toBe("Provide exactly one of agent_id, team_id, or workflow_id");
    await client.close();
  });
});

describe("the MCP server on MCP's 2026-07-28 revision (v2 client, negotiated)", () => {
  it("lists the tools and runs an agent with progress, stateless per request", async () => {
    const d = await deployment([
      { toolCalls: [{ name: "get_current_time", arguments: {} }] },
      { text: "Noon, modern." },
    ]);
    const seen: string[] = [];
    const recording: Fetch = async (url, init) => {
      seen.push(new Headers(init?.headers).get("mcp-protocol-version") ?? "");
      return d.fetch(url, init);
    };
    const client = await v2(recording, await token("u-modern"), true);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(BUILTIN);
    const progress: string[] = [];
    const ran = await client.callTool(
      { name: "run_agent", arguments: { agent_id: "assistant", message: "Time?" } },
      { onprogress: (p) => void progress.push(p.message ?? "") },
    );
    expect(textOf(ran)).toBe("Noon, modern.");
    expect(progress).toEqual([
      "Agent assistant started",
      "Tool call started: get_current_time",
      "Tool call completed: get_current_time",
    ]);
    expect(seen).toContain("2026-07-28");
    await client.close();
    await d.settle();
  });
});

describe("the MCP server with the v1 SDK client", () => {
  it("lists the tools, reads the config, and runs an agent with progress", async () => {
    const d = await deployment([
      { toolCalls: [{ name: "roll_dice", arguments: { sides: 6 } }] },
      { text: "You rolled." },
    ]);
    const client = await v1(d.fetch, await token("u-v1"));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(BUILTIN);
    const config = await client.callTool({ name: "get_agentos_config", arguments: {} });
    expect(config.structuredContent).toMatchObject({ agents: [{ id: "assistant" }] });
    const progress: string[] = [];
    const ran = await client.callTool(
      { name: "run_agent", arguments: { agent_id: "assistant", message: "Roll" } },
      undefined,
      { onprogress: (p) => void progress.push(p.message ?? "") },
    );
    expect(textOf(ran)).toBe("You rolled.");
    expect(progress).toEqual([
      "Agent assistant started",
      "Tool call started: roll_dice",
      "Tool call completed: roll_dice",
    ]);
    const sessions = await client.callTool({ name: "get_sessions", arguments: {} });
    expect((sessions.structuredContent as { data: unknown[] }).data).toHaveLength(1);
    await client.close();
    await d.settle();
  });
});

describe("authentication, scopes and isolation are the HTTP API's", () => {
  it("refuses a missing or bad token with 401, on both clients", async () => {
    const d = await deployment([]);
    await expect(v2(d.fetch)).rejects.toThrow(/401|missing bearer token/);
    await expect(v2(d.fetch, "not-a-jwt")).rejects.toThrow(/401|invalid|token/i);
    await expect(v1(d.fetch)).rejects.toThrow(/401|missing bearer token/);
    const raw = await d.fetch(URL_, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ detail: "missing bearer token", error_id: "unauthorized" });
  });

  it("a token without agents:run gets the route's 403 as a tool error, on both clients", async () => {
    const d = await deployment([]);
    const reader = await token("u-reader", ["config:read", "sessions:read"]);
    const http = await d.fetch("http://os.test/agents/assistant/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${reader}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "hi", stream: false }),
    });
    expect(http.status).toBe(403);
    const { detail } = (await http.json()) as { detail: string };
    expect(detail).toBe("this needs the scope agents:assistant:run");
    for (const client of [await v2(d.fetch, reader), await v1(d.fetch, reader)]) {
      const result = await client.callTool({ name: "run_agent", arguments: { agent_id: "assistant", message: "hi" } });
      expect(result).toMatchObject({ isError: true });
      expect(textOf(result)).toBe(detail);
      // What the token may do still works.
      expect((await client.callTool({ name: "get_agentos_config", arguments: {} })).isError).toBeFalsy();
      await client.close();
    }
    expect(await d.script.requests()).toEqual([]);
  });

  it("user A cannot list, read, continue or cancel user B's session runs", async () => {
    const d = await deployment([{ toolCalls: [{ name: "save_note", arguments: { note: "B's secret" } }] }]);
    const b = await v2(d.fetch, await token("user-b"));
    const paused = await b.callTool({ name: "run_agent", arguments: { agent_id: "assistant", message: "Note it" } });
    const { run_id, session_id, requirements } = paused.structuredContent as {
      run_id: string;
      session_id: string;
      requirements: Array<Record<string, unknown>>;
    };
    expect(paused.structuredContent).toMatchObject({ status: "PAUSED" });
    const a = await v2(d.fetch, await token("user-a"));
    const listed = await a.callTool({ name: "get_sessions", arguments: { user_id: "user-b" } });
    expect((listed.structuredContent as { data: unknown[] }).data).toEqual([]);
    for (const [name, args] of [
      ["get_session_runs", { session_id }],
      ["get_session_runs", { session_id, run_id, user_id: "user-b" }],
      [
        "continue_run",
        {
          agent_id: "assistant",
          run_id,
          session_id,
          user_id: "user-b",
          requirements: requirements.map((r) => ({ ...r, confirmed: true })),
        },
      ],
      ["cancel_run", { agent_id: "assistant", run_id, session_id }],
    ] as const) {
      const result = await a.callTool({ name, arguments: args });
      expect({ name, isError: result.isError, text: textOf(result) }).toEqual({
        name,
        isError: true,
        text: expect.stringMatching(/not found/),
      });
    }
    // B's run is still paused, untouched.
    const own = await b.callTool({ name: "get_session_runs", arguments: { session_id } });
    expect((own.structuredContent as { runs: Array<{ status: string }> }).runs.map((r) => r.status)).toEqual([
      "PAUSED",
    ]);
    await a.close();
    await b.close();
  });
});

describe("transport security and configuration", () => {
  it("refuses a browser Origin that is neither its own nor allowed (403), and answers GET with 405", async () => {
    const d = await deployment([], { allowedOrigins: ["https://console.example"] });
    const bearer = await token("u-origin");
    const post = (origin?: string) =>
      d.fetch(URL_, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearer}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    const evil = await post("https://evil.example");
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ detail: expect.stringContaining("evil.example"), error_id: "forbidden" });
    for (const allowed of ["https://console.example", "http://os.test", "http://localhost:5173"])
      expect((await post(allowed)).status, allowed).toBe(200);
    // The SDK's own refusals carry agno's error fields beside their JSON-RPC error.
    const noAccept = await d.fetch(URL_, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(noAccept.status).toBe(406);
    expect(await noAccept.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { message: expect.stringContaining("Not Acceptable") },
      detail: expect.stringContaining("Not Acceptable"),
      error_id: "mcp_protocol_error",
    });
    const get = await d.fetch(URL_, { headers: { authorization: `Bearer ${bearer}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("without credentials (auth off) answers only localhost and the allowed hosts", async () => {
    const os = new AgentOS({ auth: { mode: "none" }, mcpServer: mcpServer({ allowedHosts: ["os.example"] }) });
    const ping = (host: string) =>
      os.fetch(
        new Request(`http://${host}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        }),
        { dbs: [] },
      );
    expect((await ping("rebound.attacker.example:8787")).status).toBe(403);
    expect((await ping("localhost:8787")).status).toBe(200);
    expect((await ping("os.example")).status).toBe(200);
  });

  it("serves the tools a deployment picks, by tag and name, and its own tools with the caller's identity", async () => {
    const args = z.object({ city: z.string().max(100) });
    const weather: McpTool<typeof args> = {
      name: "weather_now",
      description: "The weather in a city",
      inputSchema: args,
      handler: ({ city }, caller) => `Sunny in ${city} for ${caller.userId}`,
    };
    const d = await deployment([], {
      includeTags: ["core"],
      excludeTools: ["cancel_run"],
      tools: [weather],
    });
    const client = await v2(d.fetch, await token("u-custom"));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "get_agentos_config",
      "run_agent",
      "run_team",
      "run_workflow",
      "continue_run",
      "weather_now",
    ]);
    const result = await client.callTool({ name: "weather_now", arguments: { city: "Lyon" } });
    expect(textOf(result)).toBe("Sunny in Lyon for u-custom");
    await client.close();
    expect(() => new AgentOS({ mcpServer: mcpServer({ enableBuiltinTools: false }) })).toThrow(/serves no tool/);
    expect(() => new AgentOS({ mcpServer: mcpServer({ excludeTools: ["no_such_tool"] }) })).toThrow(/no_such_tool/);
  });

  it("/info says whether /mcp is served", async () => {
    const on = await (
      await new AgentOS({ mcpServer: mcpServer() }).fetch(new Request("http://os.test/info"), { dbs: [] })
    ).json();
    expect(on).toMatchObject({ mcp: { enabled: true, path: "/mcp", oauth: null } });
    const off = await (await new AgentOS({}).fetch(new Request("http://os.test/info"), { dbs: [] })).json();
    expect(off).toMatchObject({ mcp: { enabled: false, path: null } });
  });
});
