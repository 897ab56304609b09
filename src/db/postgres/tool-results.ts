import { sql, type SQL } from "drizzle-orm";
import { ConflictError, ValidationError } from "../../errors.js";
import type { ToolResultRecord } from "../port.js";
import { validateId, validateIds } from "../validate.js";
import { idList } from "./id-list.js";
import type { Exec } from "./schema-state.js";
import { sanitizeText } from "../../json-limits.js";

const COLUMNS =
  "result_id, namespace, path, session_id, run_id, tool_call_id, tool_name, args_hash, content_type, size_bytes, size_chars, line_count, preview, user_id, created_at, expires_at";
const MAX_LIST = 1000;

const strOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

function toRecord(row: Record<string, unknown>): ToolResultRecord {
  return {
    result_id: String(row.result_id),
    namespace: String(row.namespace),
    path: String(row.path),
    session_id: strOrNull(row.session_id),
    run_id: strOrNull(row.run_id),
    tool_call_id: strOrNull(row.tool_call_id),
    tool_name: strOrNull(row.tool_name),
    args_hash: strOrNull(row.args_hash),
    content_type: String(row.content_type),
    // BIGINT columns come back as strings from the driver
    size_bytes: Number(row.size_bytes),
    size_chars: Number(row.size_chars),
    line_count: Number(row.line_count),
    preview: strOrNull(row.preview),
    user_id: strOrNull(row.user_id),
    created_at: Number(row.created_at),
    expires_at: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
  };
}

/** What a model or a tool wrote (a call id, a preview of the result), as text Postgres stores (see pgJson). */
const text = (s: string | null | undefined) => (typeof s === "string" ? sanitizeText(s) : (s ?? null));

/** `agno_tool_results`: the index of offloaded tool results (the bytes live in object storage). */
export class ToolResultTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
  ) {}

  async insert(r: ToolResultRecord): Promise<void> {
    validateId(r.result_id, "result_id");
    const rows = await this.exec(sql`
      INSERT INTO ${this.table} (${sql.raw(COLUMNS)})
      VALUES (${r.result_id}, ${r.namespace}, ${r.path}, ${r.session_id}, ${r.run_id}, ${text(r.tool_call_id)}, ${text(r.tool_name)}, ${r.args_hash},
        ${r.content_type}, ${r.size_bytes}, ${r.size_chars}, ${r.line_count}, ${text(r.preview)}, ${r.user_id}, ${r.created_at}, ${r.expires_at})
      ON CONFLICT DO NOTHING RETURNING result_id`);
    if (rows.length === 0) throw new ConflictError(`tool result ${r.result_id} (or its path ${r.path}) already exists`);
  }

  async get(
    resultId: string,
    scope: { sessionId: string | null; userId: string | null },
  ): Promise<ToolResultRecord | null> {
    validateId(resultId, "result_id");
    const [row] = await this.exec(sql`
      SELECT ${sql.raw(COLUMNS)} FROM ${this.table}
      WHERE result_id = ${resultId} AND session_id IS NOT DISTINCT FROM ${scope.sessionId} AND user_id IS NOT DISTINCT FROM ${scope.userId}`);
    return row ? toRecord(row) : null;
  }

  async expired(now: number, namespace: string, limit = 500): Promise<ToolResultRecord[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
      throw new ValidationError(`limit must be 1..${MAX_LIST}`, "limit");
    const rows = await this.exec(sql`
      SELECT ${sql.raw(COLUMNS)} FROM ${this.table}
      WHERE namespace = ${namespace} AND expires_at IS NOT NULL AND expires_at < ${now}
      ORDER BY expires_at, result_id LIMIT ${limit}`);
    return rows.map(toRecord);
  }

  async delete(resultIds: string[]): Promise<number> {
    if (resultIds.length === 0) return 0;
    const ids = [...new Set(validateIds(resultIds, "result_ids"))];
    const rows = await this.exec(
      sql`DELETE FROM ${this.table} WHERE result_id IN (${idList(ids)}) RETURNING 1 AS gone`,
    );
    return rows.length;
  }
}
