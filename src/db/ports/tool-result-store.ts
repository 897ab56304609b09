/**
 * A row of `agno_tool_results`: where an offloaded tool result lives and what it is. `namespace`
 * names the object store (`<backend>:<bucket>`) and `path` the object's key in it, so a row says
 * where its bytes are even when several stores share one database. Sizes count the stored text:
 * `size_chars` in Unicode code points, `size_bytes` in UTF-8.
 */
export interface ToolResultRecord {
  result_id: string;
  namespace: string;
  path: string;
  session_id: string | null;
  run_id: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  /** sha-256 (hex) of the call's arguments as JSON */
  args_hash: string | null;
  content_type: string;
  size_bytes: number;
  size_chars: number;
  line_count: number;
  preview: string | null;
  user_id: string | null;
  /** epoch seconds */
  created_at: number;
  /** epoch seconds; null keeps the result until it is deleted */
  expires_at: number | null;
}

/** The index of offloaded tool results (their bytes live in object storage). */
export interface ToolResultStore {
  /** indexes an offloaded tool result (its object is already written); ConflictError when the id is taken */
  insertToolResult(row: ToolResultRecord): Promise<void>;
  /**
   * One offloaded result, only within its owner's scope: the same session and the same user
   * (both may be null, and null matches only null), so ids never leak across users or sessions.
   */
  getToolResult(
    resultId: string,
    scope: { sessionId: string | null; userId: string | null },
  ): Promise<ToolResultRecord | null>;
  /** results of one object store (`namespace`) whose `expires_at` is before `now`, oldest first, at most `limit` */
  listExpiredToolResults(now: number, opts: { namespace: string; limit?: number }): Promise<ToolResultRecord[]>;
  /** deletes these rows (objects are the caller's); returns how many existed */
  deleteToolResults(resultIds: string[]): Promise<number>;
}
