import type { OpenAPIHono } from "@hono/zod-openapi";
import type { OSEnv } from "../os/context.js";
import { servedMcpTools } from "./builtin-tools.js";
import { mcpRoutes } from "./mcp-routes.js";
import type { McpServerOptions } from "./mcp-server-options.js";

/** What `mcpServer()` gives the AgentOS to mount at `/mcp`. */
export interface McpServerMount {
  readonly options: McpServerOptions;
  /** the routes of `/mcp`, calling `app`'s own routes as each caller */
  routes(app: OpenAPIHono<OSEnv>, info: { name: string; version: string; open: boolean }): OpenAPIHono<OSEnv>;
}

/**
 * The AgentOS as an MCP server at `/mcp` (agno's `mcp_server`): agno's built-in tools, or those
 * the options choose. A function to import rather than a flag, so a Worker without it does not
 * bundle the MCP SDK. The tools are chosen now: a choice that serves none (or two of one name)
 * fails here, not at a request.
 *
 * @example
 * defineAgentOS({ agents: [support], mcpServer: mcpServer({ includeTags: ["core"] }) })
 */
export function mcpServer(options: McpServerOptions = {}): McpServerMount {
  const tools = servedMcpTools(options);
  return {
    options,
    routes: (app, info) =>
      mcpRoutes(app, {
        tools,
        info: { name: info.name, version: info.version },
        allowedHosts: options.allowedHosts,
        allowedOrigins: options.allowedOrigins,
        open: info.open,
      }),
  };
}
