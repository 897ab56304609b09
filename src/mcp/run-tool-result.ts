import type { McpToolResult } from "./mcp-tool.js";

/**
 * How the run tools answer (agno's `result_mode`): `trimmed` gives the answer's text with only
 * the run's ids and status as structured content (a tool result lands in the client model's
 * context, so the transcript stays out); `full` gives the whole run as structured content.
 */
export type McpResultMode = "trimmed" | "full";

/**
 * A run tool's result from the run's output (RunOutput, TeamRunOutput or WorkflowRunOutput, as
 * the run routes answer it): its content as text, and when it paused, what it waits for.
 * A failed run is a tool error carrying the run's own message.
 */
export function runToolResult(output: Record<string, unknown>, mode: McpResultMode): McpToolResult {
  const status = typeof output.status === "string" ? output.status : "COMPLETED";
  const requirements = status === "PAUSED" ? pendingOf(output) : undefined;
  let text = textOf(output.content);
  if (!text && requirements) text = `Run paused: ${requirements.length} requirement(s) awaiting resolution.`;
  if (!text && status === "ERROR") text = "The run failed";
  const structured =
    mode === "full"
      ? output
      : {
          run_id: output.run_id,
          session_id: output.session_id,
          status,
          ...(requirements ? { requirements } : {}),
        };
  return {
    content: [{ type: "text", text }],
    structuredContent: structured,
    ...(status === "ERROR" ? { isError: true } : {}),
  };
}

/** What a paused run waits for: an agent's or team's requirements, or a workflow's step requirements. */
function pendingOf(output: Record<string, unknown>): unknown[] {
  for (const key of ["requirements", "step_requirements"]) {
    const list = output[key];
    if (Array.isArray(list) && list.length > 0) return list;
  }
  return [];
}

/** A run's content as text: strings as they are, structured output as JSON. */
export function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}
