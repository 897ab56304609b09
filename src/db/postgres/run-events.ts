import { sql, type SQL } from "drizzle-orm";
import { ConflictError, ValidationError } from "../../errors.js";
import type { StoredRunEvent } from "../port.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

const MAX_BATCH = 1000;
const MAX_READ = 1000;

/** The SQLSTATE of a failed query (drizzle wraps the driver's error as its `cause`). */
function pgCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 3;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === "string") return e.code;
  }
  return undefined;
}

/** `agno_run_events`: a streamed run's events by position (rows die with their run). */
export class RunEventTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
  ) {}

  async append(runId: string, firstIndex: number, events: object[]): Promise<void> {
    validateId(runId, "run_id");
    if (!Number.isInteger(firstIndex) || firstIndex < 0)
      throw new ValidationError("firstIndex must be a non-negative integer", "firstIndex");
    if (events.length === 0) return;
    if (events.length > MAX_BATCH) throw new ValidationError(`at most ${MAX_BATCH} events per append`, "events");
    const now = nowSeconds();
    // One statement per batch: a streamed answer costs a round trip per flush, not per token.
    const rows = sql.join(
      events.map((e, i) => sql`(${runId}, ${firstIndex + i}, ${pgJson(e)}::jsonb, ${now})`),
      sql`, `,
    );
    try {
      await this.exec(sql`INSERT INTO ${this.table} (run_id, event_index, event, created_at) VALUES ${rows}`);
    } catch (error) {
      const code = pgCode(error);
      if (code === "23505")
        throw new ConflictError(`run ${runId} already has events at ${firstIndex}..${firstIndex + events.length - 1}`);
      if (code === "23503") throw new ConflictError(`run ${runId} is not stored: its events cannot be`);
      throw error;
    }
  }

  async after(runId: string, afterIndex: number, limit = 500): Promise<StoredRunEvent[]> {
    validateId(runId, "run_id");
    if (!Number.isInteger(afterIndex) || afterIndex < -1)
      throw new ValidationError("afterIndex must be an integer of at least -1", "last_event_index");
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_READ)
      throw new ValidationError(`limit must be 1..${MAX_READ}`, "limit");
    const rows = await this.exec(
      sql`SELECT event_index, event FROM ${this.table} WHERE run_id = ${runId} AND event_index > ${afterIndex} ORDER BY event_index LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      index: Number(r.event_index),
      event: (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as StoredRunEvent["event"],
    }));
  }

  async last(runId: string): Promise<number> {
    validateId(runId, "run_id");
    const [row] = await this.exec(sql`SELECT MAX(event_index) AS last FROM ${this.table} WHERE run_id = ${runId}`);
    return row?.last === null || row?.last === undefined ? -1 : Number(row.last);
  }

  async prune(createdBefore: number): Promise<number> {
    // Whole logs go at once, so a resumed client never sees a run's stream with its start cut off.
    const rows = await this.exec(sql`
      DELETE FROM ${this.table} WHERE run_id IN (
        SELECT run_id FROM ${this.table} GROUP BY run_id HAVING MAX(created_at) < ${createdBefore}
      ) RETURNING 1 AS gone`);
    return rows.length;
  }
}
