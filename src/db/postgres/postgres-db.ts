import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { Pool } from "@neondatabase/serverless";
import { ConflictError, MigrationRequiredError, NotFoundError, ValidationError } from "../../errors.js";
import type {
  ApprovalDecision,
  ApprovalFilter,
  ApprovalRecord,
  Db,
  InterruptedRun,
  InterruptOptions,
  MemoryQuery,
  LearningRecord,
  LearningUsersOptions,
  LearningUserStats,
  LearningWrite,
  ListLearningsOptions,
  MigrateOptions,
  MigrationResult,
  StoredRunEvent,
  TimedOutReview,
  ToolResultRecord,
  UserMemoryStats,
  UpsertRunOptions,
} from "../port.js";
import { Session } from "../session.js";
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
import { LegacyReader } from "./legacy-reader.js";
import { scrubLegacyRuns } from "./legacy.js";
import { LearningTable } from "./learnings.js";
import { ApprovalTable } from "./approvals.js";
import { MemoryTable } from "./memories.js";
import { KnowledgeContentTable } from "./knowledge-contents.js";
import type { ContentPage, ContentRecord, ListContentsOptions } from "../../knowledge/content.js";
import { RunEventTable } from "./run-events.js";
import { RunLivenessTable } from "./run-liveness.js";
import {
  insertSessionWithRun,
  runTables,
  updateRunRow,
  updateRunRows,
  writeRunRow,
  type RunTables,
} from "./run-writer.js";
import { ToolResultTable } from "./tool-results.js";
import { JobTable } from "./jobs.js";
import { PostgresJobStore } from "./job-store.js";
import { PostgresScheduleStore } from "./schedules.js";
import { PostgresAuditLog } from "./audit-log.js";
import { PostgresTraceStore } from "./traces.js";
import { PostgresMetricsBuckets } from "./metrics-buckets.js";
import { PostgresEvalRunStore } from "./eval-store.js";
import { PostgresServiceAccountStore } from "./service-accounts.js";
import { PostgresComponentStore } from "./components.js";
import type { JobRecord, JobStore } from "../../queue/types.js";
import { cleanupLegacyRuns, copyLegacyRuns } from "./migrate.js";
import { DEFAULT_TABLE_NAMES, qualified, type TableNames } from "./names.js";
import { toSessionRecord } from "./rows.js";
import {
  checkSessionRead,
  PostgresReader,
  runsQuery,
  sessionsQuery,
  type PostgresReads,
  type ReaderDeps,
} from "./reader.js";
import { ensureSchema, type Exec, type Inspection } from "./schema-state.js";
import { runStatement, type StatementTarget } from "./prepared.js";
import { applyStateChanges, type StateChange } from "../state-changes.js";
import { Coalescer } from "./coalescer.js";
import { agnoTables, type AgnoTables } from "./tables.js";
import { pgSafe } from "../../json-limits.js";
import { sessionColumns } from "../session-columns.js";
import { rethrowUnavailable } from "./unavailable.js";
import { nowSeconds as now } from "../../time.js";

/** Raw SQL on one database: see PostgresDb.sqlExecutor(). */
export interface SqlExecutor {
  exec: Exec;
  transaction<T>(fn: (exec: Exec) => Promise<T>): Promise<T>;
  /** the Postgres schema the database's tables live in */
  schema: string;
  /** the database's identity across instances in one isolate (PostgresDbOptions.cacheKey) */
  cacheKey?: string;
}

export interface PostgresDbOptions {
  /**
   * a `@neondatabase/serverless` Pool (on Workers: one per request, ended with `waitUntil`), or a
   * function that makes one on the first query: a request that never queries then opens none
   */
  pool: Pool | (() => Pool);
  /**
   * How drizzle talks to the pool: the Neon serverless driver by default (WebSocket or HTTP).
   * `nodePostgresDb` (`agno-edge/pg`) sets node-postgres's instead, for a `pg` Pool over TCP.
   */
  driver?: PostgresDriver;
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
  /**
   * Prepares the statements every run sends (its opening and final writes) once per connection,
   * so the server skips parsing and planning them. Worth it on a pool whose connections live
   * long (`nodePostgresDb` turns it on); on Workers each request opens its own connection, so it
   * is off by default. Behind a pooler, it needs one that keeps prepared statements per client
   * (PgBouncer 1.21 and later with `max_prepared_statements`, as Neon's).
   */
  preparedStatements?: boolean;
}

/**
 * Makes drizzle's database over a pool. Drizzle's Postgres drivers share one API, so the Neon
 * driver's type stands for each of them.
 */
export type PostgresDriver = (client: never) => NeonDatabase;

const neonDriver: PostgresDriver = (client: Pool) => drizzle({ client });

/** Databases already seen at the current schema, per isolate: the check never goes backwards. */
const knownCurrent = new Set<string>();

/**
 * The Postgres adapter: agno 3.0's layout (runs as rows) over drizzle and the Neon serverless
 * driver. Before migration an agno 2.x database is read through LegacyReader (legacy-reader.ts),
 * which merges each session's legacy runs blob; after it, through the plain PostgresReader.
 *
 * @example
 * const db = new PostgresDb({ pool: new Pool({ connectionString: env.DATABASE_URL }) });
 * await db.upsertSession({ session_id: "s1", session_type: "agent", agent_id: "a" });
 * await db.upsertRun({ run_id: "r1", session_id: "s1", agent_id: "a", status: "COMPLETED", messages: [] });
 * const session = await db.getSession("s1"); // runs joined back in order
 */
/** The run-update batch whose writes defer their flush (UpsertRunOptions.deferFlush). */
const DEFERRED = "deferred";

export class PostgresDb implements Db {
  readonly id: string;
  readonly schema: string;
  readonly names: TableNames;
  private readonly pool: Pool | (() => Pool);
  private readonly driver: PostgresDriver;
  private client: NeonDatabase | undefined;
  private readonly t: AgnoTables;
  private readonly cacheKey: string | undefined;
  private inspection: Promise<Inspection> | undefined;
  private readonly memoryTable: MemoryTable;
  private readonly learningTable: LearningTable;
  private readonly approvalTable: ApprovalTable;
  private readonly knowledgeTable: KnowledgeContentTable;
  private readonly runEvents: RunEventTable;
  private readonly toolResults: ToolResultTable;
  private readonly jobTable: JobTable;
  private jobStore: PostgresJobStore | undefined;
  /** keyed by whether the writes defer their flush: a batch commits one way */
  private readonly runUpdates = new Coalescer<{ run: RunRecord; expectStatus: string[] }, RunRow | null>(
    (key, writes) => this.updateRuns(writes, key === DEFERRED),
  );
  private readonly readerDeps: ReaderDeps;
  /** what a run's writes address (their statement templates are the same for every instance on these tables) */
  private readonly runTables: RunTables;
  /** agno 3.0's layout, read plainly */
  private readonly reader: PostgresReader;
  /** the same reads with agno 2.x's run blobs merged in, made the first time a database needs it */
  private legacyReader: LegacyReader | undefined;

  constructor(opts: PostgresDbOptions) {
    this.id = opts.id ?? "default";
    this.schema = opts.schema ?? "ai";
    this.names = { ...DEFAULT_TABLE_NAMES, ...opts.tables };
    this.t = agnoTables(this.schema, this.names);
    this.pool = opts.pool;
    this.driver = opts.driver ?? neonDriver;
    this.prepared = opts.preparedStatements ?? false;
    this.exec = (query, name, values) => runStatement(this.orm, query, this.prepared ? name : undefined, values);
    this.memoryTable = new MemoryTable(this.exec, sql.raw(qualified(this.schema, this.names.memories)), (fn) =>
      this.transaction(fn),
    );
    this.learningTable = new LearningTable(this.exec, sql.raw(qualified(this.schema, this.names.learnings)));
    this.approvalTable = new ApprovalTable(
      this.exec,
      sql.raw(qualified(this.schema, this.names.approvals)),
      sql.raw(qualified(this.schema, this.names.runs)),
    );
    this.knowledgeTable = new KnowledgeContentTable(this.exec, sql.raw(qualified(this.schema, this.names.knowledge)));
    this.runEvents = new RunEventTable(this.exec, sql.raw(qualified(this.schema, this.names.runEvents)));
    this.toolResults = new ToolResultTable(this.exec, sql.raw(qualified(this.schema, this.names.toolResults)));
    this.jobTable = new JobTable(this.exec, sql.raw(qualified(this.schema, this.names.jobs)));
    this.cacheKey = opts.cacheKey && `${opts.cacheKey}|${this.schema}|${Object.values(this.names).join(",")}`;
    this.readerDeps = {
      exec: this.exec,
      orm: () => this.orm,
      t: this.t,
      sessions: this.sessionsTable,
      runs: this.runsTable,
    };
    this.reader = new PostgresReader(this.readerDeps);
    this.runTables = runTables(qualified(this.schema, this.names.sessions), qualified(this.schema, this.names.runs));
  }

  private get orm(): NeonDatabase {
    return (this.client ??= this.driver((typeof this.pool === "function" ? this.pool() : this.pool) as never));
  }

  // -- schema ------------------------------------------------------------------------------

  private readonly exec: Exec;
  private readonly prepared: boolean;

  private transaction<T>(fn: (exec: Exec) => Promise<T>): Promise<T> {
    return this.orm.transaction((tx) => fn(execOn(tx, this.prepared)));
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
    const values = sessionColumns(session, ts, pgSafe);
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
   * A new session with its first run's first write, in one statement (see insertSessionWithRun):
   * a run started into a session of its own costs one round trip before its end instead of two.
   * Before migration (runs still in agno 2.x blobs) the two writes go apart.
   */
  async createSessionWithRun(
    input: SessionRecord,
    runInput: RunRecord,
    opts: Pick<UpsertRunOptions, "deferFlush"> = {},
  ): Promise<RunRow | null> {
    const session = validateSession(input);
    const run = validateRun({ ...runInput, session_id: session.session_id });
    if (session.runs?.length) throw new ValidationError("a session created with its first run holds no runs", "runs");
    await this.inspect();
    if (await this.legacyPending()) {
      await this.createSession(session);
      return null;
    }
    const { sessionWritten, row } = await insertSessionWithRun(
      this.exec,
      this.runTables,
      sessionColumns(session, now(), (value) => value),
      run,
      opts.deferFlush,
    );
    if (!sessionWritten) throw new ConflictError(`session ${session.session_id} already exists`);
    return row;
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

  /** The reads of the layout the database holds now: agno 2.x's run blobs are merged in only before migration. */
  private async reads(): Promise<PostgresReads> {
    return (await this.legacyPending())
      ? (this.legacyReader ??= new LegacyReader(this.reader, this.readerDeps))
      : this.reader;
  }

  // Each read checks its arguments before the layout is known, so a bad one fails without a round trip.

  async getSession(sessionId: string, opts: GetSessionOptions = {}): Promise<Session | null> {
    checkSessionRead(sessionId, opts);
    return (await this.reads()).getSession(sessionId, opts);
  }

  async getSessionWithRun(
    sessionId: string,
    runId: string,
    opts: GetSessionOptions = {},
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    checkSessionRead(sessionId, opts);
    validateId(runId, "run_id");
    return (await this.reads()).getSessionWithRun(sessionId, runId, opts);
  }

  async getSessions(opts: GetSessionsOptions = {}): Promise<Page<Session>> {
    sessionsQuery(opts);
    return (await this.reads()).getSessions(opts);
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

  async setSessionSummary(
    sessionId: string,
    summary: Record<string, unknown>,
    opts: { userId?: string } = {},
  ): Promise<void> {
    validateId(sessionId, "session_id");
    await this.inspect();
    const s = this.t.sessions;
    const updated = await this.orm
      .update(s)
      .set({ summary: pgSafe(summary) as Record<string, unknown>, updated_at: now() })
      .where(and(eq(s.session_id, sessionId), opts.userId !== undefined ? eq(s.user_id, opts.userId) : undefined))
      .returning({ id: s.session_id });
    if (updated.length === 0) throw new NotFoundError(`session ${sessionId} not found`);
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
    // A run that moves from an expected status is there already (a running run saving its
    // progress, a cancel) or is starting (not stored yet): one statement, no transaction. Anything
    // else, and any miss, takes the full path, which also names what was wrong.
    if (opts.expectStatus && !(await this.legacyPending())) {
      // Writes made in one turn (the runs a queue started together) go as one statement.
      const row = await this.runUpdates.run(opts.deferFlush ? DEFERRED : "", { run, expectStatus: opts.expectStatus });
      if (row) return row;
    }
    return this.transaction((tx) => this.writeRun(tx, run, opts.expectStatus));
  }

  /** Updates of runs in expected states: one statement for them all, or one each when a run is written twice. */
  private async updateRuns(
    writes: Array<{ run: RunRecord; expectStatus: string[] }>,
    deferFlush: boolean,
  ): Promise<Array<RunRow | null>> {
    const t = this.runTables;
    if (writes.length > 1 && new Set(writes.map((w) => w.run.run_id)).size === writes.length)
      return updateRunRows(this.exec, t, writes, deferFlush);
    const out: Array<RunRow | null> = [];
    // in order: a later write wins
    for (const w of writes) out.push(await updateRunRow(this.exec, t, w.run, w.expectStatus, deferFlush));
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
    return (await this.reads()).getRun(runId, opts);
  }

  async getRuns(opts: GetRunsOptions = {}): Promise<Page<RunRow>> {
    runsQuery(opts);
    return (await this.reads()).getRuns(opts);
  }

  async deleteRun(runId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.deleteRuns([validateId(runId, "run_id")], opts);
  }

  /** All or nothing: if any id is unknown (or another user's), nothing is deleted. */
  async deleteRuns(runIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(runIds, "run_ids"))];
    const reads = await this.reads();
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
        if (await this.legacyColumnExists(txExec)) await scrubLegacyRuns(txExec, this.sessionsTable, ids);
        return deleted.length;
      }
      // Thrown inside the transaction, so the deletes above roll back.
      const found = new Set(deleted.map((d) => d.id));
      const absent = ids.filter((id) => !found.has(id));
      for (const id of absent) {
        if (await reads.runOutsideTable(id, opts, txExec)) {
          throw new MigrationRequiredError(
            `run ${id} still lives in an agno 2.x session blob: migrate before deleting it`,
          );
        }
      }
      throw new NotFoundError(`run(s) not found: ${absent.join(", ")}`);
    });
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

  // -- service accounts and the audit trail ------------------------------------------------

  private auditStore: PostgresAuditLog | undefined;
  private serviceAccountStore: PostgresServiceAccountStore | undefined;

  /** The audit trail of writes to configuration resources (`agno_audit_log`). */
  get audit(): PostgresAuditLog {
    return (this.auditStore ??= new PostgresAuditLog({
      exec: this.exec,
      ready: () => this.inspect().then(() => undefined),
      auditLog: sql.raw(qualified(this.schema, this.names.auditLog)),
    }));
  }

  /** Service accounts (`agno_service_accounts`): machine principals and the hashes of their keys. */
  get serviceAccounts(): PostgresServiceAccountStore {
    return (this.serviceAccountStore ??= new PostgresServiceAccountStore({
      exec: this.exec,
      ready: () => this.inspect().then(() => undefined),
      serviceAccounts: sql.raw(qualified(this.schema, this.names.serviceAccounts)),
      auditLog: sql.raw(qualified(this.schema, this.names.auditLog)),
    }));
  }

  // -- traces ------------------------------------------------------------------------------

  private traceStore: PostgresTraceStore | undefined;

  /** Traces and their spans (`agno_traces`, `agno_spans`): what the tracer writes and the trace routes read. */
  get traces(): PostgresTraceStore {
    return (this.traceStore ??= new PostgresTraceStore({
      exec: this.exec,
      ready: () => this.inspect().then(() => undefined),
      traces: sql.raw(qualified(this.schema, this.names.traces)),
      spans: sql.raw(qualified(this.schema, this.names.spans)),
    }));
  }

  // -- metrics -----------------------------------------------------------------------------

  private metricsStore: PostgresMetricsBuckets | undefined;

  /** agno's metrics buckets (`agno_metrics`), computed from the sessions and runs tables. */
  get metrics(): PostgresMetricsBuckets {
    const metricsName = qualified(this.schema, this.names.metrics);
    return (this.metricsStore ??= new PostgresMetricsBuckets({
      exec: this.exec,
      transaction: (fn) => this.transaction(fn),
      ready: () => this.inspect().then(() => undefined),
      metrics: sql.raw(metricsName),
      metricsName,
      sessions: this.sessionsTable,
      runs: this.runsTable,
    }));
  }

  // -- eval runs ---------------------------------------------------------------------------

  private evalStore: PostgresEvalRunStore | undefined;

  /** Eval runs (`agno_eval_runs`), one row per run of an eval. */
  get evals(): PostgresEvalRunStore {
    return (this.evalStore ??= new PostgresEvalRunStore({
      exec: this.exec,
      ready: () => this.inspect().then(() => undefined),
      evals: sql.raw(qualified(this.schema, this.names.evals)),
    }));
  }

  // -- components --------------------------------------------------------------------------

  private componentStore: PostgresComponentStore | undefined;

  /** agno's component catalog (agents, teams and workflows as versioned data) in this database. */
  get components(): PostgresComponentStore {
    return (this.componentStore ??= new PostgresComponentStore({
      exec: this.exec,
      transaction: (fn) => this.transaction(fn),
      ready: () => this.inspect().then(() => undefined),
      components: sql.raw(qualified(this.schema, this.names.components)),
      configs: sql.raw(qualified(this.schema, this.names.componentConfigs)),
      links: sql.raw(qualified(this.schema, this.names.componentLinks)),
      schedules: sql.raw(qualified(this.schema, this.names.schedules)),
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

  async listTimedOutReviews(opts: { now: string; limit?: number }): Promise<TimedOutReview[]> {
    await this.inspect();
    return this.liveness.timedOutReviews(opts);
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

  async getUserMemory(memoryId: string, opts: { userId?: string } = {}): Promise<MemoryRecord | null> {
    await this.inspect();
    return this.memoryTable.get(memoryId, opts.userId);
  }

  async listUserMemories(query: MemoryQuery = {}): Promise<Page<MemoryRecord>> {
    await this.inspect();
    return this.memoryTable.query(query);
  }

  async deleteUserMemory(memoryId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.inspect();
    return this.memoryTable.delete(memoryId, opts.userId);
  }

  async deleteUserMemories(memoryIds: string[], opts: { userId?: string } = {}): Promise<number> {
    await this.inspect();
    return this.memoryTable.deleteMany(memoryIds, opts.userId);
  }

  async replaceUserMemories(
    userId: string,
    replacing: readonly string[] | "all",
    memories: MemoryRecord[],
  ): Promise<MemoryRecord[]> {
    await this.inspect();
    return this.memoryTable.replace(userId, replacing, memories);
  }

  async getMemoryTopics(opts: { userId?: string } = {}): Promise<string[]> {
    await this.inspect();
    return this.memoryTable.topics(opts.userId);
  }

  async getUserMemoryStats(
    opts: { userId?: string; limit?: number; page?: number } = {},
  ): Promise<Page<UserMemoryStats>> {
    await this.inspect();
    return this.memoryTable.stats(opts);
  }

  // -- approvals ---------------------------------------------------------------------------

  async getApproval(id: string, opts: { userId?: string } = {}): Promise<ApprovalRecord | null> {
    await this.inspect();
    return this.approvalTable.get(id, opts);
  }

  async getApprovals(filter: ApprovalFilter & { limit?: number; page?: number }): Promise<Page<ApprovalRecord>> {
    await this.inspect();
    return this.approvalTable.list(filter);
  }

  async countPendingApprovals(opts: { userId?: string } = {}): Promise<number> {
    await this.inspect();
    return this.approvalTable.countPending(opts);
  }

  async resolveApproval(id: string, decision: ApprovalDecision): Promise<ApprovalRecord | null> {
    await this.inspect();
    return this.approvalTable.resolve(id, decision);
  }

  async reopenApproval(id: string, resolvedAt: number): Promise<boolean> {
    await this.inspect();
    return this.approvalTable.reopen(id, resolvedAt);
  }

  async deleteApproval(id: string): Promise<boolean> {
    await this.inspect();
    return this.approvalTable.delete(id);
  }

  async expireApprovals(now: number): Promise<number> {
    await this.inspect();
    return this.approvalTable.expire(now);
  }

  // -- learnings ---------------------------------------------------------------------------

  async upsertLearning(record: LearningWrite): Promise<LearningRecord> {
    await this.inspect();
    return this.learningTable.upsert(record);
  }

  async createLearning(record: LearningWrite): Promise<LearningRecord> {
    await this.inspect();
    return this.learningTable.create(record);
  }

  async getLearning(learningId: string): Promise<LearningRecord | null> {
    await this.inspect();
    return this.learningTable.get(learningId);
  }

  async updateLearning(
    learningId: string,
    changes: { content: Record<string, unknown>; metadata: Record<string, unknown> | null },
  ): Promise<LearningRecord | null> {
    await this.inspect();
    return this.learningTable.update(learningId, changes);
  }

  async deleteLearning(learningId: string): Promise<boolean> {
    await this.inspect();
    return this.learningTable.delete(learningId);
  }

  async deleteUserLearnings(userId: string, opts: { learningType?: string } = {}): Promise<number> {
    await this.inspect();
    return this.learningTable.deleteForUser(userId, opts.learningType);
  }

  async listLearnings(opts: ListLearningsOptions = {}): Promise<Page<LearningRecord>> {
    await this.inspect();
    return this.learningTable.list(opts);
  }

  async learningUsers(opts: LearningUsersOptions = {}): Promise<Page<LearningUserStats>> {
    await this.inspect();
    return this.learningTable.users(opts);
  }

  // -- knowledge contents -----------------------------------------------------------------

  async upsertKnowledgeContent(row: ContentRecord): Promise<ContentRecord> {
    await this.inspect();
    return this.knowledgeTable.upsert(row);
  }

  async getKnowledgeContent(id: string, opts: { userId?: string | null } = {}): Promise<ContentRecord | null> {
    await this.inspect();
    return this.knowledgeTable.get(id, opts.userId);
  }

  async listKnowledgeContents(opts: ListContentsOptions): Promise<ContentPage> {
    await this.inspect();
    return this.knowledgeTable.list(opts);
  }

  async deleteKnowledgeContent(id: string, opts: { userId?: string | null } = {}): Promise<void> {
    await this.inspect();
    return this.knowledgeTable.delete(id, opts.userId);
  }

  async deleteKnowledgeContents(opts: { linkedTo?: string; userId?: string | null }): Promise<number> {
    await this.inspect();
    return this.knowledgeTable.deleteMany(opts);
  }

  /**
   * Raw SQL on this database's connection, for stores that keep tables of their own beside
   * agno's (PgVector): statements, and a transaction whose statements share one connection.
   */
  sqlExecutor(): SqlExecutor {
    return {
      exec: this.exec,
      transaction: (fn) => this.transaction(fn),
      schema: this.schema,
      ...(this.cacheKey ? { cacheKey: this.cacheKey } : {}),
    };
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
function execOn(target: StatementTarget, prepared = false): Exec {
  return (query, name, values) => runStatement(target, query, prepared ? name : undefined, values);
}

// A database that cannot be reached is a DatabaseUnavailableError from every method, wherever it failed.
rethrowUnavailable(PostgresDb);
