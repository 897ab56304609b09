import type { ScheduleStore, ScheduleTicks } from "../scheduler/types.js";
import type { Session } from "./session.js";
import type { StateChange } from "./state-changes.js";
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
} from "./types.js";

export interface MigrationProgress {
  sessionsDone: number;
  sessionsTotal: number;
  runsCopied: number;
}

export interface UpsertRunOptions {
  /**
   * compare-and-set: update an existing run only while its stored status is one of these,
   * else StatusConflictError (a run cancelled elsewhere is never overwritten as COMPLETED)
   */
  expectStatus?: string[];
}

export interface MigrateOptions {
  /** sessions per transaction */
  batchSize?: number;
  onProgress?: (p: MigrationProgress) => void;
  /** stops between batches; what was committed stays, and a later `up()` resumes */
  signal?: AbortSignal;
}

export interface MigrationResult {
  fromVersion: string | null;
  toVersion: string;
  sessionsScanned: number;
  runsCopied: number;
}

/**
 * The storage port. Domain code (agents, teams, the runtime) talks to this, never to an
 * adapter, so the SDK runs against any backend that passes the contract suite.
 */
export interface Db {
  /** a stable id, listed by `GET /config` and used by `POST /databases/{db_id}/migrate` */
  readonly id: string;

  /** checks (and on a fresh database creates) the tables; throws SchemaMismatchError */
  init(): Promise<SchemaState>;
  schemaVersion(): Promise<string | null>;
  /** one round trip to the database, for `/health`; rejects (DatabaseUnavailableError) when it cannot be reached */
  ping?(): Promise<void>;

  /** writes the session row (and any `runs` given, one row each); returns the row without its runs */
  upsertSession(session: SessionRecord): Promise<Session>;
  /** inserts a new session; ConflictError when the id is taken; returns the row without runs */
  createSession(session: SessionRecord): Promise<Session>;
  getSession(sessionId: string, opts?: GetSessionOptions): Promise<Session | null>;
  /** applies a run's changes (`stateChanges`) to the stored session state, atomically with other writers; null when the session is gone */
  updateSessionState(sessionId: string, changes: StateChange[]): Promise<Record<string, unknown> | null>;
  /** `getSession` and `getRun(runId)` in one read: what a run with a chosen id needs before it starts */
  getSessionWithRun(sessionId: string, runId: string, opts?: GetSessionOptions): Promise<{ session: Session | null; run: RunRow | null }>;
  getSessions(opts?: GetSessionsOptions): Promise<Page<Session>>;
  renameSession(sessionId: string, name: string, opts?: { userId?: string }): Promise<Session>;
  deleteSession(sessionId: string, opts?: { userId?: string }): Promise<void>;
  deleteSessions(sessionIds: string[], opts?: { userId?: string }): Promise<number>;

  /** writes this run's row only; a new run gets the next `run_index` of its session */
  upsertRun(run: RunRecord, opts?: UpsertRunOptions): Promise<RunRow>;
  getRun(runId: string, opts?: { userId?: string; sessionId?: string; includeShared?: boolean }): Promise<RunRow | null>;
  getRuns(opts?: GetRunsOptions): Promise<Page<RunRow>>;
  deleteRun(runId: string, opts?: { userId?: string }): Promise<void>;
  deleteRuns(runIds: string[], opts?: { userId?: string }): Promise<number>;

  /** a user's memories, newest first */
  getUserMemories(userId: string, opts?: { limit?: number }): Promise<MemoryRecord[]>;
  upsertUserMemory(memory: MemoryRecord): Promise<MemoryRecord>;
  /** NotFoundError when the memory is unknown or another user's */
  deleteUserMemory(memoryId: string, opts: { userId: string }): Promise<void>;

  /** cron schedules (SPEC SC1-SC2), each call scoped to its caller's user, and the cron tick's statements */
  readonly schedules: ScheduleStore & ScheduleTicks;

  /**
   * Stores a run's events at consecutive positions from `firstIndex` (a streamed run's log, so a
   * client can re-attach from any isolate). ConflictError when a position is already taken.
   */
  appendRunEvents(runId: string, firstIndex: number, events: object[]): Promise<void>;
  /** the run's events after position `afterIndex`, in order, at most `limit` (default 500) */
  getRunEvents(runId: string, opts: { afterIndex: number; limit?: number }): Promise<StoredRunEvent[]>;
  /** the last stored position of the run's events, -1 when it has none */
  lastRunEventIndex(runId: string): Promise<number>;
  /** deletes event logs stored before `createdBefore` (epoch seconds); returns how many events */
  pruneRunEvents(createdBefore: number): Promise<number>;

  /** a RUNNING run's heartbeat (its row's `updated_at` becomes now); false once it is no longer RUNNING */
  heartbeatRun(runId: string): Promise<boolean>;
  /**
   * RUNNING runs whose heartbeat stopped before `staleBefore` and whose job (if queued) is no
   * longer PENDING or RUNNING become ERROR (`interrupted`), each with a RunError closing its event
   * log; one statement, at most `limit` runs (default 100). Returns the runs it ended.
   */
  interruptStaleRuns(opts: InterruptOptions): Promise<InterruptedRun[]>;

  /** indexes an offloaded tool result (its object is already written); ConflictError when the id is taken */
  insertToolResult(row: ToolResultRecord): Promise<void>;
  /**
   * One offloaded result, only within its owner's scope: the same session and the same user
   * (both may be null, and null matches only null), so ids never leak across users or sessions.
   */
  getToolResult(resultId: string, scope: { sessionId: string | null; userId: string | null }): Promise<ToolResultRecord | null>;
  /** results of one object store (`namespace`) whose `expires_at` is before `now`, oldest first, at most `limit` */
  listExpiredToolResults(now: number, opts: { namespace: string; limit?: number }): Promise<ToolResultRecord[]>;
  /** deletes these rows (objects are the caller's); returns how many existed */
  deleteToolResults(resultIds: string[]): Promise<number>;

  /** copies legacy (2.x) session blobs into run rows; see MigrationManager */
  migrate(opts?: MigrateOptions): Promise<MigrationResult>;
  /** drops the legacy runs column; refuses without `force: true` or before migration */
  cleanupLegacyRunsColumn(opts: { force: boolean }): Promise<void>;
}

export interface InterruptOptions {
  /** epoch seconds: a heartbeat older than this is stale */
  staleBefore: number;
  /** the error's text and type, as the run's `error` and its RunError event carry them */
  message: string;
  errorType: string;
  limit?: number;
  /** only this run (a re-attaching client that found it stale) */
  runId?: string;
}

export interface InterruptedRun {
  run_id: string;
  session_id: string;
}

/** One event of a run's stored stream: its position and the event as it was sent. */
export interface StoredRunEvent {
  index: number;
  event: Record<string, unknown> & { event: string };
}

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
