import { z } from "zod";
import type { McpBuiltinTool } from "./mcp-tool.js";
import { routeJson } from "./route-answer.js";

type Summary = Record<string, unknown>;
const keep = (item: Summary, fields: string[]) =>
  Object.fromEntries(fields.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));

/**
 * agno's `get_agentos_config`: what this AgentOS runs (agents, teams, workflows with their ids)
 * and its databases, read from `GET /config` as the caller, in a compact form.
 */
export function configTool(): McpBuiltinTool {
  return {
    name: "get_agentos_config",
    tag: "core",
    description:
      "Discover this AgentOS: the agents, teams and workflows it runs (ids, names, descriptions) and the ids of its databases. Call it first. The full configuration is the REST route GET /config.",
    inputSchema: z.object({}),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: async (_args, caller) => {
      const config = (await routeJson(await caller.fetch("/config"))) as Summary & {
        agents?: Summary[];
        teams?: Summary[];
        workflows?: Summary[];
      };
      const summary = ["id", "name", "description", "db_id", "model"];
      return {
        os_id: config.os_id,
        name: config.name,
        description: config.description ?? null,
        databases: config.databases ?? [],
        agents: (config.agents ?? []).map((a) => keep(a, summary)),
        teams: (config.teams ?? []).map((t) => keep(t, [...summary, "mode"])),
        workflows: (config.workflows ?? []).map((w) => keep(w, ["id", "name", "description", "db_id"])),
      };
    },
  };
}
