import { sql } from "drizzle-orm";
import { MigrationRequiredError } from "../../errors.js";
import { pageOf } from "../pagination.js";
import { NON_HISTORY_STATUSES, Session } from "../session.js";
import type { GetRunsOptions, GetSessionOptions, GetSessionsOptions, Page, RunRow, SessionRecord } from "../types.js";
import { validateId } from "../validate.js";
import { legacyRunRow, mergeRuns } from "./legacy.js";
import { toSessionRecord } from "./rows.js";
import { checkSessionRead, runsQuery, type PostgresReads, type PostgresReader, type ReaderDeps } from "./reader.js";
import type { Exec } from "./schema-state.js";

type RunFilter = { userId?: string; sessionId?: string; includeShared?: boolean };

/** The session row's agno 2.x runs blob, as an extra column of a session read. */
const BLOB = sql`, runs AS legacy_runs`;

/**
 * The reads of an agno 2.x database before its migration: each run may still live only in its
 * session row's `runs` JSON. Every read merges that blob with the runs table (the table's copy
 * wins), so a read before migration and one after it give the same runs. A run listing across
 * sessions cannot be answered from the blobs and asks for the migration instead.
 */
export class LegacyReader implements PostgresReads {
  constructor(
    private readonly table: PostgresReader,
    private readonly d: Pick<ReaderDeps, "exec" | "sessions">,
  ) {}

  async getSession(sessionId: string, opts: GetSessionOptions = {}): Promise<Session | null> {
    const row = await this.table.sessionRow(sessionId, opts, BLOB);
    if (!row) return null;
    const record = toSessionRecord(row);
    if (opts.includeRuns !== false) {
      const runs = await this.sessionRuns([record], [row], opts.runsLimit);
      record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    }
    return new Session(record);
  }

  /** The table's runs of these sessions merged with their blobs (`blobRows`), in run order; `limit` as the table reader's. */
  private async sessionRuns(
    sessions: SessionRecord[],
    blobRows: Record<string, unknown>[],
    limit?: number,
  ): Promise<Map<string, RunRow[]>> {
    const out = await this.table.sessionRuns(sessions, limit);
    if (sessions.length === 0 || limit === 0) return out;
    for (const row of blobRows) {
      const session = sessions.find((s) => s.session_id === row.session_id)!;
      const blob = Array.isArray(row.legacy_runs) ? row.legacy_runs : [];
      const legacy = blob
        .map((run, index) =>
          legacyRunRow(run, index, {
            session_id: session.session_id,
            user_id: session.user_id ?? null,
            created_at: session.created_at ?? 0,
          }),
        )
        .filter((r): r is RunRow => r !== null);
      let merged = mergeRuns(out.get(session.session_id)!, legacy);
      if (limit !== undefined)
        merged = merged
          .filter((r) => !r.parent_run_id && !NON_HISTORY_STATUSES.includes(String(r.status)))
          .slice(-limit);
      out.set(session.session_id, merged);
    }
    return out;
  }

  async getSessionWithRun(
    sessionId: string,
    runId: string,
    opts: GetSessionOptions = {},
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    checkSessionRead(sessionId, opts);
    validateId(runId, "run_id");
    const [session, run] = await Promise.all([this.getSession(sessionId, opts), this.getRun(runId)]);
    return { session, run };
  }

  async getSessions(opts: GetSessionsOptions = {}): Promise<Page<Session>> {
    // The blob is read only when runs are asked for.
    if (opts.includeRuns !== true) return this.table.getSessions(opts);
    const { rows, total, page } = await this.table.sessionRows(opts, { legacy_runs: sql`runs`.as("legacy_runs") });
    const records = rows.map((r) => toSessionRecord(r));
    const runs = await this.sessionRuns(records, rows);
    for (const record of records) record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    return pageOf(
      records.map((r) => new Session(r)),
      total,
      page,
    );
  }

  async getRun(runId: string, opts: RunFilter = {}): Promise<RunRow | null> {
    return (await this.table.getRun(runId, opts)) ?? this.runOutsideTable(runId, opts, this.d.exec);
  }

  /** One session's runs: merged in memory, then filtered and paged. */
  async getRuns(opts: GetRunsOptions = {}): Promise<Page<RunRow>> {
    const { limit, page, offset, order, sortBy: key, statuses } = runsQuery(opts);
    if (!opts.sessionId) {
      throw new MigrationRequiredError(
        "runs of this database still live in agno 2.x session blobs, so a run listing across sessions would be incomplete: " +
          "run `new MigrationManager(db).up()` or POST /databases/{db_id}/migrate",
      );
    }
    const row = await this.table.sessionRow(opts.sessionId, { userId: opts.userId }, BLOB);
    if (!row) return { data: [], page, limit, total_count: 0, total_pages: 0 };
    const session = toSessionRecord(row);
    const all = (await this.sessionRuns([session], [row])).get(session.session_id) ?? [];
    const matching = all
      .filter((x) => (opts.agentId ? x.agent_id === opts.agentId : true))
      .filter((x) => (opts.teamId ? x.team_id === opts.teamId : true))
      .filter((x) => (opts.workflowId ? x.workflow_id === opts.workflowId : true))
      .filter((x) => (opts.runType ? x.run_type === opts.runType : true))
      .filter((x) =>
        opts.parentRunId === null ? !x.parent_run_id : opts.parentRunId ? x.parent_run_id === opts.parentRunId : true,
      )
      .filter((x) => (statuses.length ? statuses.includes(String(x.status)) : true))
      .sort((a, b) => ((a[key] ?? 0) - (b[key] ?? 0)) * (order === "asc" ? 1 : -1));
    return pageOf(matching.slice(offset, offset + limit), matching.length, { page, limit });
  }

  /** A run that lives only in its session's blob. */
  async runOutsideTable(runId: string, opts: RunFilter, exec: Exec): Promise<RunRow | null> {
    const rows = await exec(sql`
      SELECT s.session_id, s.user_id, s.created_at, e.value AS run, e.ord - 1 AS idx
      FROM ${this.d.sessions} s CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.runs::jsonb) = 'array' THEN s.runs::jsonb ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, ord)
      WHERE s.runs::jsonb @> jsonb_build_array(jsonb_build_object('run_id', ${runId}::text)) AND e.value->>'run_id' = ${runId}
      ${opts.userId !== undefined ? (opts.includeShared ? sql`AND (s.user_id = ${opts.userId} OR s.user_id IS NULL)` : sql`AND s.user_id = ${opts.userId}`) : sql``}
      ${opts.sessionId !== undefined ? sql`AND s.session_id = ${opts.sessionId}` : sql``}
      LIMIT 1`);
    const found = rows[0];
    if (!found) return null;
    return legacyRunRow(found.run, Number(found.idx), {
      session_id: String(found.session_id),
      user_id: (found.user_id as string | null) ?? null,
      created_at: Number(found.created_at),
    });
  }
}
