import type { Db } from "../db/port.js";
import type { MemoryRecord } from "../db/types.js";
import { ValidationError } from "../errors.js";
import { message } from "../models/message.js";
import type { Model } from "../models/model.js";
import { addModelCall } from "./metrics.js";
import type { RunOutput } from "./run-output.js";

const INSTRUCTIONS =
  "You maintain long-term memories about a user. Read the user's latest message and the memories already stored. " +
  'Answer with JSON only: {"memories": ["..."]} listing NEW facts worth remembering about the user (preferences, ' +
  "facts about them, plans), each a short third-person sentence. Do not repeat stored memories. " +
  'If there is nothing new, answer {"memories": []}.';

const SCHEMA = {
  type: "object",
  properties: { memories: { type: "array", items: { type: "string" } } },
  required: ["memories"],
  additionalProperties: false,
};

/** The memories as the system message gives them to the model. */
export function memoriesForContext(memories: MemoryRecord[]): string {
  if (memories.length === 0) return "";
  return `You have these memories about the user from earlier conversations:\n${memories.map((m) => `- ${m.memory}`).join("\n")}`;
}

/**
 * `updateMemoryOnRun`: after a run, one model call picks what is new about the user in their
 * message and stores it as memories of that user. Its tokens count in the run's metrics.
 */
export async function updateMemories(model: Model, db: Db, output: RunOutput, agentId: string): Promise<number> {
  const userId = output.user_id;
  if (!userId) return 0;
  const existing = await db.getUserMemories(userId, { limit: 100 });
  const input = output.input.input_content;
  const started = performance.now();
  let text = "";
  for await (const chunk of model.stream({
    messages: [
      message("system", INSTRUCTIONS),
      message("user", JSON.stringify({ stored_memories: existing.map((m) => m.memory), message: input })),
    ],
    responseFormat: { type: "json", schema: SCHEMA, name: "memories" },
  })) {
    if (chunk.type === "text") text += chunk.delta;
    if (chunk.type === "finish")
      addModelCall(output.metrics, {
        id: model.id,
        provider: model.provider,
        usage: chunk.usage,
        duration: (performance.now() - started) / 1000,
        cost: chunk.cost,
      });
  }
  let parsed: { memories?: unknown };
  try {
    parsed = JSON.parse(text) as { memories?: unknown };
  } catch {
    // Typed and in our words: the parser's own message quotes the model's answer.
    throw new ValidationError("the memory model's answer is not JSON", "memories");
  }
  const known = new Set(existing.map((m) => m.memory.trim().toLowerCase()));
  const fresh = (Array.isArray(parsed.memories) ? parsed.memories : []).filter(
    (m): m is string => typeof m === "string" && m.trim() !== "" && !known.has(m.trim().toLowerCase()),
  );
  for (const memory of fresh) {
    await db.upsertUserMemory({
      memory_id: crypto.randomUUID(),
      user_id: userId,
      memory: memory.trim(),
      input,
      agent_id: agentId,
    });
  }
  return fresh.length;
}
