import { McpServer, type CallToolResult, type ServerContext } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { z } from "zod";
import { hasScope, scopeText } from "../os/auth/scopes.js";
import { publicError } from "../public-error.js";
import type { McpCaller, McpTool, McpToolAnswer } from "./mcp-tool.js";
import { McpToolError } from "./mcp-tool-error.js";

/** What a tool call gets to act as its caller, before the call's own progress and cancellation are known. */
export type CallerBase = Omit<McpCaller, "wantsProgress" | "progress" | "signal">;

/**
 * One request's MCP server: `tools` registered for `caller`. Arguments are checked with each
 * tool's zod schema and JSON Schemas are checked by @cfworker/json-schema, which interprets
 * schemas (no code generation, which workerd forbids).
 */
export function mcpServerFor(tools: McpTool[], info: { name: string; version: string }, caller: CallerBase) {
  const server = new McpServer(info, {
    capabilities: { tools: {} },
    instructions: "Call get_agentos_config first to learn which agents, teams and workflows this AgentOS runs.",
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: tool.inputSchema ?? z.object({}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      (async (args: Record<string, unknown>, ctx: ServerContext) => {
        if (tool.scope && !hasScope(caller.principal, tool.scope.resource, tool.scope.action))
          return errorResult(`this needs the scope ${scopeText(tool.scope.resource, tool.scope.action)}`);
        try {
          return resultOf(await tool.handler(args, { ...caller, ...progressOf(ctx), signal: ctx.mcpReq.signal }));
        } catch (error) {
          if (error instanceof McpToolError) return errorResult(error.message);
          return errorResult(publicError(error, `MCP tool ${tool.name}`).message);
        }
      }) as never,
    );
  }
  return server;
}

/** Progress for one call: notifications on its own stream, counting up, only when the client sent a progressToken. */
function progressOf(ctx: ServerContext): Pick<McpCaller, "wantsProgress" | "progress"> {
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  return {
    wantsProgress: token !== undefined,
    progress: async (message) => {
      if (token === undefined) return;
      // A lost notification must never fail the run it reports on.
      await ctx.mcpReq
        .notify({ method: "notifications/progress", params: { progressToken: token, progress: progress++, message } })
        .catch(() => undefined);
    },
  };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A tool's answer as MCP's result: text as text, JSON as text and as structured content. */
function resultOf(answer: McpToolAnswer): CallToolResult {
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] };
  if (!Array.isArray(answer) && Array.isArray((answer as { content?: unknown }).content))
    return answer as CallToolResult;
  const structured = Array.isArray(answer) ? { result: answer } : (answer as Record<string, unknown>);
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: structured };
}
