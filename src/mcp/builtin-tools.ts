import { configTool } from "./config-tool.js";
import type { McpBuiltinTool, McpTool } from "./mcp-tool.js";
import type { McpServerOptions } from "./mcp-server-options.js";
import { runTools } from "./run-tools.js";
import { sessionTools } from "./session-tools.js";

/** agno's eight built-in tools, in its order. */
export function builtinTools(options: McpServerOptions = {}): McpBuiltinTool[] {
  const [runAgent, runTeam, runWorkflow, continueRun, cancelRun] = runTools(options.resultMode ?? "trimmed");
  return [configTool(), runAgent!, runTeam!, runWorkflow!, continueRun!, cancelRun!, ...sessionTools()];
}

/**
 * The tools `/mcp` serves under `options`: the built-in ones its tags and names pick, then the
 * custom ones. A choice that leaves no tool, a name served twice, or an unknown tool name is a
 * mistake caught when the AgentOS is built, not a server that lists nothing.
 */
export function servedMcpTools(options: McpServerOptions = {}): McpTool[] {
  const all = builtinTools(options);
  const names = new Set(all.map((t) => t.name));
  for (const name of [...(options.includeTools ?? []), ...(options.excludeTools ?? [])])
    if (!names.has(name)) throw new TypeError(`mcpServer: no built-in tool is named ${name}`);
  const builtins =
    options.enableBuiltinTools === false
      ? []
      : all.filter(
          (t) =>
            (!options.includeTags || options.includeTags.includes(t.tag)) &&
            !options.excludeTags?.includes(t.tag) &&
            (!options.includeTools || options.includeTools.includes(t.name)) &&
            !options.excludeTools?.includes(t.name),
        );
  const tools: McpTool[] = [...builtins, ...(options.tools ?? [])];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (!/^[A-Za-z0-9_.-]{1,128}$/.test(tool.name))
      throw new TypeError(`mcpServer: tool name ${JSON.stringify(tool.name)} must be 1-128 letters, digits, _ . -`);
    if (seen.has(tool.name)) throw new TypeError(`mcpServer: two tools are named ${tool.name}`);
    seen.add(tool.name);
  }
  if (tools.length === 0)
    throw new TypeError("mcpServer serves no tool: enable built-in tools (or some of their tags) or give `tools`");
  return tools;
}
