import type { StepOutput } from "./step-output.js";

/**
 * The content a step hands the next one as `previous_step_content` (agno's
 * `get_last_step_content`): a container's last inner step's, at any depth (for a Parallel, its
 * last branch's, as in agno).
 */
export function lastContent(output: StepOutput): unknown {
  let deepest = output;
  while (deepest.steps?.length) deepest = deepest.steps[deepest.steps.length - 1]!;
  return deepest.content;
}

/**
 * The message an agent step is sent after `output` (agno's `_get_deepest_content_from_step_output`):
 * a container's last inner step's content, at any depth; a Parallel's is every branch's, each under its name.
 */
export function deepestContent(output: StepOutput): unknown {
  const inner = output.steps ?? [];
  if (inner.length === 0) return output.content;
  if (output.step_type === "Parallel") {
    const parts = inner
      .map((s, i) => [s.step_name ?? `Step ${i + 1}`, deepestContent(s)] as const)
      .filter(([, c]) => c !== null && c !== undefined && c !== "")
      .map(([name, c]) => `=== ${name} ===\n${asText(c)}`);
    return parts.length > 0 ? parts.join("\n\n") : output.content;
  }
  return deepestContent(inner[inner.length - 1]!);
}

/** A content or input as the text an agent is sent: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return JSON.stringify(value, null, 2);
}
