import { ConflictError, ValidationError } from "../../errors.js";
import { sanitizeText } from "../../json-limits.js";
import type { ToolResultRecord, ToolResultStore } from "../port.js";
import { validateId, validateIds } from "../validate.js";
import { copy, type MemoryTables } from "./tables.js";

const MAX_LIST = 1000;

/** What a model or a tool wrote, as text the Postgres adapter stores it. */
const text = (s: string | null | undefined) => (typeof s === "string" ? sanitizeText(s) : (s ?? null));

/** The index of offloaded tool results in memory, with the Postgres adapter's rules: ids and paths taken once, reads scoped exactly. */
export class MemoryToolResultStore implements ToolResultStore {
  constructor(private readonly t: MemoryTables) {}

  async insertToolResult(r: ToolResultRecord): Promise<void> {
    validateId(r.result_id, "result_id");
    const taken =
      this.t.toolResults.has(r.result_id) ||
      [...this.t.toolResults.values()].some((x) => x.namespace === r.namespace && x.path === r.path);
    if (taken) throw new ConflictError(`tool result ${r.result_id} (or its path ${r.path}) already exists`);
    this.t.toolResults.set(r.result_id, {
      ...copy(r),
      tool_call_id: text(r.tool_call_id),
      tool_name: text(r.tool_name),
      preview: text(r.preview),
    });
  }

  async getToolResult(
    resultId: string,
    scope: { sessionId: string | null; userId: string | null },
  ): Promise<ToolResultRecord | null> {
    validateId(resultId, "result_id");
    const row = this.t.toolResults.get(resultId);
    return row && row.session_id === scope.sessionId && row.user_id === scope.userId ? copy(row) : null;
  }

  async listExpiredToolResults(now: number, opts: { namespace: string; limit?: number }): Promise<ToolResultRecord[]> {
    const limit = opts.limit ?? 500;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
      throw new ValidationError(`limit must be 1..${MAX_LIST}`, "limit");
    return [...this.t.toolResults.values()]
      .filter((r) => r.namespace === opts.namespace && r.expires_at !== null && r.expires_at < now)
      .sort(
        (a, b) => a.expires_at! - b.expires_at! || (a.result_id < b.result_id ? -1 : a.result_id > b.result_id ? 1 : 0),
      )
      .slice(0, limit)
      .map(copy);
  }

  async deleteToolResults(resultIds: string[]): Promise<number> {
    if (resultIds.length === 0) return 0;
    let gone = 0;
    for (const id of new Set(validateIds(resultIds, "result_ids"))) if (this.t.toolResults.delete(id)) gone++;
    return gone;
  }
}
