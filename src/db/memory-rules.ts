import { ValidationError } from "../errors.js";
import { resolvePage, sortOrderOf, type ResolvedPage } from "./pagination.js";
import type { MemoryQuery } from "./ports/user-memory-store.js";
import type { MemoryRecord } from "./types.js";
import { validateId, validateIds } from "./validate.js";

/** The columns a memory list sorts by (agno sorts by any column; these are the ones a client can mean). */
export const MEMORY_SORT_COLUMNS = ["updated_at", "created_at", "memory_id", "user_id", "agent_id", "team_id"] as const;

const MAX_MEMORY_CHARS = 10_000;
const MAX_TOPICS = 50;
const MAX_TOPIC_CHARS = 255;

/** A memory as every adapter accepts it: ids, non-empty text and bounded topics, or a ValidationError naming the field. */
export function checkMemory(m: MemoryRecord): void {
  validateId(m.memory_id, "memory_id");
  validateId(m.user_id, "user_id");
  if (typeof m.memory !== "string" || m.memory.trim() === "" || m.memory.length > MAX_MEMORY_CHARS)
    throw new ValidationError("memory must be a non-empty string of at most 10,000 characters", "memory");
  if (m.topics !== undefined && m.topics !== null) {
    if (
      !Array.isArray(m.topics) ||
      m.topics.length > MAX_TOPICS ||
      m.topics.some((t) => typeof t !== "string" || t === "" || t.length > MAX_TOPIC_CHARS)
    )
      throw new ValidationError("topics must be at most 50 non-empty strings of at most 255 characters", "topics");
  }
  if (m.agent_id !== undefined && m.agent_id !== null) validateId(m.agent_id, "agent_id");
  if (m.team_id !== undefined && m.team_id !== null) validateId(m.team_id, "team_id");
}

/** A list query checked, with its page resolved and its defaults (newest change first) filled in. */
export function checkMemoryQuery(q: MemoryQuery): Required<Pick<MemoryQuery, "sortBy" | "sortOrder">> & ResolvedPage {
  if (q.userId !== undefined) validateId(q.userId, "user_id");
  if (q.agentId !== undefined) validateId(q.agentId, "agent_id");
  if (q.teamId !== undefined) validateId(q.teamId, "team_id");
  if (q.topics !== undefined) validateIds(q.topics, "topics");
  if (q.searchContent !== undefined && (typeof q.searchContent !== "string" || q.searchContent.length > 1000))
    throw new ValidationError("search_content must be a string of at most 1,000 characters", "search_content");
  const sortBy = q.sortBy ?? "updated_at";
  if (!MEMORY_SORT_COLUMNS.includes(sortBy))
    throw new ValidationError(`sort_by must be one of ${MEMORY_SORT_COLUMNS.join(", ")}`, "sort_by");
  return { sortBy, sortOrder: sortOrderOf(q.sortOrder), ...resolvePage(q) };
}

/**
 * A stored memory's text, as agno's `UserMemorySchema.from_dict` reads it: a string as it is; an
 * object (some memories migrated from agno v1) by its `memory` field when it has one, else as JSON.
 */
export function memoryText(stored: unknown): string {
  if (typeof stored === "string") return stored;
  if (stored !== null && typeof stored === "object" && !Array.isArray(stored)) {
    const inner = (stored as { memory?: unknown }).memory;
    if (inner !== null && inner !== undefined) return typeof inner === "string" ? inner : JSON.stringify(inner);
  }
  return JSON.stringify(stored);
}
