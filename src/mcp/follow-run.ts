import type { McpCaller } from "./mcp-tool.js";
import { McpToolError } from "./mcp-tool-error.js";
import type { SseEvent } from "./sse-events.js";

/** Events reported as progress: tool calls (an agent's, a team leader's, its members') and a workflow's own steps. */
const TOOL_EVENTS = /^(Team)?ToolCall(Started|Completed)$/;
const STEP_EVENTS = /^Step(Started|Completed)$/;
/** The events that end a run, by the status they leave it in. */
const ENDINGS: Array<[RegExp, string]> = [
  [/^((Team)?Run|Workflow)Completed$/, "COMPLETED"],
  [/^((Team)?Run|Workflow)Paused$/, "PAUSED"],
  [/^((Team)?Run|Workflow)Error$/, "ERROR"],
  [/^((Team)?Run|Workflow)Cancelled$/, "CANCELLED"],
];

/**
 * Follows a streamed run (the run routes' SSE events), reporting its tool calls and steps as
 * progress, and gives its outcome as the run routes' JSON would: ids, status, content and, when
 * it paused, what it waits for. The run is the one the first event names; the events of the runs
 * inside it (a team's members, a workflow's steps) are progress only. Content deltas are not
 * reported: progress is a status channel, not a token stream.
 */
export async function followRun(
  events: AsyncIterable<SseEvent>,
  caller: McpCaller,
  label: string,
): Promise<Record<string, unknown>> {
  await caller.progress(`${label} started`);
  let runId: unknown;
  let outcome: Record<string, unknown> | undefined;
  for await (const event of events) {
    runId ??= event.run_id;
    const own = event.run_id === runId && !event.nested_depth;
    if (TOOL_EVENTS.test(event.event)) {
      const tool = (event.tool ?? {}) as { tool_name?: unknown };
      const verb = event.event.endsWith("Started") ? "started" : "completed";
      await caller.progress(`Tool call ${verb}: ${typeof tool.tool_name === "string" ? tool.tool_name : "tool"}`);
    } else if (STEP_EVENTS.test(event.event) && !event.nested_depth) {
      const verb = event.event.endsWith("Started") ? "started" : "completed";
      await caller.progress(`Step ${verb}: ${typeof event.step_name === "string" ? event.step_name : "step"}`);
    }
    const ending = own ? ENDINGS.find(([pattern]) => pattern.test(event.event)) : undefined;
    if (ending) outcome = outcomeOf(event, ending[1]);
  }
  if (!outcome) throw new McpToolError(`${label} finished without a final output`);
  return outcome;
}

function outcomeOf(event: SseEvent, status: string): Record<string, unknown> {
  const content =
    status === "ERROR"
      ? (event.content ?? event.error)
      : status === "CANCELLED"
        ? (event.reason ?? event.content)
        : event.content;
  return {
    run_id: event.run_id,
    session_id: event.session_id,
    status,
    content,
    ...(Array.isArray(event.requirements) ? { requirements: event.requirements } : {}),
    ...(Array.isArray(event.step_requirements) ? { step_requirements: event.step_requirements } : {}),
  };
}
