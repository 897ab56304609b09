export { MCPTools, type MCPToolsOptions, type McpAuthTokenGetter, type McpHeaderProvider } from "./mcp-tools.js";
export { mcpConnections } from "./mcp-connections.js";
