import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { checkMemory, checkMemoryQuery, memoryText } from "../memory-rules.js";
import { MAX_PAGE_LIMIT, pageOf, resolvePage } from "../pagination.js";
import type { MemoryQuery, UserMemoryStats, UserMemoryStore } from "../port.js";
import type { MemoryRecord, Page } from "../types.js";
import { validateId, validateIds } from "../validate.js";
import { copy, now, stored, type MemoryTables } from "./tables.js";

/** A copy of a stored memory, its text read as agno reads it (a row migrated from agno v1 may hold an object). */
const view = (m: MemoryRecord): MemoryRecord => ({ ...copy(m), memory: memoryText(m.memory) });
const at = (m: MemoryRecord) => m.updated_at ?? m.created_at ?? 0;
const byId = (a: MemoryRecord, b: MemoryRecord) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : 0);

/** Postgres's order for a nullable text column: NULLs last ascending, first descending. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

/** User memories in memory, with the Postgres adapter's rules: a scoped call sees one user's rows, another user's id is refused on write. */
export class MemoryUserMemoryStore implements UserMemoryStore {
  constructor(private readonly t: MemoryTables) {}

  private visible(memoryId: string, userId: string | undefined): MemoryRecord | undefined {
    const row = this.t.memories.get(memoryId);
    return row && (userId === undefined || row.user_id === userId) ? row : undefined;
  }

  async getUserMemories(userId: string, opts: { limit?: number } = {}): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    const limit = opts.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
      throw new ValidationError(`limit must be 1..${MAX_PAGE_LIMIT}`, "limit");
    return [...this.t.memories.values()]
      .filter((m) => m.user_id === userId)
      .sort((a, b) => at(b) - at(a) || byId(a, b))
      .slice(0, limit)
      .map(view);
  }

  async getUserMemory(memoryId: string, opts: { userId?: string } = {}): Promise<MemoryRecord | null> {
    validateId(memoryId, "memory_id");
    const row = this.visible(memoryId, opts.userId);
    return row ? view(row) : null;
  }

  async listUserMemories(query: MemoryQuery = {}): Promise<Page<MemoryRecord>> {
    const q = checkMemoryQuery(query);
    const needle = query.searchContent?.toLowerCase();
    const matching = [...this.t.memories.values()].filter(
      (m) =>
        (query.userId === undefined || m.user_id === query.userId) &&
        (query.agentId === undefined || m.agent_id === query.agentId) &&
        (query.teamId === undefined || m.team_id === query.teamId) &&
        (query.topics ?? []).every((topic) => (m.topics ?? []).includes(topic)) &&
        (needle === undefined || memoryText(m.memory).toLowerCase().includes(needle)),
    );
    const sign = q.sortOrder === "asc" ? 1 : -1;
    matching.sort((a, b) => sign * compare(a[q.sortBy], b[q.sortBy]) || byId(a, b));
    return pageOf(matching.slice(q.offset, q.offset + q.limit).map(view), matching.length, q);
  }

  async upsertUserMemory(m: MemoryRecord): Promise<MemoryRecord> {
    checkMemory(m);
    const existing = this.t.memories.get(m.memory_id);
    if (existing && existing.user_id !== m.user_id)
      throw new ConflictError(`memory ${m.memory_id} belongs to another user`);
    const row = this.row(m, existing, now());
    this.t.memories.set(row.memory_id, row);
    return view(row);
  }

  private row(m: MemoryRecord, existing: MemoryRecord | undefined, ts: number): MemoryRecord {
    return existing
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
  }

  async deleteUserMemory(memoryId: string, opts: { userId?: string } = {}): Promise<void> {
    validateId(memoryId, "memory_id");
    if (!this.visible(memoryId, opts.userId)) throw new NotFoundError(`memory ${memoryId} not found`);
    this.t.memories.delete(memoryId);
  }

  async deleteUserMemories(memoryIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(memoryIds, "memory_ids"))];
    const absent = ids.filter((id) => !this.visible(id, opts.userId));
    if (absent.length > 0) throw new NotFoundError(`memory ${absent[0]} not found`);
    for (const id of ids) this.t.memories.delete(id);
    return ids.length;
  }

  async replaceUserMemories(
    userId: string,
    replacing: readonly string[] | "all",
    memories: MemoryRecord[],
  ): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    const named = replacing === "all" ? null : new Set(replacing.length ? validateIds(replacing, "memory_ids") : []);
    for (const m of memories) {
      checkMemory(m);
      if (m.user_id !== userId) throw new ValidationError(`memory ${m.memory_id} is not user ${userId}'s`, "user_id");
    }
    const ts = now();
    return this.t.transaction(() => {
      for (const [id, row] of this.t.memories)
        if (row.user_id === userId && (named === null || named.has(id))) this.t.memories.delete(id);
      return memories.map((m) => {
        if (this.t.memories.has(m.memory_id)) throw new ConflictError(`memory ${m.memory_id} belongs to another user`);
        const row = this.row(m, undefined, ts);
        this.t.memories.set(row.memory_id, row);
        return view(row);
      });
    });
  }

  async getMemoryTopics(opts: { userId?: string } = {}): Promise<string[]> {
    if (opts.userId !== undefined) validateId(opts.userId, "user_id");
    const topics = new Set<string>();
    for (const m of this.t.memories.values())
      if (opts.userId === undefined || m.user_id === opts.userId) for (const t of m.topics ?? []) topics.add(t);
    return [...topics].sort();
  }

  async getUserMemoryStats(
    opts: { userId?: string; limit?: number; page?: number } = {},
  ): Promise<Page<UserMemoryStats>> {
    if (opts.userId !== undefined) validateId(opts.userId, "user_id");
    const page = resolvePage(opts);
    const users = new Map<string, UserMemoryStats>();
    for (const m of this.t.memories.values()) {
      if (opts.userId !== undefined && m.user_id !== opts.userId) continue;
      const s = users.get(m.user_id) ?? { user_id: m.user_id, total_memories: 0, last_memory_updated_at: null };
      s.total_memories += 1;
      if (m.updated_at !== null && m.updated_at !== undefined)
        s.last_memory_updated_at = Math.max(s.last_memory_updated_at ?? m.updated_at, m.updated_at);
      users.set(m.user_id, s);
    }
    const all = [...users.values()].sort(
      (a, b) =>
        compare(b.last_memory_updated_at, a.last_memory_updated_at) ||
        (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0),
    );
    return pageOf(all.slice(page.offset, page.offset + page.limit), all.length, page);
  }
}
