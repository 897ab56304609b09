import { z } from "zod";
import type { MemoryRecord } from "../../db/types.js";
import type { UserMemoryStats } from "../../db/port.js";
import { agnoDatetime, agnoDatetimeOf, agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/**
 * agno's memory router models (`os/routers/memory/schemas.py`), field for field. They are sent
 * without `exclude_none`: an unset field is present as null.
 */
const source = (model: string) => ({ model, file: "os/routers/memory/schemas.py" });

export const userMemorySchema = agnoObject(source("UserMemorySchema"), {
  memory_id: z.string().describe("Unique identifier for the memory"),
  memory: z.string().describe("Memory content text"),
  topics: z.array(z.string()).nullable().describe("Topics or tags associated with the memory"),
  agent_id: z.string().nullable().describe("Agent ID associated with this memory"),
  team_id: z.string().nullable().describe("Team ID associated with this memory"),
  user_id: z.string().nullable().describe("User ID who owns this memory"),
  updated_at: agnoDatetime().nullable().describe("Timestamp when memory was last updated"),
});

export const userStatsSchema = agnoObject(source("UserStatsSchema"), {
  user_id: z.string().describe("User ID"),
  total_memories: z.int().min(0).describe("Total number of memories for this user"),
  last_memory_updated_at: agnoDatetime().nullable().describe("Timestamp of the most recent memory update"),
});

export const optimizeMemoriesResponseSchema = agnoObject(source("OptimizeMemoriesResponse"), {
  memories: z.array(userMemorySchema).describe("List of optimized memory objects"),
  memories_before: z.int().min(0).describe("Number of memories before optimization"),
  memories_after: z.int().min(0).describe("Number of memories after optimization"),
  tokens_before: z.int().min(0).describe("Token count before optimization"),
  tokens_after: z.int().min(0).describe("Token count after optimization"),
  tokens_saved: z.int().min(0).describe("Number of tokens saved through optimization"),
  reduction_percentage: z.number().min(0).max(100).describe("Percentage of token reduction achieved"),
});

/** Epoch seconds as pydantic writes a UTC datetime. */
const agnoTime = (epochSeconds: number | null | undefined) =>
  typeof epochSeconds === "number" ? agnoDatetimeOf(epochSeconds * 1000) : null;

export const paginatedMemoriesSchema = paginated(userMemorySchema);
export const paginatedUserStatsSchema = paginated(userStatsSchema);

/** A stored memory as agno's UserMemorySchema.from_dict answers it (topics as stored, `[]` never invented). */
export function memoryView(m: MemoryRecord): z.infer<typeof userMemorySchema> {
  return {
    memory_id: m.memory_id,
    memory: m.memory,
    topics: m.topics ?? null,
    agent_id: m.agent_id ?? null,
    team_id: m.team_id ?? null,
    user_id: m.user_id,
    updated_at: agnoTime(m.updated_at),
  };
}

export function userStatsView(s: UserMemoryStats): z.infer<typeof userStatsSchema> {
  return {
    user_id: s.user_id,
    total_memories: s.total_memories,
    last_memory_updated_at: agnoTime(s.last_memory_updated_at),
  };
}
