import type { MemoryRecord } from "../types.js";

/** Facts about a user that agents carry across sessions; every call is scoped to one user. */
export interface UserMemoryStore {
  /** a user's memories, newest first */
  getUserMemories(userId: string, opts?: { limit?: number }): Promise<MemoryRecord[]>;
  upsertUserMemory(memory: MemoryRecord): Promise<MemoryRecord>;
  /** NotFoundError when the memory is unknown or another user's */
  deleteUserMemory(memoryId: string, opts: { userId: string }): Promise<void>;
}
