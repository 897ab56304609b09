import { CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { ConfirmationRequiredError } from "../../errors.js";
import type {
  ApprovalDecision,
  ApprovalFilter,
  ApprovalRecord,
  InterruptedRun,
  LearningRecord,
  LearningUsersOptions,
  LearningUserStats,
  LearningWrite,
  ListLearningsOptions,
  InterruptOptions,
  MigrationResult,
  QueueDb,
  StoredRunEvent,
  TimedOutReview,
  ToolResultRecord,
  UpsertRunOptions,
} from "../port.js";
import type { MemoryQuery, UserMemoryStats } from "../ports/user-memory-store.js";
import type { Session } from "../session.js";
import type { StateChange } from "../state-changes.js";
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
import type { ContentPage, ContentRecord, ListContentsOptions } from "../../knowledge/content.js";
import { MemoryAuditLog } from "./audit-log.js";
import { MemoryTraceStore } from "./trace-store.js";
import { MemoryMetricsBuckets } from "./metrics-buckets.js";
import { MemoryEvalRunStore } from "./eval-store.js";
import { MemoryJobStore } from "./job-store.js";
import { MemoryApprovalStore } from "./approval-store.js";
import { MemoryLearningStore } from "./learning-store.js";
import { MemoryComponentStore } from "./component-store.js";
import { MemoryKnowledgeContentStore } from "./knowledge-content-store.js";
import { MemoryRunEventStore } from "./run-event-store.js";
import { MemoryRunStore } from "./run-store.js";
import { MemoryScheduleStore } from "./schedule-store.js";
import { MemoryServiceAccountStore } from "./service-account-store.js";
import { MemorySessionStore } from "./session-store.js";
import { MemoryTables } from "./tables.js";
import { MemoryToolResultStore } from "./tool-result-store.js";
import { MemoryUserMemoryStore } from "./user-memory-store.js";

export interface MemoryDbOptions {
  /** listed by `/config`; default "default", as PostgresDb's */
  id?: string;
  /** the rows to use (default: new, empty ones); a test may share or inspect them */
  tables?: MemoryTables;
}

/**
 * The storage port in memory, for unit tests of agents, teams, workflows, the durable queue and
 * the scheduler without a database. It keeps the Postgres adapter's rules (it passes the same
 * contract suite): the same validation and limits, ids and run_index, user scoping and shared
 * rows, compare-and-set on a run's status, merged session state, event logs and the stale-run
 * sweep, jobs with leases, fair-share claims and per-user caps, and cron schedules with their
 * ticks. Rows live as long as the instance.
 *
 * @example
 * const db = new MemoryDb();
 * const agent = new Agent({ id: "a", model }).withDb(db);
 * const out = await agent.run("hi", { sessionId: "s1" });
 * expect((await db.getSession("s1"))!.runs).toHaveLength(1);
 *
 * @example
 * // a background run, end to end: enqueued, claimed, executed
 * await db.jobs.enqueueRun(runJobInput({ component: agent.ref, message: "hi", userId: null, maxAttempts: 1, maxDepth: 10 }));
 * const [job] = await db.jobs.claimJobs({ workerId: "w", limit: 1, leaseSeconds: 60 });
 * await executeRunJob(job, { id: job.id, attempt: job.attempt, workerId: "w" }, [agent], db, db.jobs);
 */
export class MemoryDb implements QueueDb {
  readonly id: string;
  readonly tables: MemoryTables;
  readonly jobs: MemoryJobStore;
  readonly schedules: MemoryScheduleStore;
  readonly audit: MemoryAuditLog;
  /** traces and their spans (issue 23) */
  readonly traces = new MemoryTraceStore();
  readonly metrics: MemoryMetricsBuckets;
  readonly serviceAccounts: MemoryServiceAccountStore;
  /** agno's component catalog (`db.components`) */
  readonly components: MemoryComponentStore;
  /** eval runs (`db.evals`, agno_eval_runs' rows) */
  readonly evals: MemoryEvalRunStore;
  private readonly runs: MemoryRunStore;
  private readonly sessions: MemorySessionStore;
  private readonly events: MemoryRunEventStore;
  private readonly results: MemoryToolResultStore;
  private readonly memories: MemoryUserMemoryStore;
  private readonly learnings: MemoryLearningStore;
  private readonly approvals: MemoryApprovalStore;
  /** knowledge contents (agno_knowledge's rows) */
  readonly knowledgeContents = new MemoryKnowledgeContentStore();

  constructor(opts: MemoryDbOptions = {}) {
    this.id = opts.id ?? "default";
    this.tables = opts.tables ?? new MemoryTables();
    // The stale-run sweep leaves a run the queue still holds: its job's lease recovers it.
    this.runs = new MemoryRunStore(this.tables, (runId) => this.jobs.holdsRun(runId));
    this.jobs = new MemoryJobStore(this.tables, this.runs);
    this.schedules = new MemoryScheduleStore(this.tables);
    this.audit = new MemoryAuditLog(this.tables);
    this.metrics = new MemoryMetricsBuckets(this.tables);
    this.serviceAccounts = new MemoryServiceAccountStore(this.tables, this.audit);
    this.components = new MemoryComponentStore(this.tables);
    this.evals = new MemoryEvalRunStore(this.tables);
    this.sessions = new MemorySessionStore(this.tables, this.runs);
    this.events = new MemoryRunEventStore(this.tables);
    this.results = new MemoryToolResultStore(this.tables);
    this.memories = new MemoryUserMemoryStore(this.tables);
    this.learnings = new MemoryLearningStore(this.tables);
    this.approvals = new MemoryApprovalStore(this.tables);
  }

  // -- the database as a whole: always at the current layout, nothing to migrate ----------

  async init(): Promise<SchemaState> {
    return "current";
  }

  async schemaVersion(): Promise<string | null> {
    return CURRENT_SCHEMA_VERSION;
  }

  async ping(): Promise<void> {}

  async migrate(): Promise<MigrationResult> {
    return {
      fromVersion: CURRENT_SCHEMA_VERSION,
      toVersion: CURRENT_SCHEMA_VERSION,
      sessionsScanned: 0,
      runsCopied: 0,
    };
  }

  async cleanupLegacyRunsColumn(opts: { force: boolean }): Promise<void> {
    if (opts?.force !== true) {
      throw new ConfirmationRequiredError(
        "cleanupLegacyRunsColumn drops the legacy runs column and the 2.x backup it holds: call it with { force: true } to confirm",
      );
    }
  }

  // -- sessions ----------------------------------------------------------------------------

  upsertSession(session: SessionRecord): Promise<Session> {
    return this.sessions.upsertSession(session);
  }
  createSession(session: SessionRecord): Promise<Session> {
    return this.sessions.createSession(session);
  }
  getSession(sessionId: string, opts?: GetSessionOptions): Promise<Session | null> {
    return this.sessions.getSession(sessionId, opts);
  }
  updateSessionState(sessionId: string, changes: StateChange[]): Promise<Record<string, unknown> | null> {
    return this.sessions.updateSessionState(sessionId, changes);
  }
  getSessionWithRun(
    sessionId: string,
    runId: string,
    opts?: GetSessionOptions,
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    return this.sessions.getSessionWithRun(sessionId, runId, opts);
  }
  getSessions(opts?: GetSessionsOptions): Promise<Page<Session>> {
    return this.sessions.getSessions(opts);
  }
  renameSession(sessionId: string, name: string, opts?: { userId?: string }): Promise<Session> {
    return this.sessions.renameSession(sessionId, name, opts);
  }
  setSessionSummary(sessionId: string, summary: Record<string, unknown>, opts?: { userId?: string }): Promise<void> {
    return this.sessions.setSessionSummary(sessionId, summary, opts);
  }
  deleteSession(sessionId: string, opts?: { userId?: string }): Promise<void> {
    return this.sessions.deleteSession(sessionId, opts);
  }
  deleteSessions(sessionIds: string[], opts?: { userId?: string }): Promise<number> {
    return this.sessions.deleteSessions(sessionIds, opts);
  }

  // -- runs --------------------------------------------------------------------------------

  upsertRun(run: RunRecord, opts?: UpsertRunOptions): Promise<RunRow> {
    return this.runs.upsertRun(run, opts);
  }
  getRun(
    runId: string,
    opts?: { userId?: string; sessionId?: string; includeShared?: boolean },
  ): Promise<RunRow | null> {
    return this.runs.getRun(runId, opts);
  }
  getRuns(opts?: GetRunsOptions): Promise<Page<RunRow>> {
    return this.runs.getRuns(opts);
  }
  deleteRun(runId: string, opts?: { userId?: string }): Promise<void> {
    return this.runs.deleteRun(runId, opts);
  }
  deleteRuns(runIds: string[], opts?: { userId?: string }): Promise<number> {
    return this.runs.deleteRuns(runIds, opts);
  }
  heartbeatRun(runId: string): Promise<boolean> {
    return this.runs.heartbeatRun(runId);
  }
  interruptStaleRuns(opts: InterruptOptions): Promise<InterruptedRun[]> {
    return this.runs.interruptStaleRuns(opts);
  }
  listTimedOutReviews(opts: { now: string; limit?: number }): Promise<TimedOutReview[]> {
    return this.runs.listTimedOutReviews(opts);
  }

  // -- run event logs ----------------------------------------------------------------------

  appendRunEvents(runId: string, firstIndex: number, events: object[]): Promise<void> {
    return this.events.appendRunEvents(runId, firstIndex, events);
  }
  getRunEvents(runId: string, opts: { afterIndex: number; limit?: number }): Promise<StoredRunEvent[]> {
    return this.events.getRunEvents(runId, opts);
  }
  lastRunEventIndex(runId: string): Promise<number> {
    return this.events.lastRunEventIndex(runId);
  }
  pruneRunEvents(createdBefore: number): Promise<number> {
    return this.events.pruneRunEvents(createdBefore);
  }

  // -- offloaded tool results --------------------------------------------------------------

  insertToolResult(row: ToolResultRecord): Promise<void> {
    return this.results.insertToolResult(row);
  }
  getToolResult(
    resultId: string,
    scope: { sessionId: string | null; userId: string | null },
  ): Promise<ToolResultRecord | null> {
    return this.results.getToolResult(resultId, scope);
  }
  listExpiredToolResults(now: number, opts: { namespace: string; limit?: number }): Promise<ToolResultRecord[]> {
    return this.results.listExpiredToolResults(now, opts);
  }
  deleteToolResults(resultIds: string[]): Promise<number> {
    return this.results.deleteToolResults(resultIds);
  }

  // -- user memories -----------------------------------------------------------------------

  getUserMemories(userId: string, opts?: { limit?: number }): Promise<MemoryRecord[]> {
    return this.memories.getUserMemories(userId, opts);
  }
  upsertUserMemory(memory: MemoryRecord): Promise<MemoryRecord> {
    return this.memories.upsertUserMemory(memory);
  }
  getUserMemory(memoryId: string, opts?: { userId?: string }): Promise<MemoryRecord | null> {
    return this.memories.getUserMemory(memoryId, opts);
  }
  listUserMemories(query?: MemoryQuery): Promise<Page<MemoryRecord>> {
    return this.memories.listUserMemories(query);
  }
  deleteUserMemory(memoryId: string, opts?: { userId?: string }): Promise<void> {
    return this.memories.deleteUserMemory(memoryId, opts);
  }
  deleteUserMemories(memoryIds: string[], opts?: { userId?: string }): Promise<number> {
    return this.memories.deleteUserMemories(memoryIds, opts);
  }
  replaceUserMemories(
    userId: string,
    replacing: readonly string[] | "all",
    memories: MemoryRecord[],
  ): Promise<MemoryRecord[]> {
    return this.memories.replaceUserMemories(userId, replacing, memories);
  }
  getMemoryTopics(opts?: { userId?: string }): Promise<string[]> {
    return this.memories.getMemoryTopics(opts);
  }
  getUserMemoryStats(opts?: { userId?: string; limit?: number; page?: number }): Promise<Page<UserMemoryStats>> {
    return this.memories.getUserMemoryStats(opts);
  }

  // -- approvals ---------------------------------------------------------------------------

  getApproval(id: string, opts?: { userId?: string }): Promise<ApprovalRecord | null> {
    return this.approvals.getApproval(id, opts);
  }
  getApprovals(filter: ApprovalFilter & { limit?: number; page?: number }): Promise<Page<ApprovalRecord>> {
    return this.approvals.getApprovals(filter);
  }
  countPendingApprovals(opts?: { userId?: string }): Promise<number> {
    return this.approvals.countPendingApprovals(opts);
  }
  resolveApproval(id: string, decision: ApprovalDecision): Promise<ApprovalRecord | null> {
    return this.approvals.resolveApproval(id, decision);
  }
  reopenApproval(id: string, resolvedAt: number): Promise<boolean> {
    return this.approvals.reopenApproval(id, resolvedAt);
  }
  deleteApproval(id: string): Promise<boolean> {
    return this.approvals.deleteApproval(id);
  }
  expireApprovals(now: number): Promise<number> {
    return this.approvals.expireApprovals(now);
  }

  // -- learnings ---------------------------------------------------------------------------

  upsertLearning(record: LearningWrite): Promise<LearningRecord> {
    return this.learnings.upsertLearning(record);
  }
  createLearning(record: LearningWrite): Promise<LearningRecord> {
    return this.learnings.createLearning(record);
  }
  getLearning(learningId: string): Promise<LearningRecord | null> {
    return this.learnings.getLearning(learningId);
  }
  updateLearning(
    learningId: string,
    changes: { content: Record<string, unknown>; metadata: Record<string, unknown> | null },
  ): Promise<LearningRecord | null> {
    return this.learnings.updateLearning(learningId, changes);
  }
  deleteLearning(learningId: string): Promise<boolean> {
    return this.learnings.deleteLearning(learningId);
  }
  deleteUserLearnings(userId: string, opts?: { learningType?: string }): Promise<number> {
    return this.learnings.deleteUserLearnings(userId, opts);
  }
  listLearnings(opts?: ListLearningsOptions): Promise<Page<LearningRecord>> {
    return this.learnings.listLearnings(opts);
  }
  learningUsers(opts?: LearningUsersOptions): Promise<Page<LearningUserStats>> {
    return this.learnings.learningUsers(opts);
  }

  // -- knowledge contents ----------------------------------------------------------------------

  upsertKnowledgeContent(row: ContentRecord): Promise<ContentRecord> {
    return this.knowledgeContents.upsertKnowledgeContent(row);
  }

  getKnowledgeContent(id: string, opts?: { userId?: string | null }): Promise<ContentRecord | null> {
    return this.knowledgeContents.getKnowledgeContent(id, opts);
  }

  listKnowledgeContents(opts: ListContentsOptions): Promise<ContentPage> {
    return this.knowledgeContents.listKnowledgeContents(opts);
  }

  deleteKnowledgeContent(id: string, opts?: { userId?: string | null }): Promise<void> {
    return this.knowledgeContents.deleteKnowledgeContent(id, opts);
  }

  deleteKnowledgeContents(opts: { linkedTo?: string; userId?: string | null }): Promise<number> {
    return this.knowledgeContents.deleteKnowledgeContents(opts);
  }
}
