import { EvalError } from "./eval-error.js";
import { message } from "../models/message.js";
import type { Model } from "../models/model.js";

/** A JSON answer, with a Markdown code fence around it tolerated (some models add one even when asked for JSON). */
function parseObject(text: string): Record<string, unknown> | undefined {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  try {
    const value: unknown = JSON.parse(fenced ? fenced[1]! : text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One structured call to a judge model: its instructions as the system turn, what it judges as the
 * user turn, and the answer asked for (and checked to be) a JSON object of `schema`'s shape. A
 * judge that answers anything else is an EvalError, which the eval counts as a failed iteration.
 */
export async function judgeCall(
  model: Model,
  system: string,
  prompt: string,
  schema: { name: string; schema: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of model.stream({
    messages: [message("system", system), message("user", prompt)],
    responseFormat: { type: "json", schema: schema.schema, name: schema.name },
    stream: false,
  })) {
    if (chunk.type === "text") text += chunk.delta;
  }
  const answer = parseObject(text);
  if (!answer) throw new EvalError(`the judge's answer is not a JSON object (${schema.name})`);
  return answer;
}
