import type { McpBuiltinTag, McpTool } from "./mcp-tool.js";
import type { McpResultMode } from "./run-tool-result.js";

/**
 * How `/mcp` is served (agno's `MCPServerConfig`): which built-in tools, which tools of your
 * own, how run results are shaped, and which hosts and browser origins may reach it.
 *
 * @example
 * new AgentOS({ agents, mcpServer: { includeTags: ["core"], tools: [weatherTool] } });
 */
export interface McpServerOptions {
  /** serve the built-in tools (default true); false serves only `tools` */
  enableBuiltinTools?: boolean;
  /** only the built-in tools of these tags (`core`: config and runs; `session`: reading sessions) */
  includeTags?: McpBuiltinTag[];
  /** not the built-in tools of these tags */
  excludeTags?: McpBuiltinTag[];
  /** only the built-in tools of these names (beyond agno, which picks by tag only) */
  includeTools?: string[];
  /** not the built-in tools of these names */
  excludeTools?: string[];
  /** tools of your own, served beside the built-in ones */
  tools?: McpTool[];
  /** how run tools answer: `trimmed` (default, the answer and the run's ids) or `full` (the whole run) */
  resultMode?: McpResultMode;
  /**
   * hosts (`Host` header names, `*.example.com` for subdomains) the endpoint answers for, besides
   * localhost; without it any host is answered, except when auth is off (then localhost only),
   * as agno's `allowed_hosts`
   */
  allowedHosts?: string[];
  /** browser origins allowed besides the endpoint's own and those of the allowed hosts (agno's `allowed_origins`) */
  allowedOrigins?: string[];
}
