import { z } from "zod";
import { agnoObject } from "./agno-object.js";

/** agno's `McpOAuthInfo` (`os/schema.py`): how an OAuth-protected MCP endpoint is discovered. */
export const mcpOAuthInfoSchema = agnoObject(
  { model: "McpOAuthInfo", file: "os/schema.py" },
  {
    authorization_servers: z.array(z.string()).nullable(),
    resource: z.string().nullable(),
  },
);

/** agno's `McpInfo` (`os/schema.py`): whether the OS serves an MCP server, and where. */
export const mcpInfoSchema = agnoObject(
  { model: "McpInfo", file: "os/schema.py" },
  {
    enabled: z.boolean(),
    path: z.string().nullable(),
    oauth: mcpOAuthInfoSchema.nullable(),
  },
);

/**
 * agno's `InfoResponse` (`os/schema.py`), answered by `GET /info` (`os/router.py`,
 * `get_info_router`) with every field present: agno's router does not drop nulls here.
 */
export const infoResponseSchema = agnoObject(
  { model: "InfoResponse", file: "os/schema.py" },
  {
    os_id: z.string(),
    name: z.string().nullable(),
    os_version: z.string().describe("This AgentOS's version"),
    agno_version: z.string().describe("The agno release whose API this AgentOS answers"),
    agent_count: z.number().int(),
    team_count: z.number().int(),
    workflow_count: z.number().int(),
    mcp: mcpInfoSchema,
    auth_mode: z.enum(["none", "security_key", "jwt"]).describe("The credentials the REST and WebSocket routes take"),
  },
);
