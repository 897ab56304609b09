import type { JobRecord } from "../../queue/types.js";
import type { Schedule, ScheduleRun } from "../../scheduler/types.js";
import type { ApprovalRecord, AuditRecord, LearningRecord, ServiceAccountRecord, ToolResultRecord } from "../port.js";
import type { ComponentConfigRecord, ComponentLink, ComponentRecord } from "../ports/component-store.js";
import type { MetricsBucket } from "../ports/metrics-store.js";
import type { EvalRunRecord } from "../ports/eval-store.js";
import type { MemoryRecord, RunRow, SessionRecord } from "../types.js";

/** One stored event of a run's log, as `agno_run_events` holds it. */
export interface EventRow {
  index: number;
  event: Record<string, unknown> & { event: string };
  created_at: number;
}

/** One stored attempt of a schedule, with the key that records it once per occurrence and attempt. */
export type ScheduleRunRow = ScheduleRun & { occurrence_key: string | null };

/** A stored config version: a deleted one keeps its number as a `_deleted` tombstone. */
export type StoredConfigRow = Omit<ComponentConfigRecord, "stage"> & { stage: string; deleted_at: number | null };

/**
 * The rows of a MemoryDb, one map per table of the Postgres layout. Rows are never changed in
 * place, only replaced, so a transaction is a copy of the maps it can put back. A test may read
 * or change them as it would a database's tables.
 */
export class MemoryTables {
  sessions = new Map<string, Omit<SessionRecord, "runs">>();
  runs = new Map<string, RunRow>();
  runEvents = new Map<string, EventRow[]>();
  toolResults = new Map<string, ToolResultRecord>();
  memories = new Map<string, MemoryRecord>();
  jobs = new Map<string, JobRecord>();
  schedules = new Map<string, Schedule>();
  scheduleRuns = new Map<string, ScheduleRunRow>();
  learnings = new Map<string, LearningRecord>();
  approvals = new Map<string, ApprovalRecord>();
  serviceAccounts = new Map<string, ServiceAccountRecord>();
  /** appended in order: the array's order is the log's */
  auditLog: AuditRecord[] = [];
  components = new Map<string, ComponentRecord>();
  /** keyed by `componentKey(id, version)` */
  componentConfigs = new Map<string, StoredConfigRow>();
  /** a parent version's links, keyed by `componentKey(parent, version)` */
  componentLinks = new Map<string, ComponentLink[]>();
  /** metrics buckets, keyed by `metricsKey(user_id, date)` */
  metrics = new Map<string, MetricsBucket>();
  /** agno_eval_runs, keyed by run_id */
  evalRuns = new Map<string, EvalRunRecord>();

  /** Runs `fn` (synchronous: nothing else runs meanwhile) and, if it throws, puts every row back: all or nothing. */
  transaction<T>(fn: () => T): T {
    const saved = {
      sessions: new Map(this.sessions),
      runs: new Map(this.runs),
      runEvents: new Map(this.runEvents),
      toolResults: new Map(this.toolResults),
      memories: new Map(this.memories),
      jobs: new Map(this.jobs),
      schedules: new Map(this.schedules),
      scheduleRuns: new Map(this.scheduleRuns),
      learnings: new Map(this.learnings),
      approvals: new Map(this.approvals),
      serviceAccounts: new Map(this.serviceAccounts),
      auditLog: [...this.auditLog],
      components: new Map(this.components),
      componentConfigs: new Map(this.componentConfigs),
      componentLinks: new Map(this.componentLinks),
      metrics: new Map(this.metrics),
      evalRuns: new Map(this.evalRuns),
    };
    try {
      return fn();
    } catch (error) {
      Object.assign(this, saved);
      throw error;
    }
  }
}

/** epoch seconds, as every stored timestamp */
export { nowSeconds as now } from "../../time.js";

/** `value` as the Postgres adapter stores it (JSON, with what jsonb refuses replaced): a copy no caller shares. */
export { pgSafe as stored } from "../../json-limits.js";

/** A copy of a stored row, so a caller that changes what it read changes nothing stored. */
export const copy = <T>(value: T): T => structuredClone(value);

/** A user filter as the Postgres adapter applies it: none, the user's rows, or theirs and the shared ones (no user). */
export function userMatches(
  rowUser: string | null | undefined,
  opts: { userId?: string; includeShared?: boolean },
): boolean {
  if (opts.userId === undefined) return true;
  return (rowUser ?? null) === opts.userId || (opts.includeShared === true && (rowUser ?? null) === null);
}

/** Ids in Postgres' order for ASCII ids: a listing's tie-breaker. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The key of one component version in MemoryTables' component maps. */
export const componentKey = (id: string, version: number): string => `${id}\u0000${version}`;
