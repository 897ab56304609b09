import {
  Client,
  ProtocolError,
  SdkError,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool as McpTool,
} from "@modelcontextprotocol/client";
import { errorMessage, ToolSourceError } from "../../errors.js";
import { jsonSchemaTool } from "../json-schema-tool.js";
import type { Tool, ToolContext } from "../tool.js";
import type { ToolSource, ToolSourceContext } from "../tool-source.js";
import { mcpConnections, type McpConnection } from "./mcp-connections.js";
import { toolResultOf, type McpCallResult } from "./mcp-result.js";

/** Headers for one run, from what is known of it (agno's `header_provider`). */
export type McpHeaderProvider = (
  ctx: ToolSourceContext,
) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;

/** A bearer token for one run (agno's per-server auth token getter); nothing sends no Authorization. */
export type McpAuthTokenGetter = (
  ctx: ToolSourceContext,
) => string | null | undefined | Promise<string | null | undefined>;

export interface MCPToolsOptions {
  /** the server's endpoint, e.g. `https://mcp.example.com/mcp` (or its `/sse` endpoint with `transport: "sse"`) */
  url: string;
  /** default `streamable-http`; `sse` for servers that speak only the older HTTP+SSE transport */
  transport?: "streamable-http" | "sse";
  /** the source's id (default: `mcp_` and the URL's host and path, as agno names the toolkit) */
  name?: string;
  /** sent with every request */
  headers?: Record<string, string>;
  /** headers computed per run (the user's, the session's), merged over `headers` */
  headerProvider?: McpHeaderProvider;
  /** a bearer token computed per run, sent as `Authorization: Bearer <token>` */
  authTokenGetter?: McpAuthTokenGetter;
  /** only these of the server's tools (by the server's names); a name the server lacks is an error */
  include?: string[];
  /** all but these; a name the server lacks is an error */
  exclude?: string[];
  /** the model sees `<prefix>_<name>`, so two servers' tools of one name can live side by side */
  prefix?: string;
  /** how long one request (connect, list, call) may take; default 10 */
  timeoutSeconds?: number;
  /** list the server's tools again at every run instead of keeping the list for `cacheSeconds` */
  refreshConnection?: boolean;
  /** how long this isolate keeps a server's tool list; default 300 */
  cacheSeconds?: number;
  /** these tools (server names) pause the run for a person's confirmation first */
  requiresConfirmationTools?: string[];
  /** these tools (server names) end the run with their answer */
  stopAfterToolCallTools?: string[];
  /**
   * When the server cannot be reached (or refuses) at the start of a run: false (agno's
   * behaviour, the default) logs it and runs without the server's tools; true fails the run.
   */
  required?: boolean;
  /** the fetch the transports use (e.g. a service binding's); default the global fetch */
  fetch?: typeof fetch;
}

const CLIENT_INFO = { name: "agno-edge", version: "0.1.0" };
const MAX_PAGES = 20;

/**
 * The tools of one remote MCP server (agno's MCPTools), as a ToolSource: each run gets the
 * server's tools (listed once and kept per isolate), each described by the server's own JSON
 * Schema. A call's text answers the model; its images and other media join the run's media; a
 * failure (an error result, a timeout, the server gone) is a tool error the model reads.
 *
 * @example
 * const github = new MCPTools({
 *   url: "https://mcp.example.com/mcp",
 *   authTokenGetter: ({ userId }) => tokens.get(userId),
 *   include: ["search_issues", "get_issue"],
 *   prefix: "gh",
 * });
 * const agent = new Agent({ name: "triage", model, tools: [github] });
 */
export class MCPTools implements ToolSource {
  readonly id: string;
  readonly url: string;
  readonly transport: "streamable-http" | "sse";
  private readonly opts: MCPToolsOptions;
  private readonly timeoutMs: number;
  /** the URL without query, fragment or credentials: what messages name */
  private readonly label: string;

  constructor(opts: MCPToolsOptions) {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw new TypeError(`MCPTools: url ${JSON.stringify(opts.url)} is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new TypeError("MCPTools: url must be http or https");
    const transport = opts.transport ?? "streamable-http";
    if (transport !== "streamable-http" && transport !== "sse")
      throw new TypeError(`MCPTools: transport must be "streamable-http" or "sse"`);
    const timeout = opts.timeoutSeconds ?? 10;
    if (!(timeout > 0)) throw new TypeError("MCPTools: timeoutSeconds must be > 0");
    if (opts.prefix !== undefined && !/^[a-zA-Z0-9_-]{1,32}$/.test(opts.prefix))
      throw new TypeError("MCPTools: prefix must be 1 to 32 letters, digits, _ or -");
    this.opts = opts;
    this.url = url.href;
    this.transport = transport;
    this.timeoutMs = timeout * 1000;
    this.label = `${url.host}${url.pathname}`;
    this.id = opts.name ?? defaultName(this.label);
  }

  async resolveTools(ctx: ToolSourceContext): Promise<Tool[]> {
    let headers: Record<string, string>;
    let listed: McpTool[];
    try {
      headers = await this.headersFor(ctx);
      listed = this.filter(await this.discover(headers, ctx.signal));
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      const problem = `MCP server ${this.label} is unavailable: ${describe(error, this.opts.timeoutSeconds ?? 10)}`;
      if (this.opts.required) throw new ToolSourceError(problem, { cause: error });
      console.warn(`${problem}; run ${ctx.runId} goes on without its tools`);
      return [];
    }
    const names = new Set<string>();
    return listed.map((t) => {
      const name = this.modelName(t.name);
      if (names.has(name))
        throw new ToolSourceError(`MCP server ${this.label}: two tools are named ${name} once made valid`);
      names.add(name);
      return jsonSchemaTool({
        name,
        description: t.description ?? t.title,
        inputSchema: t.inputSchema as Record<string, unknown>,
        requiresConfirmation: this.opts.requiresConfirmationTools?.includes(t.name) || undefined,
        stopAfterToolCall: this.opts.stopAfterToolCallTools?.includes(t.name),
        execute: (args, callCtx) => this.call(t.name, args, headers, callCtx),
      });
    });
  }

  /** The name the model sees: prefixed, and made of what every provider accepts. */
  private modelName(name: string): string {
    const full = this.opts.prefix ? `${this.opts.prefix}_${name}` : name;
    return full.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  }

  private async headersFor(ctx: ToolSourceContext): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.opts.headers, ...(await this.opts.headerProvider?.(ctx)) };
    const token = await this.opts.authTokenGetter?.(ctx);
    if (token) headers.authorization = `Bearer ${token}`;
    return headers;
  }

  private filter(tools: McpTool[]): McpTool[] {
    const available = new Set(tools.map((t) => t.name));
    for (const [option, names] of [
      ["include", this.opts.include],
      ["exclude", this.opts.exclude],
    ] as const) {
      const missing = (names ?? []).filter((n) => !available.has(n));
      if (missing.length > 0) throw new Error(`${option} names tools the server does not have: ${missing.join(", ")}`);
    }
    return tools.filter(
      (t) => (this.opts.include ? this.opts.include.includes(t.name) : true) && !this.opts.exclude?.includes(t.name),
    );
  }

  /** The key of this server reached with `headers`: one connection and one tool list per key. */
  private key(headers: Record<string, string>): string {
    const sorted = Object.entries(headers)
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort(([a], [b]) => (a! < b! ? -1 : 1));
    return `${this.transport} ${this.url} ${JSON.stringify(sorted)}`;
  }

  private async discover(headers: Record<string, string>, signal?: AbortSignal): Promise<McpTool[]> {
    const entry = mcpConnections.get(this.key(headers));
    const maxAge = (this.opts.cacheSeconds ?? 300) * 1000;
    const cached = entry.tools;
    if (cached && !this.opts.refreshConnection && Date.now() - cached.at < maxAge) {
      try {
        return await cached.list;
      } catch {
        // A failed listing is not kept: list again.
      }
    }
    const list = this.withClient(entry, headers, signal, (client) => listAll(client, this.timeoutMs, signal));
    entry.tools = { list, at: Date.now() };
    void list.catch(() => {
      if (entry.tools?.list === list) entry.tools = undefined;
    });
    return list;
  }

  private async call(
    name: string,
    args: Record<string, unknown>,
    headers: Record<string, string>,
    ctx: ToolContext,
  ): Promise<unknown> {
    const entry = mcpConnections.get(this.key(headers));
    let result: McpCallResult;
    try {
      result = (await this.withClient(entry, headers, ctx.signal, (client) =>
        client.callTool({ name, arguments: args }, { timeout: this.timeoutMs, signal: ctx.signal }),
      )) as McpCallResult;
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      // The server answered (an error, or an HTTP status): it is reachable, and the message says why it refused.
      const answered = error instanceof ProtocolError || error instanceof SdkHttpError;
      const server = answered ? "" : " The MCP server may be unreachable or the request timed out.";
      throw new Error(`MCP tool '${name}' failed: ${describe(error, this.opts.timeoutSeconds ?? 10)}.${server}`);
    }
    return toolResultOf(name, result);
  }

  /**
   * Runs `work` with a connected client. Streamable HTTP keeps its client per isolate (a later
   * run reuses it; a failure other than the server's own answer drops it); the SSE transport
   * holds a stream open for the connection's life, which must not outlive the request that
   * opened it on Workers, so it connects for each piece of work and closes after.
   */
  private async withClient<T>(
    entry: McpConnection,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    work: (client: Client) => Promise<T>,
  ): Promise<T> {
    if (this.transport === "sse") {
      const client = await this.connect(headers, signal);
      try {
        return await work(client);
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    const reused = entry.client !== undefined;
    const pending = (entry.client ??= this.connect(headers));
    try {
      return await work(await pending);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      mcpConnections.dropClient(entry, pending);
      // A kept connection the request never got through on (its session forgotten by a restarted
      // server, or the connection unusable here) is replaced once; nothing ran, so nothing runs twice.
      if (!reused || !notDelivered(error)) throw error;
      return this.withClient(entry, headers, signal, work);
    }
  }

  private async connect(headers: Record<string, string>, signal?: AbortSignal): Promise<Client> {
    const base = this.opts.fetch ?? ((input, init) => fetch(input, init));
    const url = new URL(this.url);
    const transport =
      this.transport === "sse"
        ? new SSEClientTransport(url, { requestInit: { headers }, fetch: base })
        : new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: withoutServerStream(base) });
    const client = new Client(CLIENT_INFO);
    await client.connect(transport, { timeout: this.timeoutMs, ...(signal ? { signal } : {}) });
    return client;
  }
}

/**
 * Streamable HTTP's optional GET stream carries what the server sends unasked (sampling,
 * list changes), which these tools do not use; refused here as a server without one refuses it,
 * so a connection kept for later runs holds no stream open.
 */
function withoutServerStream(base: typeof fetch): typeof fetch {
  return (input, init) =>
    (init?.method ?? "GET").toUpperCase() === "GET"
      ? Promise.resolve(new Response(null, { status: 405 }))
      : base(input, init);
}

/** Whether the request was refused before the server did anything with it. */
function notDelivered(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status === 404;
  if (error instanceof SdkError && error.code === "NOT_CONNECTED") return true;
  return /different request|I\/O on behalf of/i.test(errorMessage(error));
}

async function listAll(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor ? { cursor } : undefined, {
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/** What went wrong, in words that say where to look (never the headers, which may hold secrets). */
function describe(error: unknown, timeoutSeconds: number): string {
  if (error instanceof SdkHttpError) {
    if (error.status === 401 || error.status === 403)
      return `the server refused the credentials (HTTP ${error.status}): check its token or headers`;
    return `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ""}`;
  }
  if (error instanceof SdkError && error.code === "REQUEST_TIMEOUT")
    return `no answer within ${timeoutSeconds} s (timeoutSeconds)`;
  const message = errorMessage(error);
  if (/\b401\b|unauthori[sz]ed/i.test(message))
    return `the server refused the credentials (HTTP 401): check its token or headers`;
  const cause = (error as { cause?: unknown })?.cause;
  return cause ? `${message} (${errorMessage(cause)})` : message;
}

/** agno's default toolkit name: `mcp_` and the URL's host and path as a slug. */
function defaultName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return slug ? `mcp_${slug}`.slice(0, 64) : "MCPTools";
}
