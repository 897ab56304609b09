import { sql, type SQL } from "drizzle-orm";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { MAX_PAGE_LIMIT } from "../pagination.js";
import type { MemoryRecord } from "../types.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

const COLUMNS = "memory_id, memory, input, agent_id, team_id, user_id, topics, created_at, updated_at";

function toMemory(row: Record<string, unknown>): MemoryRecord {
  return {
    memory_id: String(row.memory_id),
    user_id: String(row.user_id),
    // agno stores the memory as JSON: a string, or an object with its text
    memory: typeof row.memory === "string" ? row.memory : JSON.stringify(row.memory),
    topics: (row.topics as string[] | null) ?? null,
    input: (row.input as string | null) ?? null,
    agent_id: (row.agent_id as string | null) ?? null,
    team_id: (row.team_id as string | null) ?? null,
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** `agno_memories` reads and writes; every call is scoped to one user. */
export class MemoryTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
  ) {}

  async list(userId: string, limit = 100): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
      throw new ValidationError(`limit must be 1..${MAX_PAGE_LIMIT}`, "limit");
    const rows = await this.exec(
      sql`SELECT ${sql.raw(COLUMNS)} FROM ${this.table} WHERE user_id = ${userId} ORDER BY COALESCE(updated_at, created_at) DESC, memory_id LIMIT ${limit}`,
    );
    return rows.map(toMemory);
  }

  async upsert(m: MemoryRecord): Promise<MemoryRecord> {
    validateId(m.memory_id, "memory_id");
    validateId(m.user_id, "user_id");
    if (typeof m.memory !== "string" || m.memory.trim() === "" || m.memory.length > 10_000)
      throw new ValidationError("memory must be a non-empty string of at most 10,000 characters", "memory");
    const now = nowSeconds();
    const [row] = await this.exec(sql`
      INSERT INTO ${this.table} AS t (${sql.raw(COLUMNS)})
      VALUES (${m.memory_id}, ${pgJson(m.memory)}::jsonb, ${m.input ?? null}, ${m.agent_id ?? null}, ${m.team_id ?? null}, ${m.user_id},
        ${m.topics ? pgJson(m.topics) : null}::jsonb, ${m.created_at ?? now}, ${now})
      ON CONFLICT (memory_id) DO UPDATE SET memory = EXCLUDED.memory, topics = EXCLUDED.topics, input = EXCLUDED.input, updated_at = EXCLUDED.updated_at
      WHERE t.user_id = EXCLUDED.user_id
      RETURNING ${sql.raw(COLUMNS)}`);
    if (!row) throw new ConflictError(`memory ${m.memory_id} belongs to another user`);
    return toMemory(row);
  }

  async delete(memoryId: string, userId: string): Promise<void> {
    validateId(memoryId, "memory_id");
    const rows = await this.exec(
      sql`DELETE FROM ${this.table} WHERE memory_id = ${memoryId} AND user_id = ${userId} RETURNING memory_id`,
    );
    if (rows.length === 0) throw new NotFoundError(`memory ${memoryId} not found`);
  }
}
