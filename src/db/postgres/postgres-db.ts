import { and, asc, count, desc, eq, getTableColumns, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { Pool } from "@neondatabase/serverless";
import { ConflictError, MigrationRequiredError, NotFoundError, ValidationError } from "../../errors.js";
import { pageOf, resolvePage, sortOrderOf } from "../pagination.js";
import type {
  Db,
  InterruptedRun,
  InterruptOptions,
  MigrateOptions,
  MigrationResult,
  StoredRunEvent,
  ToolResultRecord,
  UpsertRunOptions,
} from "../port.js";
import { NON_HISTORY_STATUSES, Session } from "../session.js";
import type {
  GetRunsOptions,
  GetSessionOptions,
  GetSessionsOptions,
  MemoryRecord,
  Page,
  RunRecord,
  RunRow,
  SchemaState,
  SessionRecord,
} from "../types.js";
import { validateId, validateIds, validateRun, validateSession } from "../validate.js";
import { legacyRunRow, mergeRuns } from "./legacy.js";
import { MemoryTable } from "./memories.js";
import { RunEventTable } from "./run-events.js";
import { RunLivenessTable } from "./run-liveness.js";
import { updateRunRow, updateRunRows, writeRunRow } from "./run-writer.js";
import { ToolResultTable } from "./tool-results.js";
import { JobTable } from "./jobs.js";
import { PostgresJobStore } from "./job-store.js";
import { PostgresScheduleStore } from "./schedules.js";
import type { JobRecord, JobStore } from "../../queue/types.js";
import { cleanupLegacyRuns, copyLegacyRuns } from "./migrate.js";
import { DEFAULT_TABLE_NAMES, qualified, type TableNames } from "./names.js";
import { RUN_COLUMNS, SESSION_COLUMNS, toRunRow, toSessionRecord } from "./rows.js";
import { ensureSchema, type Exec, type Inspection } from "./schema-state.js";
import { applyStateChanges, type StateChange } from "../state-changes.js";
import { Coalescer } from "./coalescer.js";
import { idList } from "./id-list.js";
import { agnoTables, type AgnoTables } from "./tables.js";
import { pgSafe } from "../../json-limits.js";
import { rethrowUnavailable } from "./unavailable.js";
import { nowSeconds as now } from "../../time.js";

export interface PostgresDbOptions {
  /**
   * a `@neondatabase/serverless` Pool (on Workers: one per request, ended with `waitUntil`), or a
   * function that makes one on the first query: a request that never queries then opens none
   */
  pool: Pool | (() => Pool);
  /** listed by `/config` and addressed by `/databases/{db_id}/migrate`; default "default" */
  id?: string;
  /** Postgres schema; default `ai`, as agno */
  schema?: string;
  tables?: Partial<TableNames>;
  /**
   * Identifies the database across instances of this class in one isolate, so the schema
   * check runs once per isolate instead of once per request. Use the connection string.
   */
  cacheKey?: string;
}

/** One `getSessionWithRun` call, as the batch that answers it sees it. */
interface SessionRead {
  sessionId: string;
  runId: string;
  opts: GetSessionOptions;
}

/** Databases already seen at the current schema, per isolate: the check never goes backwards. */
const knownCurrent = new Set<string>();

/**
 * The Postgres adapter: agno 3.0's layout (runs as rows) over drizzle and the Neon serverless
 * driver. It also reads an agno 2.x database before migration, merging the legacy runs blob.
 *
 * @example
 * const db = new PostgresDb({ pool: new Pool({ connectionString: env.DATABASE_URL }) });
 * await db.upsertSession({ session_id: "s1", session_type: "agent", agent_id: "a" });
 * await db.upsertRun({ run_id: "r1", session_id: "s1", agent_id: "a", status: "COMPLETED", messages: [] });
 * const session = await db.getSession("s1"); // runs joined back in order
 */
export class PostgresDb implements Db {
  readonly id: string;
  readonly schema: string;
  readonly names: TableNames;
  private readonly pool: Pool | (() => Pool);
  private client: NeonDatabase | undefined;
  private readonly t: AgnoTables;
  private readonly cacheKey: string | undefined;
  private inspection: Promise<Inspection> | undefined;
  private readonly memoryTable: MemoryTable;
  private readonly runEvents: RunEventTable;
  private readonly toolResults: ToolResultTable;
  private readonly jobTable: JobTable;
  private jobStore: PostgresJobStore | undefined;
  private readonly runUpdates = new Coalescer<{ run: RunRecord; expectStatus: string[] }, RunRow | null>((_, writes) =>
    this.updateRuns(writes),
  );
  private readonly sessionReads = new Coalescer<SessionRead, { session: Session | null; run: RunRow | null }>(
    (_, reads) => this.readSessionsWithRuns(reads),
  );

  constructor(opts: PostgresDbOptions) {
    this.id = opts.id ?? "default";
    this.schema = opts.schema ?? "ai";
    this.names = { ...DEFAULT_TABLE_NAMES, ...opts.tables };
    this.t = agnoTables(this.schema, this.names);
    this.pool = opts.pool;
    this.exec = async (query) => (await this.orm.execute(query)).rows as Record<string, unknown>[];
    this.memoryTable = new MemoryTable(this.exec, sql.raw(qualified(this.schema, this.names.memories)));
    this.runEvents = new RunEventTable(this.exec, sql.raw(qualified(this.schema, this.names.runEvents)));
    this.toolResults = new ToolResultTable(this.exec, sql.raw(qualified(this.schema, this.names.toolResults)));
    this.jobTable = new JobTable(this.exec, sql.raw(qualified(this.schema, this.names.jobs)));
    this.cacheKey = opts.cacheKey && `${opts.cacheKey}|${this.schema}|${Object.values(this.names).join(",")}`;
  }

  private get orm(): NeonDatabase {
    return (this.client ??= drizzle({ client: typeof this.pool === "function" ? this.pool() : this.pool }));
  }

  // -- schema ------------------------------------------------------------------------------

  private readonly exec: Exec;

  private transaction<T>(fn: (exec: Exec) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => fn(execOn(tx)));
  }

  private inspect(): Promise<Inspection> {
    if (this.cacheKey && knownCurrent.has(this.cacheKey)) {
      // Known current in this isolate: no I/O. The legacy-column flag is not needed on this path
      // (nothing is pending); deletes and the cleanup look the column up themselves.
      this.inspection ??= Promise.resolve({
        state: "current",
        version: CURRENT_SCHEMA_VERSION,
        hasLegacyRunsColumn: false,
      });
    }
    if (!this.inspection) {
      const pending = ensureSchema(this.exec, (fn) => this.transaction(fn), this.schema, this.names).then((i) => {
        if (i.state === "current" && this.cacheKey) knownCurrent.add(this.cacheKey);
        return i;
      });
      // A failed check is not remembered: the next call asks the database again.
      pending.catch(() => {
        if (this.inspection === pending) this.inspection = undefined;
      });
      this.inspection = pending;
    }
    return this.inspection;
  }

  /** Whether agno 2.x's runs column is still there (the migrated data's backup). */
  private async legacyColumnExists(exec: Exec = this.exec): Promise<boolean> {
    const rows = await exec(sql`SELECT 1 FROM information_schema.columns WHERE table_schema = ${this.schema}
      AND table_name = ${this.names.sessions} AND column_name = 'runs'`);
    return rows.length > 0;
  }

  /** Forgets what this instance knew about the schema (after a migration or cleanup). */
  private forget(): void {
    this.inspection = undefined;
    if (this.cacheKey) knownCurrent.delete(this.cacheKey);
  }

  async init(): Promise<SchemaState> {
    return (await this.inspect()).state;
  }

  /** One round trip to the database (what `/health` asks): DatabaseUnavailableError when it cannot be reached. */
  async ping(): Promise<void> {
    await this.exec(sql`SELECT 1`);
  }

  async schemaVersion(): Promise<string | null> {
    return (await this.inspect()).version;
  }

  /** The legacy blob is read only while runs still live in it (before migration). */
  private async legacyPending(): Promise<boolean> {
    const i = await this.inspect();
    return i.state === "migration_required" && i.hasLegacyRunsColumn;
  }

  private get sessionsTable(): SQL {
    return sql.raw(qualified(this.schema, this.names.sessions));
  }

  private get runsTable(): SQL {
    return sql.raw(qualified(this.schema, this.names.runs));
  }

  // -- sessions ----------------------------------------------------------------------------

  async upsertSession(input: SessionRecord): Promise<Session> {
    return this.writeSession(input, "upsert");
  }

  async createSession(input: SessionRecord): Promise<Session> {
    return this.writeSession(input, "create");
  }

  private async writeSession(input: SessionRecord, mode: "upsert" | "create"): Promise<Session> {
    const session = validateSession(input);
    await this.inspect();
    const ts = now();
    // jsonb refuses NUL and lone surrogates: what a model or a tool put in the state is stored sanitised (see pgJson).
    const values = {
      session_id: session.session_id,
      session_type: session.session_type,
      agent_id: session.agent_id ?? null,
      team_id: session.team_id ?? null,
      workflow_id: session.workflow_id ?? null,
      user_id: session.user_id ?? null,
      session_data: pgSafe(session.session_data ?? null),
      agent_data: pgSafe(session.agent_data ?? null),
      team_data: pgSafe(session.team_data ?? null),
      workflow_data: pgSafe(session.workflow_data ?? null),
      metadata: pgSafe(session.metadata ?? null),
      summary: pgSafe(session.summary ?? null),
      created_at: session.created_at ?? ts,
      updated_at: ts,
    };
    const { created_at: _keep, session_id: _id, ...changes } = values;
    const s = this.t.sessions;
    // One statement needs no transaction; runs written with the session do.
    const write = <T>(fn: (tx: NeonDatabase) => Promise<T>) =>
      session.runs?.length ? this.orm.transaction((tx) => fn(tx as unknown as NeonDatabase)) : fn(this.orm);
    const row = await write(async (tx) => {
      const insert = tx.insert(s).values(values);
      const written = await (
        mode === "create"
          ? insert.onConflictDoNothing({ target: s.session_id })
          : insert.onConflictDoUpdate({
              target: s.session_id,
              set: changes,
              // A session never changes owner or type through an upsert.
              setWhere: sql`${s.user_id} IS NOT DISTINCT FROM ${values.user_id} AND ${s.session_type} = ${values.session_type}`,
            })
      ).returning();
      if (written.length === 0) {
        throw new ConflictError(
          mode === "create"
            ? `session ${session.session_id} already exists`
            : `session ${session.session_id} exists with another owner or session_type`,
        );
      }
      for (const run of session.runs ?? []) {
        await this.writeRun(execOn(tx), { ...run, session_id: session.session_id });
      }
      return written[0]!;
    });
    // The stored row, without reading its runs back: a session write stays O(1) in its run count.
    return new Session(toSessionRecord(row));
  }

  /**
   * Applies a run's changes to the session's stored state under the row's lock (SELECT … FOR
   * UPDATE, then the write, in one transaction): concurrent runs of one session each land their
   * changes on top of the others' instead of overwriting the whole state. Null when the session is gone.
   */
  async updateSessionState(sessionId: string, changes: StateChange[]): Promise<Record<string, unknown> | null> {
    validateId(sessionId, "session_id");
    await this.inspect();
    return this.transaction(async (tx) => {
      const [row] = await tx(
        sql`SELECT session_data FROM ${this.sessionsTable} WHERE session_id = ${sessionId} FOR UPDATE`,
      );
      if (!row) return null;
      const data = (typeof row.session_data === "string" ? JSON.parse(row.session_data) : row.session_data) as Record<
        string,
        unknown
      > | null;
      const stored = data?.session_state;
      const state = applyStateChanges(
        typeof stored === "object" && stored !== null && !Array.isArray(stored)
          ? (stored as Record<string, unknown>)
          : {},
        changes,
      );
      await tx(sql`UPDATE ${this.sessionsTable} SET session_data = jsonb_set(COALESCE(session_data, '{}'::jsonb), '{session_state}', ${JSON.stringify(state)}::jsonb),
        updated_at = ${now()} WHERE session_id = ${sessionId}`);
      return state;
    });
  }

  /** A session read's id and runs limit, checked before anything is read (a bad one is the caller's 4xx). */
  private checkSessionRead(sessionId: string, opts: GetSessionOptions): void {
    validateId(sessionId, "session_id");
    if (opts.runsLimit !== undefined && (!Number.isInteger(opts.runsLimit) || opts.runsLimit < 0)) {
      throw new ValidationError("runsLimit must be a whole number of at least 0", "runs_limit");
    }
  }

  private sessionFilter(sessionId: string, opts: GetSessionOptions): SQL {
    this.checkSessionRead(sessionId, opts);
    const user =
      opts.userId === undefined
        ? sql``
        : opts.includeShared
          ? sql` AND (user_id = ${opts.userId} OR user_id IS NULL)`
          : sql` AND user_id = ${opts.userId}`;
    return sql`session_id = ${sessionId}${user}`;
  }

  async getSession(sessionId: string, opts: GetSessionOptions = {}): Promise<Session | null> {
    const where = this.sessionFilter(sessionId, opts);
    const legacy = await this.legacyPending();
    const rows = await this.exec(
      sql`SELECT ${sql.raw(SESSION_COLUMNS)}${legacy ? sql`, runs AS legacy_runs` : sql``} FROM ${this.sessionsTable} WHERE ${where}`,
    );
    if (rows.length === 0) return null;
    const record = toSessionRecord(rows[0]!);
    if (opts.includeRuns !== false) {
      const runs = await this.sessionRuns([record], legacy ? [rows[0]!] : [], opts.runsLimit);
      record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    }
    return new Session(record);
  }

  /**
   * Runs of these sessions in run order. With `limit`, agno's `runs_limit`: the last N top-level
   * runs that can feed history (no member runs, none PAUSED/CANCELLED/ERROR/REGENERATED).
   */
  private async sessionRuns(
    sessions: SessionRecord[],
    legacyRows: Record<string, unknown>[],
    limit?: number,
  ): Promise<Map<string, RunRow[]>> {
    const ids = sessions.map((s) => s.session_id);
    const out = new Map<string, RunRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0 || limit === 0) return out;
    for (const row of await this.exec(
      sql`${this.sessionRunsQuery(idList(ids), limit)} ORDER BY session_id, run_index, created_at, run_id`,
    )) {
      out.get(String(row.session_id))!.push(toRunRow(row));
    }
    for (const row of legacyRows) {
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

  /** The runs of these sessions (a list of ids), all or, with `limit`, the last N that can feed history; unordered. */
  private sessionRunsQuery(idList: SQL, limit?: number): SQL {
    if (limit === undefined)
      return sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.runsTable} WHERE session_id IN (${idList})`;
    const skip = sql.join(
      NON_HISTORY_STATUSES.map((st) => sql`${st}`),
      sql`, `,
    );
    return sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM (SELECT *, row_number() OVER (PARTITION BY session_id ORDER BY run_index DESC, created_at DESC, run_id DESC) AS rn
      FROM ${this.runsTable} WHERE session_id IN (${idList}) AND parent_run_id IS NULL AND (status IS NULL OR status NOT IN (${skip}))) r
      WHERE rn <= ${limit}`;
  }

  async getSessionWithRun(
    sessionId: string,
    runId: string,
    opts: GetSessionOptions = {},
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    this.checkSessionRead(sessionId, opts); // here, so a bad call fails alone, not its batch
    validateId(runId, "run_id");
    // Before migration runs may still live in the session's blob: the two reads that know it.
    if (await this.legacyPending()) {
      const [session, run] = await Promise.all([this.getSession(sessionId, opts), this.getRun(runId)]);
      return { session, run };
    }
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
    const rows = await this.exec(sql`
      WITH x AS (SELECT * FROM jsonb_to_recordset(${x}::jsonb) AS x(ord int, sid varchar, rid varchar, uid varchar))
      ${withRuns ? sql`, h AS (${this.sessionRunsQuery(idList([...new Set(reads.map((r) => r.sessionId))]), limit)})` : sql``}
      SELECT x.ord, (SELECT row_to_json(s) FROM (SELECT ${sql.raw(SESSION_COLUMNS)} FROM ${this.sessionsTable} WHERE session_id = x.sid${user}) s) AS session,
        ${withRuns ? sql`(SELECT json_agg(h ORDER BY h.run_index, h.created_at, h.run_id) FROM h WHERE h.session_id = x.sid)` : sql`NULL`} AS runs,
        (SELECT row_to_json(r) FROM (SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.runsTable} WHERE run_id = x.rid) r) AS run
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
    const { limit, page, offset } = resolvePage(opts);
    const order = sortOrderOf(opts.sortOrder);
    const sortBy = opts.sortBy ?? "created_at";
    if (sortBy !== "created_at" && sortBy !== "updated_at")
      throw new ValidationError(`cannot sort sessions by ${String(sortBy)}`, "sort_by");
    // The blob is read only when runs are asked for and still live in it.
    const legacy = await this.legacyPending();
    const readBlob = legacy && opts.includeRuns === true;
    const s = this.t.sessions;
    const where = and(
      opts.sessionType ? eq(s.session_type, opts.sessionType) : undefined,
      opts.userId !== undefined
        ? opts.includeShared
          ? or(eq(s.user_id, opts.userId), isNull(s.user_id))
          : eq(s.user_id, opts.userId)
        : undefined,
      opts.componentId
        ? or(eq(s.agent_id, opts.componentId), eq(s.team_id, opts.componentId), eq(s.workflow_id, opts.componentId))
        : undefined,
      opts.sessionName
        ? ilike(sql`${s.session_data}->>'session_name'`, `%${opts.sessionName.replace(/[\\%_]/g, "\\$&")}%`)
        : undefined,
    );
    const sortColumn = sortBy === "updated_at" ? s.updated_at : s.created_at;
    const [rows, [total]] = await Promise.all([
      this.orm
        .select({ ...getTableColumns(s), ...(readBlob ? { legacy_runs: sql`runs`.as("legacy_runs") } : {}) })
        .from(s)
        .where(where)
        .orderBy(order === "asc" ? asc(sortColumn) : desc(sortColumn), asc(s.session_id))
        .limit(limit)
        .offset(offset),
      this.orm.select({ n: count() }).from(s).where(where),
    ]);
    const records = rows.map((r) => toSessionRecord(r as Record<string, unknown>));
    if (opts.includeRuns) {
      const runs = await this.sessionRuns(records, readBlob ? (rows as Record<string, unknown>[]) : []);
      for (const record of records) record.runs = (runs.get(record.session_id) ?? []).map((r) => r.run_data);
    }
    return pageOf(
      records.map((r) => new Session(r)),
      Number(total?.n ?? 0),
      { page, limit },
    );
  }

  async renameSession(sessionId: string, name: string, opts: { userId?: string } = {}): Promise<Session> {
    validateId(sessionId, "session_id");
    if (typeof name !== "string" || name.trim() === "" || name.length > 255) {
      throw new ValidationError("session_name must be a non-empty string of at most 255 characters", "session_name");
    }
    await this.inspect();
    const s = this.t.sessions;
    const updated = await this.orm
      .update(s)
      .set({
        session_data: sql`jsonb_set(COALESCE(${s.session_data}::jsonb, '{}'::jsonb), '{session_name}', to_jsonb(${name}::text))`,
        updated_at: now(),
      })
      .where(and(eq(s.session_id, sessionId), opts.userId !== undefined ? eq(s.user_id, opts.userId) : undefined))
      .returning({ id: s.session_id });
    if (updated.length === 0) throw new NotFoundError(`session ${sessionId} not found`);
    return (await this.getSession(sessionId))!;
  }

  async deleteSession(sessionId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.deleteSessions([validateId(sessionId, "session_id")], opts);
  }

  /** All or nothing: if any id is unknown (or another user's), nothing is deleted. */
  async deleteSessions(sessionIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(sessionIds, "session_ids"))];
    await this.inspect();
    const s = this.t.sessions;
    return this.orm.transaction(async (tx) => {
      const deleted = await tx
        .delete(s)
        .where(and(inArray(s.session_id, ids), opts.userId !== undefined ? eq(s.user_id, opts.userId) : undefined))
        .returning({ id: s.session_id });
      if (deleted.length !== ids.length) {
        // Thrown inside the transaction, so the deletes above roll back.
        const found = new Set(deleted.map((d) => d.id));
        throw new NotFoundError(`session(s) not found: ${ids.filter((id) => !found.has(id)).join(", ")}`);
      }
      return deleted.length;
    });
  }

  // -- runs --------------------------------------------------------------------------------

  async upsertRun(input: RunRecord, opts: UpsertRunOptions = {}): Promise<RunRow> {
    const run = validateRun(input);
    await this.inspect();
    // A run that moves from an expected status is nearly always there already (a running run
    // saving its progress, a cancel): one statement, no transaction. Anything else, and any miss,
    // takes the full path, which also names what was wrong.
    if (opts.expectStatus && !(await this.legacyPending())) {
      // Writes made in one turn (the runs a queue started together) go as one statement.
      const row = await this.runUpdates.run("", { run, expectStatus: opts.expectStatus });
      if (row) return row;
    }
    return this.transaction((tx) => this.writeRun(tx, run, opts.expectStatus));
  }

  /** Updates of runs in expected states: one statement for them all, or one each when a run is written twice. */
  private async updateRuns(writes: Array<{ run: RunRecord; expectStatus: string[] }>): Promise<Array<RunRow | null>> {
    const t = { sessions: this.sessionsTable, runs: this.runsTable };
    if (writes.length > 1 && new Set(writes.map((w) => w.run.run_id)).size === writes.length)
      return updateRunRows(this.exec, t, writes);
    const out: Array<RunRow | null> = [];
    for (const w of writes) out.push(await updateRunRow(this.exec, t, w.run, w.expectStatus)); // in order: a later write wins
    return out;
  }

  /** One run, one row (see run-writer.ts); a 2.x database's blob runs count in run_index. */
  private async writeRun(exec: Exec, run: RunRecord, expectStatus?: string[]): Promise<RunRow> {
    return writeRunRow(
      exec,
      { sessions: this.sessionsTable, runs: this.runsTable },
      run,
      await this.legacyPending(),
      expectStatus,
    );
  }

  async getRun(
    runId: string,
    opts: { userId?: string; sessionId?: string; includeShared?: boolean } = {},
  ): Promise<RunRow | null> {
    validateId(runId, "run_id");
    const legacy = await this.legacyPending();
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
    const [row] = await this.exec(sql`SELECT ${sql.raw(RUN_COLUMNS)} FROM ${this.runsTable} WHERE ${filters}`);
    if (row) return toRunRow(row);
    return legacy ? this.findLegacyRun(runId, opts) : null;
  }

  /** Before migration a run may still live only in its session's blob. */
  private async findLegacyRun(
    runId: string,
    opts: { userId?: string; sessionId?: string; includeShared?: boolean },
    exec: Exec = this.exec,
  ): Promise<RunRow | null> {
    const rows = await exec(sql`
      SELECT s.session_id, s.user_id, s.created_at, e.value AS run, e.ord - 1 AS idx
      FROM ${this.sessionsTable} s CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.runs::jsonb) = 'array' THEN s.runs::jsonb ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, ord)
      WHERE s.runs::jsonb @> jsonb_build_array(jsonb_build_object('run_id', ${runId}::text)) AND e.value->>'run_id' = ${runId}
      ${opts.userId !== undefined ? (opts.includeShared ? sql`AND (s.user_id = ${opts.userId} OR s.user_id IS NULL)` : sql`AND s.user_id = ${opts.userId}`) : sql``}
      ${opts.sessionId !== undefined ? sql`AND s.session_id = ${opts.sessionId}` : sql``}
      LIMIT 1`);
    const row = rows[0];
    if (!row) return null;
    return legacyRunRow(row.run, Number(row.idx), {
      session_id: String(row.session_id),
      user_id: (row.user_id as string | null) ?? null,
      created_at: Number(row.created_at),
    });
  }

  async getRuns(opts: GetRunsOptions = {}): Promise<Page<RunRow>> {
    const { limit, page, offset } = resolvePage(opts);
    const order = sortOrderOf(opts.sortOrder);
    const sortBy = opts.sortBy ?? (opts.sessionId ? "run_index" : "created_at");
    if (!["created_at", "updated_at", "run_index"].includes(sortBy))
      throw new ValidationError(`cannot sort runs by ${String(sortBy)}`, "sort_by");
    const statuses = opts.status === undefined ? [] : Array.isArray(opts.status) ? opts.status : [opts.status];
    if (await this.legacyPending()) {
      if (!opts.sessionId) {
        throw new MigrationRequiredError(
          "runs of this database still live in agno 2.x session blobs, so a run listing across sessions would be incomplete: " +
            "run `new MigrationManager(db).up()` or POST /databases/{db_id}/migrate",
        );
      }
      return this.legacySessionRunsPage(opts, statuses, { limit, page, offset }, order, sortBy);
    }
    const r = this.t.runs;
    const where = and(
      opts.sessionId ? eq(r.session_id, opts.sessionId) : undefined,
      opts.userId !== undefined
        ? opts.includeShared
          ? or(eq(r.user_id, opts.userId), isNull(r.user_id))
          : eq(r.user_id, opts.userId)
        : undefined,
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
    const column = r[sortBy as "created_at" | "updated_at" | "run_index"];
    const [rows, [total]] = await Promise.all([
      this.orm
        .select()
        .from(r)
        .where(where)
        .orderBy(order === "asc" ? asc(column) : desc(column), asc(r.run_id))
        .limit(limit)
        .offset(offset),
      this.orm.select({ n: count() }).from(r).where(where),
    ]);
    return pageOf(
      rows.map((x) => toRunRow(x)),
      Number(total?.n ?? 0),
      { page, limit },
    );
  }

  /** One session's runs before migration: merged in memory, then filtered and paged. */
  private async legacySessionRunsPage(
    opts: GetRunsOptions,
    statuses: string[],
    p: { limit: number; page: number; offset: number },
    order: "asc" | "desc",
    sortBy: string,
  ): Promise<Page<RunRow>> {
    const session = await this.getSession(opts.sessionId!, { includeRuns: false, userId: opts.userId });
    if (!session) return { data: [], page: p.page, limit: p.limit, total_count: 0, total_pages: 0 };
    const rows = await this.exec(
      sql`SELECT session_id, runs AS legacy_runs FROM ${this.sessionsTable} WHERE session_id = ${opts.sessionId!}`,
    );
    const all = (await this.sessionRuns([session.record], rows)).get(opts.sessionId!) ?? [];
    const key = sortBy as "created_at" | "updated_at" | "run_index";
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
    return pageOf(matching.slice(p.offset, p.offset + p.limit), matching.length, p);
  }

  async deleteRun(runId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.deleteRuns([validateId(runId, "run_id")], opts);
  }

  /** All or nothing: if any id is unknown (or another user's), nothing is deleted. */
  async deleteRuns(runIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(runIds, "run_ids"))];
    const legacy = await this.legacyPending();
    const r = this.t.runs;
    return this.orm.transaction(async (tx) => {
      // Every statement here goes through `tx`: a second connection would wait on this
      // transaction forever with a single-backend server such as PGlite.
      const txExec = execOn(tx);
      const deleted = await tx
        .delete(r)
        .where(and(inArray(r.run_id, ids), opts.userId !== undefined ? eq(r.user_id, opts.userId) : undefined))
        .returning({ id: r.run_id });
      if (deleted.length === ids.length) {
        if (await this.legacyColumnExists(txExec)) await this.scrubLegacyRuns(txExec, ids);
        return deleted.length;
      }
      // Thrown inside the transaction, so the deletes above roll back.
      const found = new Set(deleted.map((d) => d.id));
      const absent = ids.filter((id) => !found.has(id));
      for (const id of absent) {
        if (legacy && (await this.findLegacyRun(id, opts, txExec))) {
          throw new MigrationRequiredError(
            `run ${id} still lives in an agno 2.x session blob: migrate before deleting it`,
          );
        }
      }
      throw new NotFoundError(`run(s) not found: ${absent.join(", ")}`);
    });
  }

  /**
   * After migration the legacy column is only a backup, but a deleted run must not live on in
   * it: it would come back through a re-copy and hold up the cleanup. So deletes scrub it too.
   */
  private async scrubLegacyRuns(exec: Exec, runIds: string[]): Promise<void> {
    const ids = idList(runIds);
    await exec(sql`
      UPDATE ${this.sessionsTable} s SET runs = (
        SELECT COALESCE(jsonb_agg(e.v ORDER BY e.ord), '[]'::jsonb)
        FROM jsonb_array_elements(s.runs::jsonb) WITH ORDINALITY AS e(v, ord)
        WHERE COALESCE(e.v->>'run_id', '') NOT IN (${ids}))
      WHERE jsonb_typeof(s.runs::jsonb) = 'array'
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(s.runs::jsonb) AS x(v) WHERE x.v->>'run_id' IN (${ids}))`);
  }

  // -- durable jobs ------------------------------------------------------------------------

  /** The durable queue's storage in this database (same schema, same run writer). */
  get jobs(): JobStore & { expireExhaustedJobs(): Promise<JobRecord[]> } {
    return (this.jobStore ??= new PostgresJobStore({
      exec: this.exec,
      transaction: (fn) => this.transaction(fn),
      ready: () => this.inspect().then(() => undefined),
      table: this.jobTable,
      sessions: this.sessionsTable,
      runs: this.runsTable,
      legacyPending: () => this.legacyPending(),
    }));
  }

  // -- schedules ---------------------------------------------------------------------------

  private scheduleStore: PostgresScheduleStore | undefined;

  /** Cron schedules (SPEC SC1-SC2) in this database, and the statements of the cron tick that runs them. */
  get schedules(): PostgresScheduleStore {
    return (this.scheduleStore ??= new PostgresScheduleStore({
      exec: this.exec,
      ready: () => this.inspect().then(() => undefined),
      schedules: sql.raw(qualified(this.schema, this.names.schedules)),
      scheduleRuns: sql.raw(qualified(this.schema, this.names.scheduleRuns)),
      jobs: sql.raw(qualified(this.schema, this.names.jobs)),
      runs: this.runsTable,
    }));
  }

  // -- run event logs ----------------------------------------------------------------------

  async appendRunEvents(runId: string, firstIndex: number, events: object[]): Promise<void> {
    await this.inspect();
    return this.runEvents.append(runId, firstIndex, events);
  }

  async getRunEvents(runId: string, opts: { afterIndex: number; limit?: number }): Promise<StoredRunEvent[]> {
    await this.inspect();
    return this.runEvents.after(runId, opts.afterIndex, opts.limit);
  }

  async lastRunEventIndex(runId: string): Promise<number> {
    await this.inspect();
    return this.runEvents.last(runId);
  }

  async pruneRunEvents(createdBefore: number): Promise<number> {
    await this.inspect();
    return this.runEvents.prune(createdBefore);
  }

  // -- liveness of interactive runs --------------------------------------------------------

  private livenessTable: RunLivenessTable | undefined;

  private get liveness(): RunLivenessTable {
    return (this.livenessTable ??= new RunLivenessTable(this.exec, {
      runs: this.runsTable,
      jobs: sql.raw(qualified(this.schema, this.names.jobs)),
      runEvents: sql.raw(qualified(this.schema, this.names.runEvents)),
    }));
  }

  async heartbeatRun(runId: string): Promise<boolean> {
    await this.inspect();
    return this.liveness.heartbeat(runId);
  }

  async interruptStaleRuns(opts: InterruptOptions): Promise<InterruptedRun[]> {
    await this.inspect();
    return this.liveness.interrupt(opts);
  }

  // -- offloaded tool results -------------------------------------------------------------

  async insertToolResult(row: ToolResultRecord): Promise<void> {
    await this.inspect();
    return this.toolResults.insert(row);
  }

  async getToolResult(
    resultId: string,
    scope: { sessionId: string | null; userId: string | null },
  ): Promise<ToolResultRecord | null> {
    await this.inspect();
    return this.toolResults.get(resultId, scope);
  }

  async listExpiredToolResults(now: number, opts: { namespace: string; limit?: number }): Promise<ToolResultRecord[]> {
    await this.inspect();
    return this.toolResults.expired(now, opts.namespace, opts.limit);
  }

  async deleteToolResults(resultIds: string[]): Promise<number> {
    await this.inspect();
    return this.toolResults.delete(resultIds);
  }

  // -- user memories -----------------------------------------------------------------------

  async getUserMemories(userId: string, opts: { limit?: number } = {}): Promise<MemoryRecord[]> {
    await this.inspect();
    return this.memoryTable.list(userId, opts.limit);
  }

  async upsertUserMemory(memory: MemoryRecord): Promise<MemoryRecord> {
    await this.inspect();
    return this.memoryTable.upsert(memory);
  }

  async deleteUserMemory(memoryId: string, opts: { userId: string }): Promise<void> {
    await this.inspect();
    return this.memoryTable.delete(memoryId, opts.userId);
  }

  // -- migration ---------------------------------------------------------------------------

  async migrate(opts: MigrateOptions = {}): Promise<MigrationResult> {
    // A full check, never the per-isolate shortcut: a migration reports what the database holds now.
    this.forget();
    const before = await this.inspect();
    try {
      return await copyLegacyRuns(
        { exec: this.exec, transaction: (fn) => this.transaction(fn), schema: this.schema, names: this.names },
        before,
        opts,
      );
    } finally {
      this.forget();
    }
  }

  async cleanupLegacyRunsColumn(opts: { force: boolean }): Promise<void> {
    // A full check, never the per-isolate shortcut: the cleanup needs the column's real state.
    this.forget();
    const state = await this.inspect();
    try {
      await cleanupLegacyRuns(
        { exec: this.exec, transaction: (fn) => this.transaction(fn), schema: this.schema, names: this.names },
        state,
        opts,
      );
    } finally {
      this.forget();
    }
  }
}

/** Raw SQL on a connection or a transaction, rows only. */
function execOn(target: { execute(query: SQL): Promise<{ rows: unknown[] }> }): Exec {
  return async (query) => (await target.execute(query)).rows as Record<string, unknown>[];
}

// A database that cannot be reached is a DatabaseUnavailableError from every method, wherever it failed.
rethrowUnavailable(PostgresDb);
