import { ValidationError } from "../errors.js";
import { message, type Message } from "../models/message.js";
import type { Model } from "../models/model.js";
import type { ModelCallUsage } from "./stores/protocol.js";

/** The run's conversation as text for an extraction: its user and assistant turns, not the history it was given. */
export function conversationText(messages: Message[]): string {
  return messages
    .filter((m) => (m.role === "user" || m.role === "assistant") && !m.from_history && m.content)
    .map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${m.content}`)
    .join("\n");
}

/**
 * One structured model call: the system prompt, the payload as the user turn, and the JSON
 * answer checked to be an object. Its usage is reported through `onModelCall`.
 */
export async function extractJson(
  model: Model,
  system: string,
  payload: unknown,
  schema: { name: string; schema: Record<string, unknown> },
  onModelCall?: (call: ModelCallUsage) => void,
): Promise<Record<string, unknown>> {
  const started = performance.now();
  let text = "";
  for await (const chunk of model.stream({
    messages: [message("system", system), message("user", JSON.stringify(payload))],
    responseFormat: { type: "json", schema: schema.schema, name: schema.name },
    stream: false,
  })) {
    if (chunk.type === "text") text += chunk.delta;
    if (chunk.type === "finish")
      onModelCall?.({
        id: model.id,
        provider: model.provider,
        usage: chunk.usage,
        duration: (performance.now() - started) / 1000,
        cost: chunk.cost,
      });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // In our words: the parser's own message quotes the model's answer.
    throw new ValidationError(`the ${schema.name} extraction's answer is not JSON`, schema.name);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new ValidationError(`the ${schema.name} extraction's answer is not a JSON object`, schema.name);
  return parsed as Record<string, unknown>;
}
