import type { ApprovalStore } from "./ports/approval-store.js";
import type { AuditStore } from "./ports/audit-store.js";
import type { ComponentStorage } from "./ports/component-store.js";
import type { DbAdmin } from "./ports/db-admin.js";
import type { EvalStorage } from "./ports/eval-store.js";
import type { JobStorage } from "./ports/job-storage.js";
import type { LearningStorage } from "./ports/learning-store.js";
import type { MetricsStore } from "./ports/metrics-store.js";
import type { KnowledgeContentStore } from "./ports/knowledge-content-store.js";
import type { RunEventStore } from "./ports/run-event-store.js";
import type { RunStore } from "./ports/run-store.js";
import type { ScheduleStorage } from "./ports/schedule-storage.js";
import type { ServiceAccountStorage } from "./ports/service-account-store.js";
import type { SessionStore } from "./ports/session-store.js";
import type { ToolResultStore } from "./ports/tool-result-store.js";
import type { TraceStorage } from "./ports/trace-store.js";
import type { UserMemoryStore } from "./ports/user-memory-store.js";

export type {
  ApprovalDecision,
  ApprovalFilter,
  ApprovalRecord,
  ApprovalStatus,
  ApprovalStore,
} from "./ports/approval-store.js";
export type { AuditEntry, AuditLog, AuditQuery, AuditRecord, AuditStore } from "./ports/audit-store.js";
export type {
  ComponentConfigRecord,
  ComponentCreate,
  ComponentLink,
  ComponentLinkInput,
  ComponentRecord,
  ComponentStorage,
  ComponentStore,
  ComponentType,
  ComponentWriteOptions,
  ConfigStage,
  ConfigWrite,
  ListComponentsOptions,
} from "./ports/component-store.js";
export type {
  EvalFilterType,
  EvalRunQuery,
  EvalRunRecord,
  EvalRunStore,
  EvalRunWrite,
  EvalScope,
  EvalSortColumn,
  EvalStorage,
  EvalType,
} from "./ports/eval-store.js";
export type { DbAdmin, MigrateOptions, MigrationProgress, MigrationResult } from "./ports/db-admin.js";
export type { JobStorage } from "./ports/job-storage.js";
export type {
  MetricsBucket,
  MetricsBuckets,
  MetricsQuery,
  MetricsStore,
  ModelMetric,
  RefreshOptions,
} from "./ports/metrics-store.js";
export type {
  LearningFilter,
  LearningRecord,
  LearningStorage,
  LearningUsersOptions,
  LearningUserStats,
  LearningWrite,
  ListLearningsOptions,
} from "./ports/learning-store.js";
export type { KnowledgeContentStore } from "./ports/knowledge-content-store.js";
export type { RunEventStore, StoredRunEvent } from "./ports/run-event-store.js";
export type {
  InterruptedRun,
  InterruptOptions,
  RunStore,
  TimedOutReview,
  UpsertRunOptions,
} from "./ports/run-store.js";
export type { ScheduleStorage } from "./ports/schedule-storage.js";
export type {
  ListServiceAccountsOptions,
  ServiceAccountRecord,
  ServiceAccountScope,
  ServiceAccountStorage,
  ServiceAccountStore,
} from "./ports/service-account-store.js";
export type { SessionStore } from "./ports/session-store.js";
export type { ToolResultRecord, ToolResultStore } from "./ports/tool-result-store.js";
export type {
  SpanRecord,
  TraceFilter,
  TraceQuery,
  TraceRecord,
  TraceRow,
  TraceSessionStatsRow,
  TraceStatsQuery,
  TraceStorage,
  TraceStore,
  TraceWriter,
} from "./ports/trace-store.js";
export type { MemoryQuery, UserMemoryStats, UserMemoryStore } from "./ports/user-memory-store.js";

/**
 * The storage port, composed of one port per thing it stores (src/db/ports/). Domain code
 * (agents, teams, the runtime) talks to this, never to an adapter, so the SDK runs against any
 * backend that passes the contract suite (test/support/db-contract.ts).
 */
export interface Db
  extends
    DbAdmin,
    SessionStore,
    RunStore,
    RunEventStore,
    ToolResultStore,
    UserMemoryStore,
    ScheduleStorage,
    ComponentStorage,
    LearningStorage,
    KnowledgeContentStore,
    ApprovalStore,
    ServiceAccountStorage,
    AuditStore,
    TraceStorage,
    MetricsStore,
    EvalStorage {}

/** A `Db` that also holds the durable queue's jobs (what the queue object and the scheduler need). */
export interface QueueDb extends Db, JobStorage {}
