import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { MAX_PAGE_LIMIT } from "../pagination.js";
import type { UserMemoryStore } from "../port.js";
import type { MemoryRecord } from "../types.js";
import { validateId } from "../validate.js";
import { copy, now, stored, type MemoryTables } from "./tables.js";

/** User memories in memory, with the Postgres adapter's rules: every call scoped to one user, another user's id refused. */
export class MemoryUserMemoryStore implements UserMemoryStore {
  constructor(private readonly t: MemoryTables) {}

  async getUserMemories(userId: string, opts: { limit?: number } = {}): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    const limit = opts.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
      throw new ValidationError(`limit must be 1..${MAX_PAGE_LIMIT}`, "limit");
    const at = (m: MemoryRecord) => m.updated_at ?? m.created_at ?? 0;
    return [...this.t.memories.values()]
      .filter((m) => m.user_id === userId)
      .sort((a, b) => at(b) - at(a) || (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : 0))
      .slice(0, limit)
      .map(copy);
  }

  async upsertUserMemory(m: MemoryRecord): Promise<MemoryRecord> {
    validateId(m.memory_id, "memory_id");
    validateId(m.user_id, "user_id");
    if (typeof m.memory !== "string" || m.memory.trim() === "" || m.memory.length > 10_000)
      throw new ValidationError("memory must be a non-empty string of at most 10,000 characters", "memory");
    const ts = now();
    const existing = this.t.memories.get(m.memory_id);
    if (existing && existing.user_id !== m.user_id)
      throw new ConflictError(`memory ${m.memory_id} belongs to another user`);
    const row: MemoryRecord = existing
      ? {
          ...existing,
          memory: stored(m.memory),
          topics: m.topics ? stored(m.topics) : null,
          input: m.input ?? null,
          updated_at: ts,
        }
      : {
          memory_id: m.memory_id,
          user_id: m.user_id,
          memory: stored(m.memory),
          topics: m.topics ? stored(m.topics) : null,
          input: m.input ?? null,
          agent_id: m.agent_id ?? null,
          team_id: m.team_id ?? null,
          created_at: m.created_at ?? ts,
          updated_at: ts,
        };
    this.t.memories.set(row.memory_id, row);
    return copy(row);
  }

  async deleteUserMemory(memoryId: string, opts: { userId: string }): Promise<void> {
    validateId(memoryId, "memory_id");
    const row = this.t.memories.get(memoryId);
    if (!row || row.user_id !== opts.userId) throw new NotFoundError(`memory ${memoryId} not found`);
    this.t.memories.delete(memoryId);
  }
}
