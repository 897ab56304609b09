import { sql, type SQL } from "drizzle-orm";
import { NotFoundError } from "../../errors.js";
import type { ContentPage, ContentRecord, ContentStatus, ListContentsOptions } from "../../knowledge/content.js";
import { pgJson } from "../../json-limits.js";
import { contentListQuery, validateContentRow } from "../knowledge-rows.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";

const COLUMNS =
  "id, name, description, metadata, type, size, linked_to, access_count, status, status_message, created_at, updated_at, external_id, user_id";

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toContent(row: Record<string, unknown>): ContentRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    description: String(row.description ?? ""),
    metadata: (typeof row.metadata === "string" ? JSON.parse(row.metadata) : row.metadata) as Record<
      string,
      unknown
    > | null,
    type: (row.type as string | null) ?? null,
    size: num(row.size),
    linked_to: (row.linked_to as string | null) ?? null,
    access_count: num(row.access_count),
    status: (row.status as ContentStatus | null) ?? null,
    status_message: (row.status_message as string | null) ?? null,
    created_at: num(row.created_at),
    updated_at: num(row.updated_at),
    external_id: (row.external_id as string | null) ?? null,
    user_id: (row.user_id as string | null) ?? null,
  };
}

/** Readers' scope in SQL: undefined every row, a user own + shared, null shared only. */
function visible(userId: string | null | undefined): SQL {
  if (userId === undefined) return sql`TRUE`;
  if (userId === null) return sql`user_id IS NULL`;
  return sql`(user_id = ${userId} OR user_id IS NULL)`;
}

/** Writers' scope: a user changes only their own rows; shared rows only an unscoped (admin) caller. */
function writable(userId: string | null | undefined): SQL {
  if (userId === undefined) return sql`TRUE`;
  return sql`user_id IS NOT DISTINCT FROM ${userId}`;
}

/** `agno_knowledge` reads and writes. */
export class KnowledgeContentTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
  ) {}

  async upsert(r: ContentRecord): Promise<ContentRecord> {
    validateContentRow(r);
    const [row] = await this.exec(sql`
      INSERT INTO ${this.table} (${sql.raw(COLUMNS)})
      VALUES (${r.id}, ${r.name}, ${r.description}, ${r.metadata === null ? null : pgJson(r.metadata)}::jsonb, ${r.type},
        ${r.size}, ${r.linked_to}, ${r.access_count}, ${r.status}, ${r.status_message}, ${r.created_at}, ${r.updated_at},
        ${r.external_id}, ${r.user_id})
      ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, metadata = EXCLUDED.metadata,
        type = EXCLUDED.type, size = EXCLUDED.size, linked_to = EXCLUDED.linked_to, access_count = EXCLUDED.access_count,
        status = EXCLUDED.status, status_message = EXCLUDED.status_message, updated_at = EXCLUDED.updated_at,
        external_id = EXCLUDED.external_id, user_id = EXCLUDED.user_id
      RETURNING ${sql.raw(COLUMNS)}`);
    return toContent(row!);
  }

  async get(id: string, userId: string | null | undefined): Promise<ContentRecord | null> {
    validateId(id, "id");
    const [row] = await this.exec(
      sql`SELECT ${sql.raw(COLUMNS)} FROM ${this.table} WHERE id = ${id} AND ${visible(userId)}`,
    );
    return row ? toContent(row) : null;
  }

  async list(opts: ListContentsOptions): Promise<ContentPage> {
    const q = contentListQuery(opts);
    const scope = opts.ownOnly && opts.userId !== undefined ? writable(opts.userId) : visible(opts.userId);
    const where = sql`${scope} AND ${opts.linkedTo === undefined ? sql`TRUE` : sql`linked_to = ${opts.linkedTo}`}`;
    const dir = sql.raw(q.desc ? "DESC" : "ASC");
    const rows = await this.exec(sql`SELECT ${sql.raw(COLUMNS)}, count(*) OVER () AS total FROM ${this.table}
      WHERE ${where} ORDER BY ${sql.raw(q.sortBy)} ${dir} NULLS LAST, id ${dir} LIMIT ${q.limit} OFFSET ${q.offset}`);
    let total = rows.length ? Number(rows[0]!.total) : 0;
    if (!rows.length && q.offset > 0) {
      const [c] = await this.exec(sql`SELECT count(*) AS n FROM ${this.table} WHERE ${where}`);
      total = Number(c!.n);
    }
    return { items: rows.map(toContent), total };
  }

  async delete(id: string, userId: string | null | undefined): Promise<void> {
    validateId(id, "id");
    const rows = await this.exec(sql`DELETE FROM ${this.table} WHERE id = ${id} AND ${writable(userId)} RETURNING id`);
    if (rows.length === 0) throw new NotFoundError(`content ${id} not found`);
  }

  async deleteMany(opts: { linkedTo?: string; userId?: string | null }): Promise<number> {
    const rows = await this.exec(sql`DELETE FROM ${this.table} WHERE ${writable(opts.userId)}
      AND ${opts.linkedTo === undefined ? sql`TRUE` : sql`linked_to = ${opts.linkedTo}`} RETURNING id`);
    return rows.length;
  }
}
