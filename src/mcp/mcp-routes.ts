import type { OpenAPIHono } from "@hono/zod-openapi";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import { z } from "zod";
import { ForbiddenError } from "../errors.js";
import { principalOf } from "../os/auth/scopes.js";
import type { OSEnv } from "../os/context.js";
import { errorResponse } from "../os/errors.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, jsonObject, routeApp } from "../os/route.js";
import type { McpTool } from "./mcp-tool.js";
import { mcpServerFor, type CallerBase } from "./mcp-server-for.js";
import { transportRefusal, type TransportGuardOptions } from "./transport-guard.js";

const tags: ["MCP"] = ["MCP"];
/** Any authenticated caller connects; each tool call needs the scope of the route it goes through. */
const scope = { resource: "mcp", action: "call", perItem: "checked per tool call" } as const;

/** One JSON-RPC message (MCP sends one per POST): validated, bounded and free of NUL before the SDK reads it. */
const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([idSchema, z.number().int()]).optional(),
    method: z.string().min(1).max(255).optional(),
    params: jsonObject.optional(),
    result: jsonObject.optional(),
    error: jsonObject.optional(),
  })
  .meta({ id: "JsonRpcMessage", description: "A JSON-RPC 2.0 request, notification or response (MCP's wire)" });
const jsonRpcAnswer = z
  .object({ jsonrpc: z.literal("2.0") })
  .loose()
  .meta({ id: "JsonRpcAnswer" });

const post = defineRoute({
  method: "post",
  path: "/mcp",
  tags,
  summary: "The MCP server (Streamable HTTP, stateless): agno's tools for running agents, teams and workflows",
  description:
    "Connect any MCP client to this URL with the same bearer token as the REST routes. Each tool goes through the REST route it stands for, as the caller: " +
    "get_agentos_config needs config:read, run_agent agents:<id>:run, run_team teams:<id>:run, run_workflow workflows:<id>:run, continue_run and cancel_run the run scope of the component, " +
    "get_sessions and get_session_runs sessions:read; a refusal is a tool error with the route's detail. A browser Origin that is neither this server's nor allowed is refused (403).",
  scope,
  request: { body: jsonBody(jsonRpcMessage) },
  responses: {
    200: {
      description: "The JSON-RPC answer, as JSON or as an SSE stream carrying progress notifications first",
      content: { "application/json": { schema: jsonRpcAnswer }, "text/event-stream": {} },
    },
    202: { description: "A notification or a response, accepted" },
    400: jsonAnswer(errorSchema, "Not a message MCP accepts (its JSON-RPC error is kept beside `detail`)"),
    406: jsonAnswer(errorSchema, "Accept must list application/json and text/event-stream"),
    415: jsonAnswer(errorSchema, "The body is not JSON"),
  },
});
const notOffered = (method: "get" | "delete") =>
  defineRoute({
    method,
    path: "/mcp",
    tags,
    summary:
      method === "get"
        ? "A standalone SSE stream: not offered by a stateless server (405, as MCP's transport says)"
        : "Ending an MCP session: a stateless server holds none (405)",
    scope,
    responses: { 405: jsonAnswer(errorSchema, "Only POST is served") },
  });

export interface McpRouteOptions extends TransportGuardOptions {
  tools: McpTool[];
  info: { name: string; version: string };
}

/**
 * `/mcp`: agno's MCP server on MCP's Streamable HTTP transport. Stateless: each request gets a
 * fresh server and transport (the official SDK's createMcpHandler), so any isolate answers any
 * request. Tools reach the AgentOS through `app`, its own routes, with the caller's credentials.
 */
export function mcpRoutes(app: OpenAPIHono<OSEnv>, options: McpRouteOptions) {
  const routes = routeApp();
  handle(routes, post, async (c) => {
    const refusal = transportRefusal(
      { url: c.req.url, host: c.req.header("host"), origin: c.req.header("origin") },
      options,
    );
    if (refusal) throw new ForbiddenError(refusal);
    const body: unknown = await c.req.json();
    const mcp = createMcpHandler(() => mcpServerFor(options.tools, options.info, callerOf(app, c)));
    return withAgnoError(await mcp.fetch(c.req.raw, { parsedBody: body }));
  });
  for (const method of ["get", "delete"] as const)
    handle(routes, notOffered(method), (c) => {
      c.header("allow", "POST");
      return errorResponse(c, 405, "this MCP server is stateless: only POST is served", "method_not_allowed");
    });
  return routes;
}

/** The caller of this request, acting through `app`'s routes with the request's own credentials. */
function callerOf(app: OpenAPIHono<OSEnv>, c: Context<OSEnv>): CallerBase {
  const principal = principalOf(c);
  let executionCtx: Context<OSEnv>["executionCtx"] | undefined;
  try {
    executionCtx = c.executionCtx;
  } catch {
    executionCtx = undefined; // a host that passed none (Node tests)
  }
  return {
    userId: principal.userId,
    principal,
    fetch: (path, init = {}) => {
      const headers = new Headers({ accept: init.accept ?? "application/json, text/event-stream" });
      const authorization = c.req.header("authorization");
      if (authorization) headers.set("authorization", authorization);
      if (init.body !== undefined) headers.set("content-type", "application/json");
      const request = new Request(new URL(path, c.req.url), {
        method: init.method ?? "GET",
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      return Promise.resolve(app.fetch(request, c.env, executionCtx));
    },
  };
}

/**
 * The SDK's refusals (a JSON-RPC error with a 4xx) also carry agno's `detail` and `error_id`, so
 * every 4xx of this API reads alike; MCP clients still find the JSON-RPC error they expect.
 */
async function withAgnoError(res: Response): Promise<Response> {
  if (res.status < 400 || !(res.headers.get("content-type") ?? "").includes("application/json")) return res;
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: unknown } };
  const detail = typeof body.error?.message === "string" ? body.error.message : `MCP request refused (${res.status})`;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, detail, error_id: "mcp_protocol_error" }), {
    status: res.status,
    headers,
  });
}
