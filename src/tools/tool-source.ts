import type { ComponentRef } from "../agent/component.js";
import type { Tool } from "./tool.js";

/** What a tool source is told about the run it supplies tools to. */
export interface ToolSourceContext {
  runId: string;
  sessionId: string;
  userId: string | null;
  sessionState: Record<string, unknown>;
  dependencies: Record<string, unknown>;
  /** whose run it is (an agent, or a team's leader) */
  component: ComponentRef;
  /** aborted when the run is cancelled */
  signal?: AbortSignal;
}

/**
 * Tools known only once something is asked at run time (a remote MCP server's list, tools that
 * depend on the user): the agent asks each source at the start of every run, and again when a
 * paused run continues. A source caches what it can; a rejection fails the run with its message.
 *
 * @example
 * const agent = new Agent({ name: "ops", model, tools: [new MCPTools({ url: "https://mcp.example.com/mcp" })] });
 */
export interface ToolSource {
  /** stable, as a Toolkit's id */
  readonly id: string;
  resolveTools(ctx: ToolSourceContext): Promise<Tool[]>;
}

export function isToolSource(item: unknown): item is ToolSource {
  return (
    typeof item === "object" && item !== null && typeof (item as { resolveTools?: unknown }).resolveTools === "function"
  );
}
