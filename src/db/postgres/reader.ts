import { and, asc, count, desc, eq, getTableColumns, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { NeonDatabase } from "drizzle-orm/neon-serverless";
import { ValidationError } from "../../errors.js";
import { pageOf, resolvePage, sortOrderOf, type ResolvedPage } from "../pagination.js";
import type { RunStore } from "../ports/run-store.js";
import type { SessionStore } from "../ports/session-store.js";
import { NON_HISTORY_STATUSES, Session } from "../session.js";
import type { GetRunsOptions, GetSessionOptions, GetSessionsOptions, Page, RunRow, SessionRecord } from "../types.js";
import { validateId } from "../validate.js";
import { Coalescer } from "./coalescer.js";
import { idList } from "./id-list.js";
import { RUN_COLUMNS, SESSION_COLUMNS, toRunRow, toSessionRecord } from "./rows.js";
import type { Exec } from "./schema-state.js";
import type { AgnoTables } from "./tables.js";

type RunFilter = { userId?: string; sessionId?: string; includeShared?: boolean };

/**
 * The read methods of the session and run ports, as each storage layout answers them, plus the
 * one question a delete asks of the layout: does a run the runs table lacks live elsewhere?
 * PostgresDb picks one implementation per schema state (this file's for agno 3.0's layout,
 * legacy-reader.ts's while agno 2.x run blobs wait for migration).
 */
export type PostgresReads = Pick<SessionStore, "getSession" | "getSessionWithRun" | "getSessions"> &
  Pick<RunStore, "getRun" | "getRuns"> & {
    /** a run kept outside the runs table (null in agno 3.0's layout), read through `exec` (a delete's transaction) */
    runOutsideTable(runId: string, opts: RunFilter, exec: Exec): Promise<RunRow | null>;
  };

/** What a reader borrows from its PostgresDb: connections and table names. */
export interface ReaderDeps {
  exec: Exec;
  orm: () => NeonDatabase;
  t: AgnoTables;
  sessions: SQL;
  runs: SQL;
}

/** One `getSessionWithRun` call, as the batch that answers it sees it. */
interface SessionRead {
  sessionId: string;
  runId: string;
  opts: GetSessionOptions;
}

/** A session read's id and runs limit, checked before anything is read (a bad one is the caller's 4xx). */
export function checkSessionRead(sessionId: string, opts: GetSessionOptions): void {
  validateId(sessionId, "session_id");
  if (opts.runsLimit !== undefined && (!Number.isInteger(opts.runsLimit) || opts.runsLimit < 0)) {
    throw new ValidationError("runsLimit must be a whole number of at least 0", "runs_limit");
  }
}

export interface RunsQuery extends ResolvedPage {
  order: "asc" | "desc";
  sortBy: "created_at" | "updated_at" | "run_index";
  statuses: string[];
}

/** A run listing's page, order and statuses, checked before anything is read. */
export function runsQuery(opts: GetRunsOptions): RunsQuery {
  const page = resolvePage(opts);
  const order = sortOrderOf(opts.sortOrder);
  const sortBy = opts.sortBy ?? (opts.sessionId ? "run_index" : "created_at");
  if (!["created_at", "updated_at", "run_index"].includes(sortBy))
    throw new ValidationError(`cannot sort runs by ${String(sortBy)}`, "sort_by");
  const statuses = opts.status === undefined ? [] : Array.isArray(opts.status) ? opts.status : [opts.status];
  return { ...page, order, sortBy: sortBy as RunsQuery["sortBy"], statuses };
}

/** A session listing's page and order, checked before anything is read. */
export function sessionsQuery(opts: GetSessionsOptions): ResolvedPage & { order: "asc" | "desc" } {
  const page = resolvePage(opts);
  const order = sortOrderOf(opts.sortOrder);
  const sortBy = opts.sortBy ?? "created_at";
  if (sortBy !== "created_at" && sortBy !== "updated_at")
    throw new ValidationError(`cannot sort sessions by ${String(sortBy)}`, "sort_by");
  return { ...page, order };
}

/** The reads of agno 3.0's layout: sessions in their table, each run a row of the runs table. */
export class PostgresReader implements PostgresReads {
  private readonly sessionReads = new Coalescer<SessionRead, { session: Session | null; run: RunRow | null }>(
    (_, reads) => this.readSessionsWithRuns(reads),
  );

  constructor(private readonly d: ReaderDeps) {}

  private sessionFilter(sessionId: string, opts: GetSessionOptions): SQL {
    checkSessionRead(sessionId, opts);
    const user =
      opts.userId === undefined
        ? sql``
        : opts.includeShared
          ? sql` AND (user_id = ${opts.userId} OR user_id IS NULL)`
          : sql` AND user_id = ${opts.userId}`;
    return sql`session_id = ${sessionId}${user}`;
  }

  /** The session's row (its SESSION_COLUMNS and any `extra`), or undefined. */
  async sessionRow(
    sessionId: string,
    opts: GetSessionOptions,
    extra: SQL = sql``,
  ): Promise<Record<string, unknown> | undefined> {
    const where = this.sessionFilter(sessionId, opts);
    const [row] = await this.d.exec(
      sql`SELECT ${sql.raw(SESSION_COLUMNS)}${extra} FROM ${this.d.sessions} WHERE ${where}`,
    );
    return row;
  }

  async getSession(sessionId: string, opts: GetSessionOptions = {}): Promise<Session | null> {
    const row = await this.sessionRow(sessionId, opts);
    if (!row) return null;
    const record = toSessionRecord(row);
    if (opts.includeRuns !== false) {
      const runs = await this.sessionRuns([record], opts.runsLimit);
      record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    }
    return new Session(record);
  }

  /**
   * Runs of these sessions in run order. With `limit`, agno's `runs_limit`: the last N top-level
   * runs that can feed history (no member runs, none PAUSED/CANCELLED/ERROR/REGENERATED).
   */
  async sessionRuns(sessions: SessionRecord[], limit?: number): Promise<Map<string, RunRow[]>> {
    const ids = sessions.map((s) => s.session_id);
    const out = new Map<string, RunRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0 || limit === 0) return out;
    for (const row of await this.d.exec(
      sql`${this.sessionRunsQuery(idList(ids), limit)} ORDER BY session_id, run_index, created_at, run_id`,
    )) {
      out.get(String(row.session_id))!.push(toRunRow(row));
    }
    return out;
  }

  /** The runs of these sessions (a list of ids), all or, with `limit`, the last N that can feed history; unordered. */
  private sessionRunsQuery(ids: SQL, limit?: number): SQL {
    if (limit === undefined)
      return sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.d.runs} WHERE session_id IN (${ids})`;
    const skip = sql.join(
      NON_HISTORY_STATUSES.map((st) => sql`${st}`),
      sql`, `,
    );
    return sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM (SELECT *, row_number() OVER (PARTITION BY session_id ORDER BY run_index DESC, created_at DESC, run_id DESC) AS rn
      FROM ${this.d.runs} WHERE session_id IN (${ids}) AND parent_run_id IS NULL AND (status IS NULL OR status NOT IN (${skip}))) r
      WHERE rn <= ${limit}`;
  }

  async getSessionWithRun(
    sessionId: string,
    runId: string,
    opts: GetSessionOptions = {},
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    checkSessionRead(sessionId, opts); // here, so a bad call fails alone, not its batch
    validateId(runId, "run_id");
    // Runs a queue starts together read together: one statement for all reads of one shape.
    const shape = JSON.stringify([
      opts.includeRuns === false,
      opts.runsLimit ?? null,
      opts.userId === undefined ? null : opts.includeShared === true,
    ]);
    return this.sessionReads.run(shape, { sessionId, runId, opts });
  }

  /** The session, its runs and the run: one round trip instead of three at every queued run's start. */
  private async readSessionsWithRuns(
    reads: SessionRead[],
  ): Promise<Array<{ session: Session | null; run: RunRow | null }>> {
    const { opts } = reads[0]!; // one shape: the same limit and kind of user filter
    const limit = opts.runsLimit;
    const withRuns = opts.includeRuns !== false && limit !== 0;
    const user =
      opts.userId === undefined
        ? sql``
        : opts.includeShared
          ? sql` AND (user_id = x.uid OR user_id IS NULL)`
          : sql` AND user_id = x.uid`;
    const x = JSON.stringify(
      reads.map((r, ord) => ({ ord, sid: r.sessionId, rid: r.runId, uid: r.opts.userId ?? null })),
    );
    const rows = await this.d.exec(sql`
      WITH x AS (SELECT * FROM jsonb_to_recordset(${x}::jsonb) AS x(ord int, sid varchar, rid varchar, uid varchar))
      ${withRuns ? sql`, h AS (${this.sessionRunsQuery(idList([...new Set(reads.map((r) => r.sessionId))]), limit)})` : sql``}
      SELECT x.ord, (SELECT row_to_json(s) FROM (SELECT ${sql.raw(SESSION_COLUMNS)} FROM ${this.d.sessions} WHERE session_id = x.sid${user}) s) AS session,
        ${withRuns ? sql`(SELECT json_agg(h ORDER BY h.run_index, h.created_at, h.run_id) FROM h WHERE h.session_id = x.sid)` : sql`NULL`} AS runs,
        (SELECT row_to_json(r) FROM (SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.d.runs} WHERE run_id = x.rid) r) AS run
      FROM x ORDER BY x.ord`);
    return rows.map((row) => {
      const run = row.run ? toRunRow(row.run as Record<string, unknown>) : null;
      if (!row.session) return { session: null, run };
      const record = toSessionRecord(row.session as Record<string, unknown>);
      if (opts.includeRuns !== false)
        record.runs = ((row.runs as Record<string, unknown>[] | null) ?? []).map((r) => toRunRow(r).run_data);
      return { session: new Session(record), run };
    });
  }

  async getSessions(opts: GetSessionsOptions = {}): Promise<Page<Session>> {
    const { rows, total, page } = await this.sessionRows(opts);
    const records = rows.map((r) => toSessionRecord(r));
    if (opts.includeRuns) {
      const runs = await this.sessionRuns(records);
      for (const record of records) record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    }
    return pageOf(
      records.map((r) => new Session(r)),
      total,
      page,
    );
  }

  /** One page of session rows (with `extra` columns, such as a legacy blob) and the count of all that match. */
  async sessionRows(
    opts: GetSessionsOptions,
    extra: Record<string, SQL.Aliased> = {},
  ): Promise<{ rows: Record<string, unknown>[]; total: number; page: ResolvedPage }> {
    const { limit, page, offset, order } = sessionsQuery(opts);
    const s = this.d.t.sessions;
    const where = and(
      opts.sessionType ? eq(s.session_type, opts.sessionType) : undefined,
      ownedBy(s.user_id, opts),
      opts.componentId
        ? or(eq(s.agent_id, opts.componentId), eq(s.team_id, opts.componentId), eq(s.workflow_id, opts.componentId))
        : undefined,
      opts.sessionName
        ? ilike(sql`${s.session_data}->>'session_name'`, `%${opts.sessionName.replace(/[\\%_]/g, "\\$&")}%`)
        : undefined,
    );
    const sortColumn = opts.sortBy === "updated_at" ? s.updated_at : s.created_at;
    const orm = this.d.orm();
    const [rows, [total]] = await Promise.all([
      orm
        .select({ ...getTableColumns(s), ...extra })
        .from(s)
        .where(where)
        .orderBy(order === "asc" ? asc(sortColumn) : desc(sortColumn), asc(s.session_id))
        .limit(limit)
        .offset(offset),
      orm.select({ n: count() }).from(s).where(where),
    ]);
    return { rows: rows as Record<string, unknown>[], total: Number(total?.n ?? 0), page: { limit, page, offset } };
  }

  async getRun(runId: string, opts: RunFilter = {}): Promise<RunRow | null> {
    validateId(runId, "run_id");
    const filters = sql.join(
      [
        sql`run_id = ${runId}`,
        ...(opts.userId !== undefined
          ? [opts.includeShared ? sql`(user_id = ${opts.userId} OR user_id IS NULL)` : sql`user_id = ${opts.userId}`]
          : []),
        ...(opts.sessionId !== undefined ? [sql`session_id = ${opts.sessionId}`] : []),
      ],
      sql` AND `,
    );
    const [row] = await this.d.exec(sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.d.runs} WHERE ${filters}`);
    return row ? toRunRow(row) : null;
  }

  async getRuns(opts: GetRunsOptions = {}): Promise<Page<RunRow>> {
    const { limit, page, offset, order, sortBy, statuses } = runsQuery(opts);
    const r = this.d.t.runs;
    const where = and(
      opts.sessionId ? eq(r.session_id, opts.sessionId) : undefined,
      ownedBy(r.user_id, opts),
      opts.agentId ? eq(r.agent_id, opts.agentId) : undefined,
      opts.teamId ? eq(r.team_id, opts.teamId) : undefined,
      opts.workflowId ? eq(r.workflow_id, opts.workflowId) : undefined,
      opts.runType ? eq(r.run_type, opts.runType) : undefined,
      opts.parentRunId === null
        ? sql`${r.parent_run_id} IS NULL`
        : opts.parentRunId
          ? eq(r.parent_run_id, opts.parentRunId)
          : undefined,
      statuses.length > 0 ? inArray(r.status, statuses) : undefined,
    );
    const column = r[sortBy];
    const orm = this.d.orm();
    const [rows, [total]] = await Promise.all([
      orm
        .select()
        .from(r)
        .where(where)
        .orderBy(order === "asc" ? asc(column) : desc(column), asc(r.run_id))
        .limit(limit)
        .offset(offset),
      orm.select({ n: count() }).from(r).where(where),
    ]);
    return pageOf(
      rows.map((x) => toRunRow(x)),
      Number(total?.n ?? 0),
      { page, limit },
    );
  }

  async runOutsideTable(): Promise<RunRow | null> {
    return null;
  }
}

/** The user filter of a listing: none, the user's rows, or theirs and the shared ones (no user). */
function ownedBy(column: AnyPgColumn, opts: { userId?: string; includeShared?: boolean }): SQL | undefined {
  if (opts.userId === undefined) return undefined;
  return opts.includeShared ? or(eq(column, opts.userId), isNull(column)) : eq(column, opts.userId);
}
