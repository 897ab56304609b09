import type { RunMetrics } from "../agent/run-output.js";
import type { MemoryRecord } from "../db/types.js";
import { message } from "../models/message.js";
import type { Model } from "../models/model.js";
import { nowSeconds } from "../time.js";
import { respond } from "./model-call.js";

/**
 * Tokens of memory text, estimated as agno estimates without a tokenizer (about four characters
 * a token): optimisation reports compare before and after, which an estimate serves.
 */
export function countMemoryTokens(memories: Array<Pick<MemoryRecord, "memory">>): number {
  return memories.reduce((sum, m) => sum + Math.ceil((m.memory ?? "").length / 4), 0);
}

/** How memories are optimised (agno's MemoryOptimizationStrategy): the user's memories in, their replacement out. */
export interface MemoryOptimizationStrategy {
  optimize(memories: MemoryRecord[], model: Model, metrics?: RunMetrics): Promise<MemoryRecord[]>;
}

const SYSTEM = `You are a memory compression assistant. Your task is to summarize multiple memories about a user
into a single comprehensive summary while preserving all key facts.

Requirements:
- Combine related information from all memories
- Preserve all factual information
- Remove redundancy and consolidate repeated facts
- Create a coherent narrative about the user
- Maintain third-person perspective
- Do not add information not present in the original memories

Return only the summarized memory text, nothing else.`;

/**
 * agno's SUMMARIZE strategy: every memory of the user folded into one, keeping all their topics,
 * and the agent or team when all the memories share one.
 */
export class SummarizeStrategy implements MemoryOptimizationStrategy {
  async optimize(memories: MemoryRecord[], model: Model, metrics?: RunMetrics): Promise<MemoryRecord[]> {
    if (memories.length === 0) throw new TypeError("No Memories found");
    const userId = memories[0]!.user_id;
    const contents = memories.map((m) => m.memory).filter(Boolean);
    const topics = [...new Set(memories.flatMap((m) => m.topics ?? []))];
    const only = (values: Array<string | null | undefined>) => {
      const set = new Set(values.filter((v): v is string => !!v));
      return set.size === 1 ? [...set][0]! : null;
    };
    const combined = contents.map((c, i) => `Memory ${i + 1}: ${c}`).join("\n\n");
    const text = await respond(
      model,
      [message("system", SYSTEM), message("user", `Summarize these memories into a single summary:\n\n${combined}`)],
      metrics,
    );
    return [
      {
        memory_id: crypto.randomUUID(),
        memory: (text || contents.join(" ")).trim(),
        topics: topics.length > 0 ? topics : null,
        user_id: userId,
        agent_id: only(memories.map((m) => m.agent_id)),
        team_id: only(memories.map((m) => m.team_id)),
        updated_at: nowSeconds(),
      },
    ];
  }
}
