import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Agent, CodeMode, MCPTools, Team } from "../../src/sdk.js";
import { memoryCodeRunner } from "../../src/codemode/memory-runner.js";
import type { RunEvent } from "../../src/agent/events.js";
import type { ToolSourceContext } from "../../src/tools/tool-source.js";
import { mcpConnections } from "../../src/tools/mcp/mcp-connections.js";
import { toolResultOf } from "../../src/tools/mcp/mcp-result.js";
import { collect, memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { PICTURE, startMcpTestServer, type McpTestServer } from "../support/mcp-test-server.js";

const ctx = (userId: string | null = null): ToolSourceContext => ({
  runId: crypto.randomUUID(),
  sessionId: crypto.randomUUID(),
  userId,
  sessionState: {},
  dependencies: {},
  component: { type: "agent", id: "test" },
});

/** The messages the model was sent in its `n`th request. */
async function sent(script: { requests(): Promise<Array<{ body: Record<string, unknown> }>> }, n: number) {
  return (await script.requests())[n]!.body as {
    messages: Array<{ role: string; content: unknown }>;
    tools?: Array<{ function: { name: string; parameters: unknown } }>;
  };
}

describe("MCPTools against a server built with the official SDK", () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer();
  });
  afterAll(() => server.stop());
  afterEach(() => mcpConnections.clear());

  it("lists the server's tools with their JSON Schemas, filtered by include/exclude and prefixed", async () => {
    const all = await new MCPTools({ url: server.mcpUrl }).resolveTools(ctx());
    expect(all.map((t) => t.name).sort()).toEqual(["add", "broken", "document", "echo", "picture", "slow", "whoami"]);
    const echo = all.find((t) => t.name === "echo")!.definition();
    expect(echo).toMatchObject({
      name: "echo",
      description: "Echoes a message",
      parameters: { type: "object", properties: { message: { type: "string", description: "what to echo" } } },
    });
    expect(echo.parameters).not.toHaveProperty("$schema");

    const some = await new MCPTools({ url: server.mcpUrl, include: ["add", "echo"], prefix: "calc" }).resolveTools(
      ctx(),
    );
    expect(some.map((t) => t.name)).toEqual(["calc_add", "calc_echo"]);
    const rest = await new MCPTools({ url: server.mcpUrl, exclude: ["slow", "broken"] }).resolveTools(ctx());
    expect(rest.map((t) => t.name)).not.toContain("slow");
    expect(rest).toHaveLength(5);
    // agno's default toolkit name, from the URL
    expect(new MCPTools({ url: `${server.mcpUrl}?key=secret` }).id).toBe(
      `mcp_127_0_0_1_${new URL(server.url).port}_mcp`,
    );
  });

  it("a name in include that the server lacks is an error (a run without the server, or a failed one if required)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(await new MCPTools({ url: server.mcpUrl, include: ["nope"] }).resolveTools(ctx())).toEqual([]);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/include names tools the server does not have: nope/);
    warn.mockRestore();
    await expect(
      new MCPTools({ url: server.mcpUrl, include: ["nope"], required: true }).resolveTools(ctx()),
    ).rejects.toThrow(/is unavailable: include names tools the server does not have: nope/);
  });

  it("an agent's run calls a remote tool and answers with its result; the connection is reused by the next run", async () => {
    const before = server.methods().filter((m) => m === "initialize" || m === "server/discover").length;
    const listsBefore = server.methods().filter((m) => m === "tools/list").length;
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "math_add", arguments: { a: 2, b: 40 } }] },
      { text: "It is 42." },
      { toolCalls: [{ name: "math_add", arguments: { a: 1, b: 1 } }] },
      { text: "2." },
    ]);
    const agent = new Agent({ model, tools: [new MCPTools({ url: server.mcpUrl, prefix: "math", include: ["add"] })] });
    const out = await agent.run("What is 2 + 40?");
    expect(out.status).toBe("COMPLETED");
    expect(out.content).toBe("It is 42.");
    expect(out.tools[0]).toMatchObject({ tool_name: "math_add", result: "42" });
    const first = await sent(script, 0);
    expect(first.tools?.map((t) => t.function.name)).toEqual(["math_add"]);
    expect(first.tools?.[0]?.function.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect((await sent(script, 1)).messages.at(-1)).toMatchObject({ role: "tool", content: "42" });

    expect((await agent.run("1 + 1?")).content).toBe("2.");
    // One handshake for both runs: the isolate kept the connection and the tool list.
    const handshakes = server.methods().filter((m) => m === "initialize" || m === "server/discover").length;
    expect(handshakes - before).toBe(1);
    expect(server.methods().filter((m) => m === "tools/list").length - listsBefore).toBe(1);
  });

  it("a kept session the server has forgotten (a restart) is replaced, and the call goes through", async () => {
    const source = new MCPTools({ url: server.statefulUrl, include: ["add"] });
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] },
      { text: "2" },
      { toolCalls: [{ name: "add", arguments: { a: 2, b: 2 } }] },
      { text: "4" },
    ]);
    const agent = new Agent({ model, tools: [source] });
    expect((await agent.run("1 + 1")).tools[0]).toMatchObject({ result: "2" });
    const sessionsBefore = new Set(server.requests.map((r) => r.headers["mcp-session-id"]).filter(Boolean));
    server.forgetSessions();
    const out = await agent.run("2 + 2");
    expect(out.tools[0]).toMatchObject({ result: "4", tool_call_error: undefined });
    const statefulCalls = server.requests.filter((r) => r.path === "/stateful" && r.method === "POST");
    const last = statefulCalls.at(-1)!;
    expect(sessionsBefore.has(last.headers["mcp-session-id"])).toBe(false);
    expect(
      statefulCalls.filter((r) => r.headers["mcp-session-id"] && sessionsBefore.has(r.headers["mcp-session-id"]))
        .length,
    ).toBeGreaterThan(0);
  });

  it("a server's error result, and bad arguments the server refuses, are tool errors the model reads", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { name: "broken", arguments: {} },
          { name: "add", arguments: { a: "two" } },
        ],
      },
      { text: "Sorry." },
    ]);
    const out = await new Agent({ model, tools: [new MCPTools({ url: server.mcpUrl })] }).run("go");
    expect(out.status).toBe("COMPLETED");
    expect(out.tools[0]).toMatchObject({ tool_call_error: true });
    expect(out.tools[0]!.result).toMatch(/MCP tool 'broken' answered with an error: the database is on fire/);
    expect(out.tools[1]).toMatchObject({ tool_call_error: true });
    expect(out.tools[1]!.result).toMatch(/add/);
    expect(out.tools[1]!.result).toMatch(/a|b/);
    expect((await sent(script, 1)).messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("an image result becomes the run's media and is shown to the model; an embedded resource is text", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { name: "picture", arguments: {} },
          { name: "document", arguments: {} },
        ],
      },
      { text: "A grey square; revenue grew." },
    ]);
    const out = await new Agent({ model, tools: [new MCPTools({ url: server.mcpUrl })] }).run("draw");
    expect(out.status).toBe("COMPLETED");
    expect(out.tools[0]!.result).toBe("here is your picture\nImage has been generated and added to the response.");
    expect(out.images).toHaveLength(1);
    expect(out.images![0]).toMatchObject({ mime_type: "image/jpeg", content: Buffer.from(PICTURE).toString("base64") });
    expect(out.tools[1]!.result).toContain("[Embedded resource memo://q3 (text/plain)]\nQ3 revenue grew 12%");
    // As agno: a user message after the tool answers carries the media to the model.
    const media = out.messages.find((m) => m.role === "user" && Array.isArray(m.images));
    expect(media).toMatchObject({ content: "The tool call above generated the attached media." });
    const second = await sent(script, 1);
    const last = second.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last.content)).toContain(Buffer.from(PICTURE).toString("base64").slice(0, 40));
  });

  it("a slow tool times out as a tool error naming timeoutSeconds", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "slow", arguments: { ms: 3000 } }] },
      { text: "Too slow." },
    ]);
    const started = Date.now();
    const out = await new Agent({ model, tools: [new MCPTools({ url: server.mcpUrl, timeoutSeconds: 0.4 })] }).run(
      "wait",
    );
    expect(Date.now() - started).toBeLessThan(2500);
    expect(out.tools[0]).toMatchObject({ tool_call_error: true });
    expect(out.tools[0]!.result).toMatch(/MCP tool 'slow' failed: no answer within 0.4 s \(timeoutSeconds\)/);
    expect(out.content).toBe("Too slow.");
  });

  it("speaks the older SSE transport to an SSE server (v1 SDK)", async () => {
    const source = new MCPTools({ url: server.sseUrl, transport: "sse", include: ["add", "echo"] });
    const tools = await source.resolveTools(ctx());
    expect(tools.map((t) => t.name)).toEqual(["add", "echo"]);
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "echo", arguments: { message: "over sse" } }] },
      { text: "done" },
    ]);
    const out = await new Agent({ model, tools: [source] }).run("echo");
    expect(out.tools[0]).toMatchObject({ tool_name: "echo", result: "over sse" });
    expect(server.requests.some((r) => r.path === "/messages")).toBe(true);
  });

  it("a CodeMode cell calls MCP tools like any other tool", async () => {
    const runner = memoryCodeRunner(() => newQuickJSWASMModuleFromVariant(releaseSync));
    const code = 'const a = await add({ a: 2, b: 3 }); const e = await echo({ message: "x" + a }); return { a, e };';
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "run_code", arguments: { code } }] },
      { text: "5 and x5" },
    ]);
    const codeMode = new CodeMode({ tools: [new MCPTools({ url: server.mcpUrl, include: ["add", "echo"] })], runner });
    const out = await new Agent({ model, tools: [codeMode] }).run("compute");
    expect(out.status).toBe("COMPLETED");
    expect(JSON.parse(out.tools[0]!.result!)).toEqual({ result: { a: "5", e: "x5" } });
    const description = JSON.stringify((await sent(script, 0)).tools);
    expect(description).toContain("declare function add(args:");
    expect(description).toContain("declare function echo(args:");
  });

  it("a tool that requires confirmation pauses the run; the continued run asks the server again and calls it", async () => {
    const { db } = memoryTestDb();
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "c1", name: "add", arguments: { a: 1, b: 2 } }] },
      { text: "3" },
    ]);
    const agent = () =>
      new Agent({
        model,
        db,
        tools: [new MCPTools({ url: server.mcpUrl, include: ["add"], requiresConfirmationTools: ["add"] })],
      });
    const paused = await agent().run("1 + 2?");
    expect(paused.status).toBe("PAUSED");
    expect(paused.requirements[0]).toMatchObject({ kind: "confirmation", tool_execution: { tool_name: "add" } });
    // Another isolate, as far as the continue knows: nothing cached.
    mcpConnections.clear();
    const out = await agent().continueRun(paused.run_id, { requirements: [{ id: "c1", confirmed: true }] });
    expect(out.status).toBe("COMPLETED");
    expect(out.tools[0]).toMatchObject({ tool_name: "add", result: "3" });
  });

  it("a team's leader gets a server's tools too", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "add", arguments: { a: 20, b: 22 } }] },
      { text: "42" },
    ]);
    const member = new Agent({ name: "helper", model });
    const team = new Team({
      name: "crew",
      model,
      members: [member],
      tools: [new MCPTools({ url: server.mcpUrl, include: ["add"] })],
    });
    const out = await team.run("add");
    expect(out.tools.find((t) => t.tool_name === "add")).toMatchObject({ result: "42" });
  });
});

describe("MCP results", () => {
  it("bounds media as a run's own media are bounded, and reads agno's JSON image and structured-only results", () => {
    const big = { type: "image", data: "A".repeat(4000), mimeType: "image/png" };
    const small = { type: "image", data: "AAAA", mimeType: "image/png" };
    const limited = toolResultOf("t", { content: [big, small, small] }, { maxItemBytes: 1000, maxItems: 1 });
    expect(limited.images).toHaveLength(1);
    expect(limited.content).toBe(
      [
        "[Image of about 3000 bytes left out: over the media limits]",
        "Image has been generated and added to the response.",
        "[Image of about 3 bytes left out: over the media limits]",
      ].join("\n"),
    );
    const json = toolResultOf("t", {
      content: [{ type: "text", text: JSON.stringify({ type: "image", data: "AAAA", mimeType: "image/gif" }) }],
    });
    expect(json.images?.[0]).toMatchObject({ mime_type: "image/gif", content: "AAAA" });
    expect(toolResultOf("t", { content: [], structuredContent: { total: 3 } }).content).toBe('{"total":3}');
    expect(() => toolResultOf("t", { isError: true, content: [{ type: "text", text: "no" }] })).toThrow(
      "MCP tool 't' answered with an error: no",
    );
  });
});

describe("MCPTools authentication", () => {
  let server: McpTestServer;
  beforeAll(async () => {
    server = await startMcpTestServer({ tokens: ["tok-ann", "tok-bob"] });
  });
  afterAll(() => server.stop());
  afterEach(() => mcpConnections.clear());

  it("sends each run's token from authTokenGetter (per user), and static headers on every request", async () => {
    const getter = vi.fn((c: ToolSourceContext) => (c.userId ? `tok-${c.userId}` : null));
    const source = new MCPTools({ url: server.mcpUrl, authTokenGetter: getter, headers: { "x-tenant": "acme" } });
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "whoami", arguments: {} }] },
      { text: "ann" },
      { toolCalls: [{ name: "whoami", arguments: {} }] },
      { text: "bob" },
    ]);
    const agent = new Agent({ model, tools: [source] });
    const ann = await agent.run("who?", { userId: "ann" });
    expect(ann.tools[0]).toMatchObject({ result: "Bearer tok-ann" });
    const bob = await agent.run("who?", { userId: "bob" });
    expect(bob.tools[0]).toMatchObject({ result: "Bearer tok-bob" });
    expect(getter).toHaveBeenCalledWith(expect.objectContaining({ userId: "ann", component: agent.ref }));
    const posts = server.requests.filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(4);
    for (const r of posts) {
      expect(r.headers["x-tenant"]).toBe("acme");
      expect(["Bearer tok-ann", "Bearer tok-bob"]).toContain(r.headers.authorization);
    }
  });

  it("the SSE transport sends the token on its stream and on every message", async () => {
    const source = new MCPTools({
      url: server.sseUrl,
      transport: "sse",
      authTokenGetter: () => "tok-bob",
      include: ["whoami"],
    });
    const { model } = await scriptedModel([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "bob" }]);
    const out = await new Agent({ model, tools: [source] }).run("who?");
    expect(out.tools[0]).toMatchObject({ result: "Bearer tok-bob" });
    const sse = server.requests.filter((r) => r.path === "/sse" || r.path === "/messages");
    expect(sse.some((r) => r.method === "GET")).toBe(true);
    for (const r of sse) expect(r.headers.authorization).toBe("Bearer tok-bob");
  });

  it("a token refused at call time (after the tools were listed) is a tool error saying so", async () => {
    const source = new MCPTools({ url: server.mcpUrl, include: ["whoami"], authTokenGetter: () => "tok-ann" });
    const tools = await source.resolveTools(ctx());
    const { model } = await scriptedModel([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "denied" }]);
    // The run's tools were resolved with a good token; the server now refuses it (revoked).
    server.revoke("tok-ann");
    const out = await new Agent({ model, tools }).run("who?");
    server.unrevoke("tok-ann");
    expect(out.tools[0]).toMatchObject({ tool_call_error: true });
    expect(out.tools[0]!.result).toBe(
      "Error: MCP tool 'whoami' failed: the server refused the credentials (HTTP 401): check its token or headers.",
    );
  });

  it("headerProvider derives headers from the run", async () => {
    const source = new MCPTools({
      url: server.mcpUrl,
      headerProvider: (c) => ({ authorization: `Bearer tok-${String(c.dependencies.who)}` }),
    });
    const { model } = await scriptedModel([{ toolCalls: [{ name: "whoami", arguments: {} }] }, { text: "ok" }]);
    const out = await new Agent({ model, tools: [source] }).run("who?", { dependencies: { who: "bob" } });
    expect(out.tools[0]).toMatchObject({ result: "Bearer tok-bob" });
  });

  it("a 401 fails a run whose server is required with a clear error; otherwise the run goes on without its tools", async () => {
    const { model, script } = await scriptedModel([{ text: "never" }]);
    const required = new MCPTools({ url: server.mcpUrl, authTokenGetter: () => "wrong", required: true });
    const events = await collect(new Agent({ model, tools: [required] }).run("who?", { stream: true }));
    const last = events.at(-1) as Extract<RunEvent, { event: "RunError" }>;
    expect(last.event).toBe("RunError");
    expect(last.content).toMatch(
      new RegExp(`MCP server 127.0.0.1:\\d+/mcp is unavailable: the server refused the credentials \\(HTTP 401\\)`),
    );
    expect(await script.requests()).toHaveLength(0);

    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const other = await scriptedModel([{ text: "I have no tools." }]);
    const optional = new MCPTools({ url: server.mcpUrl, authTokenGetter: () => "wrong" });
    const out = await new Agent({ model: other.model, tools: [optional] }).run("who?");
    expect(out.content).toBe("I have no tools.");
    expect((await sent(other.script, 0)).tools).toBeUndefined();
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/refused the credentials \(HTTP 401\).*goes on without its tools/);
    warn.mockRestore();
  });
});

describe("MCPTools when the server is gone", () => {
  afterEach(() => mcpConnections.clear());

  it("a server down at the start of a required run fails it clearly", async () => {
    const gone = await startMcpTestServer();
    await gone.stop();
    const { model } = await scriptedModel([{ text: "never" }]);
    const events = await collect(
      new Agent({ model, tools: [new MCPTools({ url: gone.mcpUrl, required: true })] }).run("hi", { stream: true }),
    );
    const last = events.at(-1) as Extract<RunEvent, { event: "RunError" }>;
    expect(last.event).toBe("RunError");
    expect(last.content).toMatch(/MCP server 127\.0\.0\.1:\d+\/mcp is unavailable: fetch failed/);
  });

  it("a server that goes away after its tools were listed gives the model a tool error", async () => {
    const server = await startMcpTestServer();
    const source = new MCPTools({ url: server.mcpUrl, include: ["add"] });
    const first = await scriptedModel([{ text: "warm" }]);
    await new Agent({ model: first.model, tools: [source] }).run("list them");
    await server.stop();
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { text: "The calculator is down." },
    ]);
    const out = await new Agent({ model, tools: [source] }).run("1 + 2?");
    expect(out.status).toBe("COMPLETED");
    expect(out.tools[0]).toMatchObject({ tool_call_error: true });
    expect(out.tools[0]!.result).toMatch(/MCP tool 'add' failed: .*The MCP server may be unreachable/);
  });
});
