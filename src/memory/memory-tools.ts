import { z } from "zod";
import type { Db } from "../db/port.js";
import { ConflictError, NotFoundError, ValidationError } from "../errors.js";
import { tool, type Tool } from "../tools/tool.js";

/** Which of the manager's tools the model gets (agno's enable_add/update/delete/clear_memory). */
export interface MemoryToolSwitches {
  add: boolean;
  update: boolean;
  delete: boolean;
  clear: boolean;
}

/** Whose memories the tools change, and what each new memory records about where it came from. */
export interface MemoryToolScope {
  db: Db;
  userId: string;
  input: string;
  agentId?: string;
  teamId?: string;
  /** memories one user may have; an add beyond it is refused and the model told to update or delete */
  cap: number;
}

const topics = z
  .array(z.string().min(1).max(255))
  .max(50)
  .nullable()
  .optional()
  .describe('The topics of the memory (e.g. ["name", "hobbies", "location"])');

/** What a store refused, told to the model in words (a tool's answer, not an error of the run). */
function refusal(error: unknown, what: string): string {
  if (error instanceof ValidationError || error instanceof ConflictError || error instanceof NotFoundError)
    return `Error ${what}: ${error.message}`;
  throw error;
}

/**
 * agno's memory manager tools (`add_memory`, `update_memory`, `delete_memory`, `clear_memory`),
 * each acting on one user's memories only: an id of another user's memory is unknown to them,
 * and clearing clears that user's memories, never the table (agno's `clear_memories` empties
 * it for every user).
 */
export function memoryTools(scope: MemoryToolScope, on: MemoryToolSwitches): Tool[] {
  const { db, userId } = scope;
  const origin = { user_id: userId, input: scope.input, agent_id: scope.agentId, team_id: scope.teamId };
  const tools: Tool[] = [];
  if (on.add)
    tools.push(
      tool({
        name: "add_memory",
        description: "Use this function to add a memory to the database.",
        parameters: z.object({ memory: z.string().describe("The memory to be added."), topics }),
        execute: async ({ memory, topics }) => {
          const held = await db.getUserMemories(userId, { limit: scope.cap });
          if (held.length >= scope.cap)
            return `Memory limit reached: this user already has ${scope.cap} memories. Update or delete an existing memory instead.`;
          try {
            await db.upsertUserMemory({ ...origin, memory_id: crypto.randomUUID(), memory, topics: topics ?? null });
            return "Memory added successfully";
          } catch (error) {
            return refusal(error, "adding memory");
          }
        },
      }),
    );
  if (on.update)
    tools.push(
      tool({
        name: "update_memory",
        description: "Use this function to update an existing memory in the database.",
        parameters: z.object({
          memory_id: z.string().describe("The id of the memory to be updated."),
          memory: z.string().describe("The updated memory."),
          topics,
        }),
        execute: async ({ memory_id, memory, topics }) => {
          if (memory === "")
            return "Can't update memory with empty string. Use the delete memory function if available.";
          try {
            // Only an existing memory of this user: an unknown id would add one past the cap.
            if (!(await db.getUserMemory(memory_id, { userId })))
              return `Error updating memory: no memory ${memory_id}`;
            await db.upsertUserMemory({ ...origin, memory_id, memory, topics: topics ?? null });
            return "Memory updated successfully";
          } catch (error) {
            return refusal(error, "updating memory");
          }
        },
      }),
    );
  if (on.delete)
    tools.push(
      tool({
        name: "delete_memory",
        description: "Use this function to delete a single memory from the database.",
        parameters: z.object({ memory_id: z.string().describe("The id of the memory to be deleted.") }),
        execute: async ({ memory_id }) => {
          try {
            await db.deleteUserMemory(memory_id, { userId });
            return "Memory deleted successfully";
          } catch (error) {
            return refusal(error, "deleting memory");
          }
        },
      }),
    );
  if (on.clear)
    tools.push(
      tool({
        name: "clear_memory",
        description: "Use this function to remove all (or clear all) memories from the database.",
        parameters: z.object({}),
        execute: async () => {
          await db.replaceUserMemories(userId, "all", []);
          return "Memory cleared successfully";
        },
      }),
    );
  return tools;
}
