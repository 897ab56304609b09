import { sql, type SQL } from "drizzle-orm";
import type { InterruptedRun, InterruptOptions, TimedOutReview } from "../port.js";
import { ValidationError } from "../../errors.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";
import { nowSeconds as now } from "../../time.js";

/**
 * The liveness of interactive runs on their rows: a run executing keeps its row's `updated_at`
 * fresh (agno's own column, so the table's layout is unchanged), and a RUNNING row left stale
 * is a run whose runtime died. Runs the queue executes are its job's to recover (the lease), so
 * a run with a PENDING or RUNNING job is never interrupted here.
 */
export class RunLivenessTable {
  constructor(
    private readonly exec: Exec,
    private readonly t: { runs: SQL; jobs: SQL; runEvents: SQL },
  ) {}

  /** One small UPDATE; false once the run is no longer RUNNING (paused, ended, cancelled, interrupted). */
  async heartbeat(runId: string): Promise<boolean> {
    validateId(runId, "run_id");
    const rows = await this.exec(
      sql`UPDATE ${this.t.runs} SET updated_at = ${now()} WHERE run_id = ${runId} AND status = 'RUNNING' RETURNING 1 AS alive`,
    );
    return rows.length === 1;
  }

  /**
   * One statement: the stale RUNNING runs (at most `limit`, oldest first, rows another
   * transaction holds skipped) become ERROR with the error in their stored RunOutput, and each
   * log gets a closing RunError after its last event, so a client re-attaching sees why it ended.
   */
  async interrupt(opts: InterruptOptions): Promise<InterruptedRun[]> {
    if (opts.runId !== undefined) validateId(opts.runId, "run_id");
    const t = now();
    const limit = Math.max(1, Math.min(opts.limit ?? 100, 1000));
    const error = { message: opts.message, type: opts.errorType, kind: "interrupted" };
    const only = opts.runId === undefined ? sql`` : sql`AND r.run_id = ${opts.runId}`;
    const { runs, jobs, runEvents } = this.t;
    const rows = await this.exec(sql`
      WITH stale AS (
        SELECT r.run_id FROM ${runs} r
        WHERE r.status = 'RUNNING' AND COALESCE(r.updated_at, r.created_at) < ${opts.staleBefore} ${only}
          AND NOT EXISTS (SELECT 1 FROM ${jobs} j WHERE j.status IN ('PENDING', 'RUNNING') AND j.payload->>'run_id' = r.run_id)
        ORDER BY COALESCE(r.updated_at, r.created_at) LIMIT ${limit}
        FOR UPDATE OF r SKIP LOCKED
      ), ended AS (
        UPDATE ${runs} r SET status = 'ERROR', updated_at = ${t},
          run_data = r.run_data || jsonb_build_object('status', 'ERROR', 'content', ${opts.message}::text, 'error', ${JSON.stringify(error)}::jsonb, 'updated_at', ${t}::bigint)
        FROM stale WHERE r.run_id = stale.run_id AND r.status = 'RUNNING'
        RETURNING r.run_id, r.session_id, r.agent_id, r.run_data->>'agent_name' AS agent_name
      ), logged AS (
        INSERT INTO ${runEvents} (run_id, event_index, event, created_at)
        SELECT e.run_id, COALESCE((SELECT MAX(x.event_index) FROM ${runEvents} x WHERE x.run_id = e.run_id), -1) + 1,
          jsonb_strip_nulls(jsonb_build_object('event', 'RunError', 'run_id', e.run_id, 'session_id', e.session_id, 'agent_id', e.agent_id, 'agent_name', e.agent_name,
            'created_at', ${t}::bigint, 'content', ${opts.message}::text, 'error_type', ${opts.errorType}::text, 'error_kind', 'interrupted')),
          ${t}
        FROM ended e
        ON CONFLICT (run_id, event_index) DO NOTHING
        RETURNING run_id
      )
      SELECT run_id, session_id FROM ended`);
    return rows.map((r) => ({ run_id: String(r.run_id), session_id: String(r.session_id) }));
  }

  /**
   * The PAUSED runs whose pending review's deadline passed: read through the partial expression
   * index of migration 0004 (PAUSED rows only, by their last requirement's `timeout_at`), so a
   * tick reads the due rows, not every paused run's JSON. The expression must stay the index's.
   */
  async timedOutReviews(opts: { now: string; limit?: number }): Promise<TimedOutReview[]> {
    if (typeof opts.now !== "string" || Number.isNaN(Date.parse(opts.now)))
      throw new ValidationError("now must be an ISO-8601 time", "now");
    const limit = Math.max(1, Math.min(opts.limit ?? 100, 1000));
    const rows = await this.exec(sql`
      SELECT run_id, session_id, workflow_id, (run_data->'step_requirements'->-1->>'timeout_at') AS timeout_at
      FROM ${this.t.runs}
      WHERE status = 'PAUSED' AND (run_data->'step_requirements'->-1->>'timeout_at') <= ${opts.now}
      ORDER BY (run_data->'step_requirements'->-1->>'timeout_at') LIMIT ${limit}`);
    return rows.map((r) => ({
      run_id: String(r.run_id),
      session_id: String(r.session_id),
      workflow_id: r.workflow_id === null ? null : String(r.workflow_id),
      timeout_at: String(r.timeout_at),
    }));
  }
}
