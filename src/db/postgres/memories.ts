import { sql, type SQL } from "drizzle-orm";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { checkMemory, checkMemoryQuery, memoryText } from "../memory-rules.js";
import { MAX_PAGE_LIMIT, pageOf, resolvePage } from "../pagination.js";
import type { MemoryQuery, UserMemoryStats } from "../ports/user-memory-store.js";
import type { MemoryRecord, Page } from "../types.js";
import { validateId, validateIds } from "../validate.js";
import { idList } from "./id-list.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

const COLUMNS = "memory_id, memory, input, agent_id, team_id, user_id, topics, created_at, updated_at";
/** The memory's text as `memoryText` reads it: a JSON string, or (rows migrated from agno v1) an object's `memory` field. */
const MEMORY_TEXT = sql.raw(
  "(CASE WHEN jsonb_typeof(memory) = 'string' THEN memory #>> '{}'" +
    " WHEN jsonb_typeof(memory) = 'object' AND jsonb_typeof(memory -> 'memory') <> 'null' THEN memory ->> 'memory'" +
    " ELSE memory::text END)",
);
/** Text columns sort bytewise ("C"), as the in-memory adapter sorts them, whatever the database's collation. */
const SORT_EXPR: Record<string, string> = {
  updated_at: "updated_at",
  created_at: "created_at",
  memory_id: 'memory_id COLLATE "C"',
  user_id: 'user_id COLLATE "C"',
  agent_id: 'agent_id COLLATE "C"',
  team_id: 'team_id COLLATE "C"',
};

function toMemory(row: Record<string, unknown>): MemoryRecord {
  return {
    memory_id: String(row.memory_id),
    user_id: String(row.user_id),
    memory: memoryText(row.memory),
    topics: (row.topics as string[] | null) ?? null,
    input: (row.input as string | null) ?? null,
    agent_id: (row.agent_id as string | null) ?? null,
    team_id: (row.team_id as string | null) ?? null,
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

/** Postgres reports a broken unique key as 23505, also when drizzle wraps the driver's error. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === "23505") return true;
  return false;
}

/** `%` and `_` of a search taken literally in LIKE. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `agno_memories` reads and writes; a call with a user sees only that user's rows. */
export class MemoryTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
    /** runs `fn` in one transaction: a replace's delete and insert are two statements */
    private readonly transaction: <T>(fn: (tx: Exec) => Promise<T>) => Promise<T>,
  ) {}

  private owner(userId: string | undefined): SQL {
    return userId === undefined ? sql`TRUE` : sql`user_id = ${userId}`;
  }

  async list(userId: string, limit = 100): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)
      throw new ValidationError(`limit must be 1..${MAX_PAGE_LIMIT}`, "limit");
    const rows = await this.exec(
      sql`SELECT ${sql.raw(COLUMNS)} FROM ${this.table} WHERE user_id = ${userId} ORDER BY COALESCE(updated_at, created_at) DESC, memory_id COLLATE "C" LIMIT ${limit}`,
    );
    return rows.map(toMemory);
  }

  async get(memoryId: string, userId: string | undefined): Promise<MemoryRecord | null> {
    validateId(memoryId, "memory_id");
    const [row] = await this.exec(
      sql`SELECT ${sql.raw(COLUMNS)} FROM ${this.table} WHERE memory_id = ${memoryId} AND ${this.owner(userId)}`,
    );
    return row ? toMemory(row) : null;
  }

  async query(query: MemoryQuery): Promise<Page<MemoryRecord>> {
    const q = checkMemoryQuery(query);
    const where = [this.owner(query.userId)];
    if (query.agentId !== undefined) where.push(sql`agent_id = ${query.agentId}`);
    if (query.teamId !== undefined) where.push(sql`team_id = ${query.teamId}`);
    for (const topic of query.topics ?? []) where.push(sql`topics @> ${pgJson([topic])}::jsonb`);
    if (query.searchContent !== undefined)
      where.push(sql`${MEMORY_TEXT} ILIKE ${`%${likeLiteral(query.searchContent)}%`}`);
    const order = sql.raw(`${SORT_EXPR[q.sortBy]} ${q.sortOrder === "asc" ? "ASC" : "DESC"}, memory_id COLLATE "C"`);
    // The count rides along each row, so a page and its total are one statement.
    const rows = await this.exec(sql`
      SELECT ${sql.raw(COLUMNS)}, count(*) OVER () AS total FROM ${this.table}
      WHERE ${sql.join(where, sql` AND `)} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`);
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : q.offset === 0
          ? 0
          : Number(
              (
                await this.exec(sql`SELECT count(*) AS total FROM ${this.table} WHERE ${sql.join(where, sql` AND `)}`)
              )[0]!.total,
            );
    return pageOf(rows.map(toMemory), total, q);
  }

  async upsert(m: MemoryRecord): Promise<MemoryRecord> {
    checkMemory(m);
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

  async delete(memoryId: string, userId: string | undefined): Promise<void> {
    validateId(memoryId, "memory_id");
    const rows = await this.exec(
      sql`DELETE FROM ${this.table} WHERE memory_id = ${memoryId} AND ${this.owner(userId)} RETURNING memory_id`,
    );
    if (rows.length === 0) throw new NotFoundError(`memory ${memoryId} not found`);
  }

  /** All or nothing in one statement: the rows are deleted only when every id is visible to the caller. */
  async deleteMany(memoryIds: string[], userId: string | undefined): Promise<number> {
    const ids = [...new Set(validateIds(memoryIds, "memory_ids"))];
    const [row] = await this.exec(sql`
      WITH visible AS (
        SELECT memory_id FROM ${this.table} WHERE memory_id IN (${idList(ids)}) AND ${this.owner(userId)} FOR UPDATE
      ), gone AS (
        DELETE FROM ${this.table} WHERE memory_id IN (SELECT memory_id FROM visible)
          AND (SELECT count(*) FROM visible) = ${ids.length} RETURNING memory_id
      )
      SELECT (SELECT count(*) FROM gone) AS deleted,
        (SELECT array_agg(memory_id) FROM visible) AS found`);
    const deleted = Number(row!.deleted);
    if (deleted !== ids.length) {
      const found = new Set((row!.found as string[] | null) ?? []);
      throw new NotFoundError(`memory ${ids.find((id) => !found.has(id))} not found`);
    }
    return deleted;
  }

  /**
   * Deletes the named memories of the user, then writes `memories`, in one transaction so a
   * reader never sees a mix. Two statements, not a data-modifying CTE: an INSERT beside a
   * DELETE sees the rows as they were before it, so a memory keeping a replaced one's id
   * would collide with itself.
   */
  async replace(
    userId: string,
    replacing: readonly string[] | "all",
    memories: MemoryRecord[],
  ): Promise<MemoryRecord[]> {
    validateId(userId, "user_id");
    const named =
      replacing === "all" ? null : [...new Set(replacing.length ? validateIds(replacing, "memory_ids") : [])];
    for (const m of memories) {
      checkMemory(m);
      if (m.user_id !== userId) throw new ValidationError(`memory ${m.memory_id} is not user ${userId}'s`, "user_id");
    }
    const now = nowSeconds();
    const doomed =
      named === null
        ? sql`user_id = ${userId}`
        : named.length === 0
          ? sql`FALSE`
          : sql`user_id = ${userId} AND memory_id IN (${idList(named)})`;
    if (memories.length === 0) {
      await this.exec(sql`DELETE FROM ${this.table} WHERE ${doomed}`);
      return [];
    }
    const values = sql.join(
      memories.map(
        (m) =>
          sql`(${m.memory_id}, ${pgJson(m.memory)}::jsonb, ${m.input ?? null}, ${m.agent_id ?? null}, ${m.team_id ?? null}, ${userId}, ${m.topics ? pgJson(m.topics) : null}::jsonb, ${m.created_at ?? now}::bigint, ${now}::bigint)`,
      ),
      sql`, `,
    );
    try {
      const rows = await this.transaction(async (tx) => {
        await tx(sql`DELETE FROM ${this.table} WHERE ${doomed}`);
        return tx(sql`INSERT INTO ${this.table} (${sql.raw(COLUMNS)}) VALUES ${values} RETURNING ${sql.raw(COLUMNS)}`);
      });
      return rows.map(toMemory);
    } catch (error) {
      // A new id that is already another memory's (another user's, or one of this user's not replaced).
      if (isUniqueViolation(error)) throw new ConflictError("an optimized memory's id belongs to another memory");
      throw error;
    }
  }

  async topics(userId: string | undefined): Promise<string[]> {
    const rows = await this.exec(sql`
      SELECT DISTINCT topic COLLATE "C" AS topic FROM ${this.table}, jsonb_array_elements_text(topics) AS topic
      WHERE topics IS NOT NULL AND jsonb_typeof(topics) = 'array' AND ${this.owner(userId)}
      ORDER BY 1`);
    return rows.map((r) => String(r.topic));
  }

  async stats(opts: { userId?: string; limit?: number; page?: number }): Promise<Page<UserMemoryStats>> {
    if (opts.userId !== undefined) validateId(opts.userId, "user_id");
    const page = resolvePage(opts);
    const rows = await this.exec(sql`
      SELECT user_id, count(*) AS total_memories, max(updated_at) AS last_memory_updated_at, count(*) OVER () AS total
      FROM ${this.table} WHERE user_id IS NOT NULL AND ${this.owner(opts.userId)}
      GROUP BY user_id ORDER BY max(updated_at) DESC, user_id COLLATE "C" LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : page.offset === 0
          ? 0
          : Number(
              (
                await this.exec(
                  sql`SELECT count(DISTINCT user_id) AS total FROM ${this.table} WHERE user_id IS NOT NULL AND ${this.owner(opts.userId)}`,
                )
              )[0]!.total,
            );
    return pageOf(
      rows.map((r) => ({
        user_id: String(r.user_id),
        total_memories: Number(r.total_memories),
        last_memory_updated_at: r.last_memory_updated_at === null ? null : Number(r.last_memory_updated_at),
      })),
      total,
      page,
    );
  }
}
