import { Agent } from "../../src/agent/agent.js";
import type { Db } from "../../src/db/port.js";
import type { Tool } from "../../src/tools/tool.js";
import type { RecordedRequest, Turn } from "./model-script.js";
import { scriptedModel } from "./agent-kit.js";

/** An agent with a scripted model of its own, and what that model was asked. */
export async function scriptedAgent(
  id: string,
  turns: Turn[],
  opts: { db?: Db; tools?: Tool[]; description?: string } = {},
): Promise<{ agent: Agent; requests(): Promise<RecordedRequest[]> }> {
  const { model, script } = await scriptedModel(turns);
  return { agent: new Agent({ id, name: id, model, ...opts }), requests: () => script.requests() };
}

/** The chat messages of a recorded request. */
export const messagesOf = (r: RecordedRequest) =>
  r.body.messages as Array<{ role: string; content: string | null; tool_calls?: unknown[] }>;
