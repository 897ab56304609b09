import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../db/pagination.js";
import { idSchema } from "../os/route.js";
import type { McpBuiltinTool } from "./mcp-tool.js";
import { queryPath } from "./query-path.js";
import { routeJson } from "./route-answer.js";

const sessionType = z.enum(["agent", "team", "workflow"]);

const sessionsArgs = z.object({
  session_type: sessionType.default("agent").describe("Which kind of sessions"),
  component_id: idSchema.optional().describe("Only the sessions of this agent, team or workflow"),
  user_id: idSchema.optional().describe("Only this user's sessions (with user isolation, always the caller's)"),
  session_name: z.string().max(255).optional().describe("Only sessions whose name contains this"),
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  page: z.number().int().min(1).default(1),
  sort_by: z.enum(["created_at", "updated_at"]).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  db_id: idSchema.optional().describe("Needed only when get_agentos_config lists several databases"),
});

const sessionRunsArgs = z.object({
  session_id: idSchema.describe("The session (from get_sessions or a run tool's result)"),
  run_id: idSchema
    .optional()
    .describe("One run, in full (transcript, events, metrics): large, ask for it deliberately"),
  session_type: sessionType.optional().describe("Found from the session when left out"),
  user_id: idSchema.optional(),
  db_id: idSchema.optional(),
});

/** The fields of each run in a session's history: what was asked and answered, not the transcript. */
const HISTORY_FIELDS = ["run_id", "run_input", "content", "status", "created_at", "agent_id", "team_id", "workflow_id"];

const pick = (run: Record<string, unknown>) =>
  Object.fromEntries(HISTORY_FIELDS.filter((k) => run[k] !== null && run[k] !== undefined).map((k) => [k, run[k]]));

/** agno's read-only session tools: a page of sessions, and one session's runs. */
export function sessionTools(): McpBuiltinTool[] {
  const getSessions: McpBuiltinTool = {
    name: "get_sessions",
    tag: "session",
    description:
      "List sessions (conversations), newest first, filtered by type, component, user or name. Pass a session_id to a run tool to go on with that conversation, or to get_session_runs to read it.",
    inputSchema: sessionsArgs,
    annotations: { readOnlyHint: true },
    handler: async (args: z.output<typeof sessionsArgs>, caller) => {
      const page = (await routeJson(
        await caller.fetch(
          queryPath("/sessions", {
            type: args.session_type,
            component_id: args.component_id,
            user_id: args.user_id,
            session_name: args.session_name,
            limit: args.limit,
            page: args.page,
            sort_by: args.sort_by,
            sort_order: args.sort_order,
            db_id: args.db_id,
          }),
        ),
      )) as Record<string, unknown>;
      return page;
    },
  } as McpBuiltinTool;
  const getSessionRuns: McpBuiltinTool = {
    name: "get_session_runs",
    tag: "session",
    description:
      "A session's history, oldest first: each run's input, answer, status and time. With run_id, that one run in full (its whole transcript, system prompt included).",
    inputSchema: sessionRunsArgs,
    annotations: { readOnlyHint: true },
    handler: async (args: z.output<typeof sessionRunsArgs>, caller) => {
      const base = `/sessions/${encodeURIComponent(args.session_id)}/runs`;
      const query = { type: args.session_type, user_id: args.user_id, db_id: args.db_id };
      if (args.run_id !== undefined) {
        const run = await routeJson(await caller.fetch(queryPath(`${base}/${encodeURIComponent(args.run_id)}`, query)));
        return { runs: [run] };
      }
      const runs = (await routeJson(await caller.fetch(queryPath(base, query)))) as Array<Record<string, unknown>>;
      return { runs: runs.map(pick) };
    },
  } as McpBuiltinTool;
  return [getSessions, getSessionRuns];
}
