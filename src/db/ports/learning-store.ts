import type { Page, SortOrder } from "../types.js";

/** One row of agno's `agno_learnings`: what a learning store keeps, keyed by `learning_id`. */
export interface LearningRecord {
  learning_id: string;
  /** which store wrote it: `user_profile`, `user_memory`, `entity_memory`, `decision_log`, … */
  learning_type: string;
  namespace: string | null;
  /** the owner; null for shared rows (a global entity, an agent's own learnings) */
  user_id: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  session_id: string | null;
  entity_id: string | null;
  entity_type: string | null;
  content: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  /** epoch seconds */
  created_at: number;
  updated_at: number | null;
}

/** What a write supplies: the id, the type and the content; the rest defaults to null. */
export type LearningWrite = Pick<LearningRecord, "learning_id" | "learning_type" | "content"> &
  Partial<Omit<LearningRecord, "learning_id" | "learning_type" | "content" | "created_at" | "updated_at">>;

/** Equality filters on the identity columns; `includeShared` adds the rows without an owner to a `userId` filter. */
export interface LearningFilter {
  learningType?: string;
  userId?: string;
  includeShared?: boolean;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  sessionId?: string;
  namespace?: string;
  entityId?: string;
  entityType?: string;
}

export interface ListLearningsOptions extends LearningFilter {
  limit?: number;
  page?: number;
  /** a column name; anything else sorts by `updated_at`, as agno ignores an unknown field */
  sortBy?: string;
  sortOrder?: SortOrder;
}

/** A user that owns learnings, with their latest update (agno's LearningUserStats). */
export interface LearningUserStats {
  user_id: string;
  last_learning_updated_at: number | null;
}

export interface LearningUsersOptions {
  learningType?: string;
  userId?: string;
  limit?: number;
  page?: number;
  /** `user_id` or `last_learning_updated_at` (the default) */
  sortBy?: string;
  sortOrder?: SortOrder;
}

/** The columns a learnings listing may sort by. */
export const LEARNING_SORT_COLUMNS = [
  "learning_id",
  "learning_type",
  "namespace",
  "user_id",
  "agent_id",
  "team_id",
  "session_id",
  "entity_id",
  "entity_type",
  "created_at",
  "updated_at",
] as const;

/**
 * agno 3.0's learnings (`agno_learnings`): the rows the learning stores keep (user profile,
 * user memory, entity memory, decision log, …), each under an id its store derives.
 */
export interface LearningStorage {
  /**
   * Inserts, or on an existing id replaces content and metadata (identity columns stay as
   * stored). ConflictError when the id is held by a row of another owner.
   */
  upsertLearning(record: LearningWrite): Promise<LearningRecord>;
  /** Inserts only: ConflictError when the id exists. */
  createLearning(record: LearningWrite): Promise<LearningRecord>;
  getLearning(learningId: string): Promise<LearningRecord | null>;
  /** Replaces content and metadata of an existing row; null when there is none (never inserts). */
  updateLearning(
    learningId: string,
    changes: { content: Record<string, unknown>; metadata: Record<string, unknown> | null },
  ): Promise<LearningRecord | null>;
  /** whether a row was deleted */
  deleteLearning(learningId: string): Promise<boolean>;
  /** Deletes a user's rows (of one type when given); rows without an owner are never touched. */
  deleteUserLearnings(userId: string, opts?: { learningType?: string }): Promise<number>;
  listLearnings(opts?: ListLearningsOptions): Promise<Page<LearningRecord>>;
  /** The owners of learnings with their latest update; rows without an owner are left out. */
  learningUsers(opts?: LearningUsersOptions): Promise<Page<LearningUserStats>>;
}
