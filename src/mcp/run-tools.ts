import { z } from "zod";
import { idSchema, jsonObject } from "../os/route.js";
import type { McpBuiltinTool, McpCaller } from "./mcp-tool.js";
import { McpToolError } from "./mcp-tool-error.js";
import { followRun } from "./follow-run.js";
import { queryPath } from "./query-path.js";
import { routeJson } from "./route-answer.js";
import { runToolResult, type McpResultMode } from "./run-tool-result.js";
import { sseEvents } from "./sse-events.js";

type Kind = "agents" | "teams" | "workflows";
const LABEL: Record<Kind, string> = { agents: "Agent", teams: "Team", workflows: "Workflow" };

const runArgs = (idField: "agent_id" | "team_id" | "workflow_id", what: string) =>
  z.object({
    [idField]: idSchema.describe(`The ${what}'s id (get_agentos_config lists them)`),
    message: z.string().min(1).max(100_000).describe("The message to run with"),
    session_id: idSchema.optional().describe("A session to continue (from get_sessions); omitted, a new one starts"),
    user_id: idSchema.optional().describe("Who the run is for; with user isolation, always the caller"),
  });

const target = {
  agent_id: idSchema.optional().describe("The agent that owns the run"),
  team_id: idSchema.optional().describe("The team that owns the run"),
  workflow_id: idSchema.optional().describe("The workflow that owns the run"),
};

/** The one component of `{agent_id, team_id, workflow_id}` a lifecycle tool names. */
function targetOf(args: { agent_id?: string; team_id?: string; workflow_id?: string }): [Kind, string] {
  const named = (
    [
      ["agents", args.agent_id],
      ["teams", args.team_id],
      ["workflows", args.workflow_id],
    ] as Array<[Kind, string | undefined]>
  ).filter((entry): entry is [Kind, string] => entry[1] !== undefined);
  if (named.length !== 1) throw new McpToolError("Provide exactly one of agent_id, team_id, or workflow_id");
  return named[0]!;
}

/** The fields a continue route reads of a resolved requirement: the rest of a paused result's requirement is sent back as it was, and dropped here. */
const RESOLUTION_FIELDS: Record<"runs" | "steps", string[]> = {
  runs: ["id", "confirmed", "confirmation_note", "user_input", "external_execution_result"],
  steps: [
    "step_id",
    "confirmed",
    "user_input",
    "executor_requirements",
    "selected_choices",
    "rejection_feedback",
    "edited_output",
  ],
};

function resolutionsOf(kind: Kind, requirements: Array<Record<string, unknown>> | undefined) {
  if (!requirements) return {};
  const fields = RESOLUTION_FIELDS[kind === "workflows" ? "steps" : "runs"];
  const picked = requirements.map((r) =>
    Object.fromEntries(fields.filter((f) => r[f] !== undefined && r[f] !== null).map((f) => [f, r[f]])),
  );
  return kind === "workflows" ? { step_requirements: picked } : { requirements: picked };
}

/**
 * Posts a run (or a continue) to its route and answers with its outcome. With a progressToken
 * the run is streamed and its tool calls and steps are reported as progress; without one it is
 * answered as JSON in one piece.
 */
async function runThroughRoute(
  caller: McpCaller,
  kind: Kind,
  id: string,
  path: string,
  body: Record<string, unknown>,
  mode: McpResultMode,
) {
  const res = await caller.fetch(path, { method: "POST", body: { ...body, stream: caller.wantsProgress } });
  const streamed = res.ok && res.body && (res.headers.get("content-type") ?? "").includes("text/event-stream");
  if (!streamed) return runToolResult((await routeJson(res)) as Record<string, unknown>, mode);
  const outcome = await followRun(sseEvents(res.body!, caller.signal), caller, `${LABEL[kind]} ${id}`);
  if (mode === "full" && typeof outcome.run_id === "string") {
    // The whole run is its stored output: read back through the run route, as a client would.
    const stored = await caller.fetch(
      queryPath(`/${kind}/${encodeURIComponent(id)}/runs/${encodeURIComponent(outcome.run_id)}`, {
        session_id: typeof outcome.session_id === "string" ? outcome.session_id : undefined,
      }),
    );
    if (stored.ok) return runToolResult((await stored.json()) as Record<string, unknown>, mode);
  }
  return runToolResult(outcome, mode);
}

function runTool(kind: Kind, mode: McpResultMode): McpBuiltinTool {
  const idField = ({ agents: "agent_id", teams: "team_id", workflows: "workflow_id" } as const)[kind];
  const what = LABEL[kind].toLowerCase();
  const descriptions: Record<Kind, string> = {
    agents:
      "Run an agent with a message and answer with its response. Name a session_id to go on with that conversation, or leave it out to start one (the new session_id is in the structured result). A PAUSED result lists requirements: resolve them and call continue_run.",
    teams: "Run a team with a message and answer with its response; sessions and pauses work as for run_agent.",
    workflows:
      "Run a workflow with a message and answer with its result. Progress is reported per step when the client asks for it; sessions and pauses work as for run_agent.",
  };
  return {
    name: `run_${what}`,
    tag: "core",
    description: descriptions[kind],
    inputSchema: runArgs(idField, what),
    annotations: { readOnlyHint: false, openWorldHint: true },
    handler: (args, caller) => {
      const { [idField]: id, ...body } = args as Record<string, string>;
      return runThroughRoute(caller, kind, id!, `/${kind}/${encodeURIComponent(id!)}/runs`, body, mode);
    },
  };
}

const continueArgs = z.object({
  run_id: idSchema.describe("The paused run"),
  session_id: idSchema.optional().describe("The run's session (from the paused result)"),
  ...target,
  requirements: z
    .array(jsonObject)
    .max(100)
    .optional()
    .describe("The paused result's requirements with their resolution set (e.g. confirmation: true)"),
  user_id: idSchema.optional(),
});

const cancelArgs = z.object({
  run_id: idSchema.describe("The run to cancel"),
  session_id: idSchema.optional().describe("The run's session: when given, the run must belong to it"),
  ...target,
});

/** agno's run tools: run an agent, a team, a workflow; continue a paused run; cancel a running one. */
export function runTools(mode: McpResultMode): McpBuiltinTool[] {
  const continueRun: McpBuiltinTool = {
    name: "continue_run",
    tag: "core",
    description:
      "Continue a PAUSED run (human in the loop): send back the requirements a run tool returned, each with its resolution set. Name the run_id and session_id from the paused result and exactly one of agent_id, team_id or workflow_id.",
    inputSchema: continueArgs,
    annotations: { readOnlyHint: false, destructiveHint: false },
    handler: (args: z.output<typeof continueArgs>, caller) => {
      const [kind, id] = targetOf(args);
      const resolutions = resolutionsOf(kind, args.requirements);
      return runThroughRoute(
        caller,
        kind,
        id,
        `/${kind}/${encodeURIComponent(id)}/runs/${encodeURIComponent(args.run_id)}/continue`,
        { ...resolutions, session_id: args.session_id, user_id: args.user_id },
        mode,
      );
    },
  } as McpBuiltinTool;
  const cancelRun: McpBuiltinTool = {
    name: "cancel_run",
    tag: "core",
    description:
      "Cancel a running run: it stops and is marked CANCELLED (a queued run never starts). Name the run_id, its session_id and exactly one of agent_id, team_id or workflow_id.",
    inputSchema: cancelArgs,
    annotations: { destructiveHint: true, idempotentHint: true },
    handler: async (args: z.output<typeof cancelArgs>, caller) => {
      const [kind, id] = targetOf(args);
      const runPath = `/${kind}/${encodeURIComponent(id)}/runs/${encodeURIComponent(args.run_id)}`;
      // The run must be the session's, as agno checks: read through the run route, the same 404.
      if (args.session_id !== undefined)
        await routeJson(await caller.fetch(queryPath(runPath, { session_id: args.session_id })));
      const answer = (await routeJson(await caller.fetch(`${runPath}/cancel`, { method: "POST" }))) as {
        run_id: string;
        cancelled: boolean;
      };
      return {
        content: [
          {
            type: "text",
            text: answer.cancelled
              ? `Run ${args.run_id} cancellation requested`
              : `Run ${args.run_id} is not running: nothing to cancel`,
          },
        ],
        structuredContent: answer,
      };
    },
  } as McpBuiltinTool;
  return [runTool("agents", mode), runTool("teams", mode), runTool("workflows", mode), continueRun, cancelRun];
}
