import type { Page } from "../types.js";

/** agno's EvalType: what an eval run measured. */
export const EVAL_TYPES = ["accuracy", "agent_as_judge", "performance", "reliability"] as const;
export type EvalType = (typeof EVAL_TYPES)[number];

/** agno's EvalFilterType: runs of an agent, of a team or of a workflow (the id column that is set). */
export type EvalFilterType = "agent" | "team" | "workflow";

/**
 * One run of an eval, as agno's `agno_eval_runs` row holds it. Each run has its own `run_id`, so
 * running the same eval twice keeps two rows.
 */
export interface EvalRunRecord {
  run_id: string;
  eval_type: EvalType;
  /** the eval's result (agno's AccuracyResult, PerformanceResult, … as a dict) */
  eval_data: Record<string, unknown>;
  /** what the eval was given: input, expected output, iterations, … */
  eval_input: Record<string, unknown>;
  name: string | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  model_id: string | null;
  model_provider: string | null;
  evaluated_component_name: string | null;
  /** the owner: who ran it (agno's update_eval_run_user_id), null for a run no user owns */
  user_id: string | null;
  /** epoch seconds */
  created_at: number;
  updated_at: number | null;
}

/** What a new eval run is stored from: its id, type and data; the rest defaults to null and the times to now. */
export type EvalRunWrite = Pick<EvalRunRecord, "run_id" | "eval_type" | "eval_data"> &
  Partial<Omit<EvalRunRecord, "run_id" | "eval_type" | "eval_data" | "created_at" | "updated_at">>;

/** The columns a list may be sorted by. */
export const EVAL_SORT_COLUMNS = [
  "created_at",
  "updated_at",
  "run_id",
  "name",
  "eval_type",
  "agent_id",
  "team_id",
  "workflow_id",
  "model_id",
] as const;
export type EvalSortColumn = (typeof EVAL_SORT_COLUMNS)[number];

export interface EvalRunQuery {
  limit?: number;
  page?: number;
  /** default `created_at`, newest first */
  sortBy?: EvalSortColumn;
  sortOrder?: "asc" | "desc";
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  modelId?: string;
  /** any of these types */
  evalTypes?: EvalType[];
  filterType?: EvalFilterType;
  /** only this user's runs (agno's scoped user_id) */
  userId?: string;
}

/** Whose runs a single-row call may touch: with `userId`, only that user's. */
export interface EvalScope {
  userId?: string;
}

/** Eval runs (`db.evals`), agno's create/get/list/rename/delete_eval_run(s). */
export interface EvalRunStore {
  /** stores a new run; a `run_id` already stored is a ConflictError */
  create(run: EvalRunWrite): Promise<EvalRunRecord>;
  get(runId: string, scope?: EvalScope): Promise<EvalRunRecord | null>;
  /** a filtered page, newest first unless sorted otherwise */
  list(query?: EvalRunQuery): Promise<Page<EvalRunRecord>>;
  /** renames a run (and stamps `updated_at`); null when there is no such run in scope */
  rename(runId: string, name: string, scope?: EvalScope): Promise<EvalRunRecord | null>;
  /** deletes the runs in scope among `runIds`; answers how many were deleted */
  delete(runIds: string[], scope?: EvalScope): Promise<number>;
}

/** Eval run storage (src/db/ports). */
export interface EvalStorage {
  readonly evals: EvalRunStore;
}
