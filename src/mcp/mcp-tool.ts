import type { z } from "zod";
import type { Principal } from "../os/auth/jwt.js";

/** What a tool's answer may be: text, any JSON value (sent as text and as structured content), or an MCP result. */
export type McpToolAnswer = string | Record<string, unknown> | unknown[] | McpToolResult;

/** MCP's `CallToolResult`, the part a tool fills in. */
export interface McpToolResult {
  content: Array<{ type: "text"; text: string } | { type: "image" | "audio"; data: string; mimeType: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** MCP's tool annotations: hints a client shows or uses to decide whether to ask before calling. */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * Who calls a tool, and the AgentOS as they may use it. `fetch` goes through this AgentOS's own
 * routes with the caller's credentials, so a tool can do exactly what the caller could do over
 * HTTP, with the same scopes, per-user isolation and answers.
 */
export interface McpCaller {
  /** the authenticated user (a token's subject); null for a security-key or auth-off caller */
  readonly userId: string | null;
  readonly principal: Principal;
  /** one of this AgentOS's routes, as the caller: `path` may carry a query string; a `body` is sent as JSON */
  fetch(path: string, init?: { method?: string; body?: unknown; accept?: string }): Promise<Response>;
  /** true when the client asked for progress (it sent a progressToken) */
  readonly wantsProgress: boolean;
  /** one progress notification (progress counts up by one each time); nothing when the client did not ask */
  progress(message: string): Promise<void>;
  /** aborted when the client cancels the call or goes away */
  readonly signal: AbortSignal;
}

/**
 * A tool the MCP server offers, besides or instead of the built-in ones (agno's
 * `MCPServerConfig.tools`). Arguments are validated with `inputSchema` before `handler` runs; a
 * thrown error becomes a tool error the client's model sees, never a protocol failure.
 *
 * @example
 * const args = z.object({ city: z.string().max(100) });
 * const weather: McpTool<typeof args> = {
 *   name: "weather_now",
 *   description: "The weather in a city",
 *   inputSchema: args,
 *   handler: async ({ city }, caller) => `Sunny in ${city}, ${caller.userId ?? "friend"}`,
 * };
 */
export interface McpTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description?: string;
  /** the arguments (default: none) */
  inputSchema?: S;
  annotations?: McpToolAnnotations;
  /** the scope a caller needs to call it, checked as a route's is; without one, any authenticated caller may */
  scope?: { resource: string; action: string };
  handler(args: z.output<S>, caller: McpCaller): McpToolAnswer | Promise<McpToolAnswer>;
}

/** A built-in tool: an McpTool with agno's tag (`core` or `session`), by which a deployment picks them. */
export interface McpBuiltinTool extends McpTool {
  tag: McpBuiltinTag;
}

/** agno's built-in tool groups (`MCP_BUILTIN_TAGS`): running and configuration, and reading sessions. */
export type McpBuiltinTag = "core" | "session";
export const MCP_BUILTIN_TAGS: readonly McpBuiltinTag[] = ["core", "session"];
