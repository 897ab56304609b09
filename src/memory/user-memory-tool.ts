import { z } from "zod";
import { tool, type Tool } from "../tools/tool.js";
import type { MemoryManager } from "./memory-manager.js";

/**
 * `update_user_memory` (agno's enable_agentic_memory): the agent's model sends a memory task in
 * words and the memory manager carries it out on the run's user's memories.
 */
export function userMemoryTool(manager: MemoryManager, origin: { agentId?: string; teamId?: string }): Tool {
  return tool({
    name: "update_user_memory",
    description:
      "Use this function to submit a task to modify the Agent's memory.\nDescribe the task in detail and be specific.\n" +
      "The task can include adding a memory, updating a memory, deleting a memory, or clearing all memories.",
    parameters: z.object({
      task: z
        .string()
        .min(1)
        .max(10_000)
        .describe("The task to update the memory. Be specific and describe the task in detail."),
    }),
    execute: async ({ task }, ctx) => {
      if (!ctx.userId) return "No user is known for this run, so there are no memories to update.";
      return (await manager.updateMemoryTask(task, { userId: ctx.userId, ...origin })).text;
    },
  });
}
