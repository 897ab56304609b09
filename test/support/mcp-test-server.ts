import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { McpServer as McpServerV1 } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { syntheticJpeg } from "./media-jpeg.js";

/**
 * A remote MCP server for the client tests, built with the official SDKs on a node http server:
 *
 *   POST|GET|DELETE /mcp   Streamable HTTP (`@modelcontextprotocol/server`'s `createMcpHandler`, stateless)
 *   GET /sse + POST /messages?sessionId=…   the older HTTP+SSE transport (v1 `@modelcontextprotocol/sdk`)
 *   /stateful              Streamable HTTP with sessions (v1 SDK); `forgetSessions()` acts out a restart
 *
 * Its tools: add, echo, whoami (the Authorization header it was called with), picture (an image
 * result), document (an embedded resource), slow (answers after `ms`), broken (an error result).
 * With `token`, a request without `Authorization: Bearer <token>` (or one of `tokens`) gets 401.
 * Every request's method, path and headers are recorded.
 */
export interface McpTestServer {
  url: string;
  /** the Streamable HTTP endpoint */
  mcpUrl: string;
  /** the SSE endpoint */
  sseUrl: string;
  requests: Array<{ method: string; path: string; headers: Record<string, string | undefined>; body?: unknown }>;
  /** the endpoint with sessions */
  statefulUrl: string;
  /** drops every session of `/stateful`, as a restarted server would: their ids get 404 */
  forgetSessions(): void;
  /** refuses `token` (a revoked credential) until `unrevoke` */
  revoke(token: string): void;
  unrevoke(token: string): void;
  /** the JSON-RPC methods posted, in order */
  methods(): string[];
  stop(): Promise<void>;
}

export const PICTURE = syntheticJpeg(600, 7);

function buildTools(server: { registerTool: McpServer["registerTool"] }, auth: () => string | undefined) {
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "echo",
    { description: "Echoes a message", inputSchema: z.object({ message: z.string().describe("what to echo") }) },
    ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  server.registerTool("whoami", { description: "Who is calling" }, () => ({
    content: [{ type: "text", text: auth() ?? "anonymous" }],
  }));
  server.registerTool("picture", { description: "Draws a picture" }, () => ({
    content: [
      { type: "text", text: "here is your picture" },
      { type: "image", data: Buffer.from(PICTURE).toString("base64"), mimeType: "image/jpeg" },
    ],
  }));
  server.registerTool("document", { description: "A document as a resource" }, () => ({
    content: [
      { type: "resource", resource: { uri: "memo://q3", mimeType: "text/plain", text: "Q3 revenue grew 12%" } },
    ],
  }));
  server.registerTool(
    "slow",
    { description: "Answers late", inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }) => {
      await sleep(ms);
      return { content: [{ type: "text", text: `slept ${ms}` }] };
    },
  );
  server.registerTool("broken", { description: "Always fails" }, () => ({
    isError: true,
    content: [{ type: "text", text: "the database is on fire" }],
  }));
}

export async function startMcpTestServer(opts: { token?: string; tokens?: string[] } = {}): Promise<McpTestServer> {
  const accepted = new Set([...(opts.token ? [opts.token] : []), ...(opts.tokens ?? [])]);
  const requests: McpTestServer["requests"] = [];
  const revoked = new Set<string>();
  const handler = createMcpHandler(({ requestInfo }) => {
    const server = new McpServer({ name: "test-server", version: "1.0.0" });
    buildTools(server, () => requestInfo?.headers.get("authorization") ?? undefined);
    return server;
  });
  const sse = new Map<string, SSEServerTransport>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://local");
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v]),
    );
    const body = req.method === "POST" ? await readBody(req) : undefined;
    const record = { method: req.method ?? "GET", path: url.pathname, headers, body: parseMaybe(body) };
    requests.push(record);
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    if ((accepted.size > 0 && !(bearer && accepted.has(bearer))) || (bearer && revoked.has(bearer))) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" });
      res.end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    if (url.pathname === "/mcp") {
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: headers as Record<string, string>,
        body: body && body.length > 0 ? new Uint8Array(body) : undefined,
      });
      const response = await handler.fetch(request);
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => (out[name] = value));
      res.writeHead(response.status, out);
      if (!response.body) return void res.end();
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
      return;
    }
    if (url.pathname === "/stateful") {
      const id = headers["mcp-session-id"];
      let transport = id ? sessions.get(id) : undefined;
      if (id && !transport) return void res.writeHead(404).end(JSON.stringify({ error: "unknown session" }));
      if (!transport) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, created),
        });
        const server = new McpServerV1({ name: "test-stateful-server", version: "1.0.0" });
        buildTools(server as unknown as { registerTool: McpServer["registerTool"] }, () => headers.authorization);
        await server.connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, record.body);
      return;
    }
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sse.set(transport.sessionId, transport);
      res.on("close", () => sse.delete(transport.sessionId));
      const server = new McpServerV1({ name: "test-sse-server", version: "1.0.0" });
      buildTools(server as unknown as { registerTool: McpServer["registerTool"] }, () => headers.authorization);
      await server.connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sse.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) return void res.writeHead(404).end();
      await transport.handlePostMessage(req, res, record.body);
      return;
    }
    res.writeHead(404).end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mcpUrl: `${url}/mcp`,
    sseUrl: `${url}/sse`,
    statefulUrl: `${url}/stateful`,
    forgetSessions: () => sessions.clear(),
    revoke: (token) => void revoked.add(token),
    unrevoke: (token) => void revoked.delete(token),
    requests,
    methods: () =>
      requests.flatMap((r) => {
        const b = r.body as { method?: string } | { method?: string }[] | undefined;
        return (Array.isArray(b) ? b : b ? [b] : []).map((m) => m.method ?? "(response)");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseMaybe(body: Buffer | undefined): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return body.toString("utf8");
  }
}
