import type { MemoryRecord, Page } from "../types.js";

/** How `listUserMemories` filters, sorts and pages (agno's `get_user_memories`). */
export interface MemoryQuery {
  /** only this user's memories; absent: every user's (an admin's read) */
  userId?: string;
  agentId?: string;
  teamId?: string;
  /** memories carrying every one of these topics */
  topics?: string[];
  /** memories whose text holds this, case-insensitively (taken literally: `%` and `_` match themselves) */
  searchContent?: string;
  limit?: number;
  page?: number;
  sortBy?: "updated_at" | "created_at" | "memory_id" | "user_id" | "agent_id" | "team_id";
  sortOrder?: "asc" | "desc";
}

/** One user's line of agno's `get_user_memory_stats`. */
export interface UserMemoryStats {
  user_id: string;
  total_memories: number;
  /** epoch seconds of the user's most recently changed memory */
  last_memory_updated_at: number | null;
}

/**
 * Facts about a user that agents carry across sessions (agno's `agno_memories`). Writes always
 * name their user; reads and deletes that take `userId` see only that user's rows (another
 * user's memory is absent, as if missing), and without it see every user's (an admin).
 */
export interface UserMemoryStore {
  /** a user's memories, newest first */
  getUserMemories(userId: string, opts?: { limit?: number }): Promise<MemoryRecord[]>;
  /** one memory, or null when it is unknown or (with `userId`) another user's */
  getUserMemory(memoryId: string, opts?: { userId?: string }): Promise<MemoryRecord | null>;
  /** a page of memories filtered and sorted as `query` says, with the count of all that match */
  listUserMemories(query?: MemoryQuery): Promise<Page<MemoryRecord>>;
  /** ConflictError when `memory_id` is another user's memory */
  upsertUserMemory(memory: MemoryRecord): Promise<MemoryRecord>;
  /** NotFoundError when the memory is unknown or (with `userId`) another user's */
  deleteUserMemory(memoryId: string, opts?: { userId?: string }): Promise<void>;
  /** all or nothing: NotFoundError (and nothing deleted) when one id is unknown or (with `userId`) another user's */
  deleteUserMemories(memoryIds: string[], opts?: { userId?: string }): Promise<number>;
  /**
   * Replaces the memories of `userId` that `replacing` names (`"all"`: every one of them) with
   * `memories` (each must be that user's), in one write: a reader sees the old set or the new
   * one, never a mix. Only the memories a caller read are named, so the user's others stay;
   * a named id that is unknown or another user's is passed over. A new memory may keep a
   * replaced one's id; ConflictError when its id is any other stored memory's. Returns the
   * stored rows.
   */
  replaceUserMemories(
    userId: string,
    replacing: readonly string[] | "all",
    memories: MemoryRecord[],
  ): Promise<MemoryRecord[]>;
  /** the distinct topics of a user's memories (every user's without `userId`), sorted */
  getMemoryTopics(opts?: { userId?: string }): Promise<string[]>;
  /** per user: how many memories and when the last changed, most recently changed first */
  getUserMemoryStats(opts?: { userId?: string; limit?: number; page?: number }): Promise<Page<UserMemoryStats>>;
}
