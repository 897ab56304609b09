import { ValidationError } from "../errors.js";
import { nowSeconds } from "../time.js";
import {
  EVAL_SORT_COLUMNS,
  EVAL_TYPES,
  type EvalRunQuery,
  type EvalRunRecord,
  type EvalRunWrite,
  type EvalType,
} from "./ports/eval-store.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether `value` is one of agno's eval types. */
export const isEvalType = (value: unknown): value is EvalType => EVAL_TYPES.includes(value as EvalType);

/**
 * The row a new eval run is stored as, checked the same way by every adapter: a run id, one of
 * agno's types, object data and input (the column is NOT NULL: no input is `{}`), and the
 * creation time now.
 */
export function evalRunRow(run: EvalRunWrite, now = nowSeconds()): EvalRunRecord {
  if (typeof run.run_id !== "string" || run.run_id === "") throw new ValidationError("run_id is required", "run_id");
  if (!isEvalType(run.eval_type))
    throw new ValidationError(`eval_type must be one of ${EVAL_TYPES.join(", ")}`, "eval_type");
  if (!isObject(run.eval_data)) throw new ValidationError("eval_data must be an object", "eval_data");
  if (run.eval_input !== undefined && run.eval_input !== null && !isObject(run.eval_input))
    throw new ValidationError("eval_input must be an object", "eval_input");
  return {
    run_id: run.run_id,
    eval_type: run.eval_type,
    eval_data: run.eval_data,
    eval_input: run.eval_input ?? {},
    name: run.name ?? null,
    agent_id: run.agent_id ?? null,
    team_id: run.team_id ?? null,
    workflow_id: run.workflow_id ?? null,
    model_id: run.model_id ?? null,
    model_provider: run.model_provider ?? null,
    evaluated_component_name: run.evaluated_component_name ?? null,
    user_id: run.user_id ?? null,
    created_at: now,
    updated_at: now,
  };
}

/** Refuses a sort column or eval type no adapter knows, before any adapter reads. */
export function checkEvalQuery(query: EvalRunQuery): void {
  if (query.sortBy !== undefined && !EVAL_SORT_COLUMNS.includes(query.sortBy))
    throw new ValidationError(`sort_by must be one of ${EVAL_SORT_COLUMNS.join(", ")}`, "sort_by");
  for (const t of query.evalTypes ?? [])
    if (!isEvalType(t)) throw new ValidationError(`eval_type must be one of ${EVAL_TYPES.join(", ")}`, "eval_types");
}

/** A rename's new name: agno's UpdateEvalRunRequest takes 1 to 255 characters. */
export function checkEvalName(name: string): void {
  if (typeof name !== "string" || name.length < 1 || name.length > 255)
    throw new ValidationError("name must be 1 to 255 characters", "name");
}
