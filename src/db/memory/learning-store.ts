import { ConflictError } from "../../errors.js";
import {
  learningSortColumn,
  learningUsersSort,
  orderOf,
  validateLearning,
  validateLearningChanges,
} from "../learning-rows.js";
import { pageOf, resolvePage } from "../pagination.js";
import type {
  LearningFilter,
  LearningRecord,
  LearningStorage,
  LearningUsersOptions,
  LearningUserStats,
  LearningWrite,
  ListLearningsOptions,
} from "../ports/learning-store.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import { compareIds, copy, now, stored, type MemoryTables } from "./tables.js";

/** Postgres' order: nulls last ascending, first descending; ties by id. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return a < b ? -1 : 1;
}

function matches(row: LearningRecord, f: LearningFilter): boolean {
  if (f.learningType !== undefined && row.learning_type !== f.learningType) return false;
  if (f.userId !== undefined && !(row.user_id === f.userId || (f.includeShared === true && row.user_id === null)))
    return false;
  if (f.agentId !== undefined && row.agent_id !== f.agentId) return false;
  if (f.teamId !== undefined && row.team_id !== f.teamId) return false;
  if (f.workflowId !== undefined && row.workflow_id !== f.workflowId) return false;
  if (f.sessionId !== undefined && row.session_id !== f.sessionId) return false;
  if (f.namespace !== undefined && row.namespace !== f.namespace) return false;
  if (f.entityId !== undefined && row.entity_id !== f.entityId) return false;
  if (f.entityType !== undefined && row.entity_type !== f.entityType) return false;
  return true;
}

/** agno's learnings in memory, with the Postgres adapter's rules (the same contract suite). */
export class MemoryLearningStore implements LearningStorage {
  constructor(private readonly t: MemoryTables) {}

  /** read each time: a rolled-back transaction replaces the map */
  private get rows(): Map<string, LearningRecord> {
    return this.t.learnings;
  }

  async upsertLearning(record: LearningWrite): Promise<LearningRecord> {
    const v = validateLearning(record);
    const existing = this.rows.get(v.learning_id);
    if (existing && existing.user_id !== v.user_id)
      throw new ConflictError(`learning ${v.learning_id} belongs to another owner`);
    const ts = now();
    const row: LearningRecord = existing
      ? { ...existing, content: stored(v.content), metadata: stored(v.metadata), updated_at: ts }
      : { ...v, content: stored(v.content), metadata: stored(v.metadata), created_at: ts, updated_at: ts };
    this.rows.set(row.learning_id, row);
    return copy(row);
  }

  async createLearning(record: LearningWrite): Promise<LearningRecord> {
    const v = validateLearning(record);
    if (this.rows.has(v.learning_id)) throw new ConflictError(`learning ${v.learning_id} already exists`);
    return this.upsertLearning(v);
  }

  async getLearning(learningId: string): Promise<LearningRecord | null> {
    validateId(learningId, "learning_id");
    const row = this.rows.get(learningId);
    return row ? copy(row) : null;
  }

  async updateLearning(
    learningId: string,
    changes: { content: Record<string, unknown>; metadata: Record<string, unknown> | null },
  ): Promise<LearningRecord | null> {
    validateId(learningId, "learning_id");
    const v = validateLearningChanges(changes);
    const existing = this.rows.get(learningId);
    if (!existing) return null;
    const row = { ...existing, content: stored(v.content), metadata: stored(v.metadata), updated_at: now() };
    this.rows.set(learningId, row);
    return copy(row);
  }

  async deleteLearning(learningId: string): Promise<boolean> {
    validateId(learningId, "learning_id");
    return this.rows.delete(learningId);
  }

  async deleteUserLearnings(userId: string, opts: { learningType?: string } = {}): Promise<number> {
    validateId(userId, "user_id");
    let n = 0;
    for (const [key, row] of this.rows) {
      if (row.user_id === userId && (opts.learningType === undefined || row.learning_type === opts.learningType)) {
        this.rows.delete(key);
        n++;
      }
    }
    return n;
  }

  async listLearnings(opts: ListLearningsOptions = {}): Promise<Page<LearningRecord>> {
    const page = resolvePage(opts);
    const column = learningSortColumn(opts.sortBy);
    const sign = orderOf(opts.sortOrder) === "asc" ? 1 : -1;
    const all = [...this.rows.values()]
      .filter((r) => matches(r, opts))
      .sort((a, b) => {
        const c = compare(a[column], b[column]);
        // nulls stay last ascending and first descending, as Postgres orders them
        return (c !== 0 ? sign * c : 0) || compareIds(a.learning_id, b.learning_id);
      });
    return pageOf(all.slice(page.offset, page.offset + page.limit).map(copy), all.length, page);
  }

  async learningUsers(opts: LearningUsersOptions = {}): Promise<Page<LearningUserStats>> {
    const page = resolvePage({ limit: opts.limit ?? 20, page: opts.page });
    const latest = new Map<string, number | null>();
    for (const row of this.rows.values()) {
      if (row.user_id === null) continue;
      if (opts.learningType !== undefined && row.learning_type !== opts.learningType) continue;
      if (opts.userId !== undefined && row.user_id !== opts.userId) continue;
      const seen = latest.get(row.user_id);
      const at = row.updated_at;
      latest.set(row.user_id, seen === undefined ? at : at === null ? seen : seen === null ? at : Math.max(seen, at));
    }
    const by = learningUsersSort(opts.sortBy);
    const sign = orderOf(opts.sortOrder) === "asc" ? 1 : -1;
    const all = [...latest].map(([user_id, last]) => ({ user_id, last_learning_updated_at: last }));
    all.sort(
      (a, b) =>
        (by === "user_id"
          ? sign * compareIds(a.user_id, b.user_id)
          : sign * compare(a.last_learning_updated_at, b.last_learning_updated_at)) || compareIds(a.user_id, b.user_id),
    );
    return pageOf(all.slice(page.offset, page.offset + page.limit), all.length, page);
  }
}
