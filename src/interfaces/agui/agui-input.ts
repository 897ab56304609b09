import { z } from "zod";

/*
 * AG-UI's RunAgentInput (the protocol's `RunAgentInputSchema`), written here so the runtime
 * depends on no AG-UI package: what the route reads of it is checked, the rest passes.
 */

const id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

const text = z.string().max(1_000_000);

/** A part of a user message's content: text, or media the run does not take (left out). */
const contentPart = z.looseObject({ type: z.string().max(64), text: text.optional() });

const message = z.looseObject({
  id: z.string().max(255),
  role: z.enum(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]),
  content: z.union([text, z.array(contentPart).max(100)]).nullish(),
  toolCallId: z.string().max(255).optional(),
  error: z.string().max(100_000).optional(),
});

const tool = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1 to 64 letters, digits, _ or -"),
  description: z.string().max(10_000),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const context = z.looseObject({ description: z.string().max(1_000), value: text });

export const runAgentInput = z.looseObject({
  threadId: id,
  runId: id,
  parentRunId: z.string().max(255).optional(),
  state: z.unknown().optional(),
  messages: z.array(message).max(1_000),
  tools: z.array(tool).max(128).default([]),
  context: z.array(context).max(100).default([]),
  forwardedProps: z.unknown().optional(),
});
export type RunAgentInput = z.infer<typeof runAgentInput>;
export type AguiMessage = RunAgentInput["messages"][number];
export type AguiTool = RunAgentInput["tools"][number];

/** The text of the last user message (its text parts joined), as agno's extract_user_input; "" when there is none. */
export function userInputOf(messages: readonly AguiMessage[]): string {
  for (const m of [...messages].reverse()) {
    if (m.role !== "user" || m.content === null || m.content === undefined) continue;
    if (typeof m.content === "string") return m.content;
    const parts = m.content.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text!);
    if (parts.length > 0) return parts.join("\n");
  }
  return "";
}

/** The tool messages the list ends with: the results of tools the frontend ran, sent back (agno's extract_tool_messages). */
export function trailingToolMessages(messages: readonly AguiMessage[]): AguiMessage[] {
  const out: AguiMessage[] = [];
  for (const m of [...messages].reverse()) {
    if (m.role !== "tool") break;
    out.unshift(m);
  }
  return out;
}

/** A tool message's content as text (its text parts joined when it has parts). */
export function contentText(m: AguiMessage): string {
  if (typeof m.content === "string") return m.content;
  return (m.content ?? []).map((p) => p.text ?? "").join("");
}

/** The run's dependencies from AG-UI's context, values parsed back from JSON when they are (agno's extract_context). */
export function dependenciesOf(context: RunAgentInput["context"]): Record<string, unknown> | undefined {
  if (context.length === 0) return undefined;
  const deps: Record<string, unknown> = {};
  context.forEach((item, i) => {
    let value: unknown = item.value;
    try {
      value = JSON.parse(item.value);
    } catch {
      // a plain string stays as it is
    }
    deps[item.description || `context_${i + 1}`] = value;
  });
  return deps;
}

/** The state as the session's state: an object, or nothing (agno's validate_state ignores anything else). */
export function stateOf(state: unknown): Record<string, unknown> | undefined {
  return state !== null && typeof state === "object" && !Array.isArray(state)
    ? (state as Record<string, unknown>)
    : undefined;
}
