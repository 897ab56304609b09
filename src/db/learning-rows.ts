import { z } from "zod";
import { ValidationError } from "../errors.js";
import { JSON_LIMITS, jsonProblem } from "../json-limits.js";
import { LEARNING_SORT_COLUMNS, type LearningRecord, type LearningWrite } from "./ports/learning-store.js";
import type { SortOrder } from "./types.js";
import { idSchema } from "./validate.js";

const id = idSchema;
const optionalId = id.nullish();
const object = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const problem = jsonProblem(value, { maxDepth: JSON_LIMITS.maxDepth, maxNodes: Number.POSITIVE_INFINITY });
  if (problem)
    ctx.addIssue({
      code: "custom",
      message: problem.message,
      path: problem.path === "" ? [] : problem.path.split("."),
    });
});

const learningSchema = z.object({
  learning_id: id,
  learning_type: id,
  namespace: optionalId,
  user_id: optionalId,
  agent_id: optionalId,
  team_id: optionalId,
  workflow_id: optionalId,
  session_id: optionalId,
  entity_id: optionalId,
  entity_type: optionalId,
  content: object,
  metadata: object.nullish(),
});

/** A write with every column present (null where not given). */
export type CheckedLearning = Omit<LearningRecord, "created_at" | "updated_at">;

/** The write with every column present, checked: a ValidationError names the field. */
export function validateLearning(value: LearningWrite): CheckedLearning {
  const result = learningSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.join(".") || "learning";
    throw new ValidationError(`invalid learning: ${field}: ${issue.message}`, field);
  }
  const v = result.data;
  return {
    learning_id: v.learning_id,
    learning_type: v.learning_type,
    namespace: v.namespace ?? null,
    user_id: v.user_id ?? null,
    agent_id: v.agent_id ?? null,
    team_id: v.team_id ?? null,
    workflow_id: v.workflow_id ?? null,
    session_id: v.session_id ?? null,
    entity_id: v.entity_id ?? null,
    entity_type: v.entity_type ?? null,
    content: v.content,
    metadata: v.metadata ?? null,
  };
}

/** The content and metadata of an update, checked as a write's. */
export function validateLearningChanges(changes: {
  content: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
}): { content: Record<string, unknown>; metadata: Record<string, unknown> | null } {
  const v = validateLearning({ learning_id: "x", learning_type: "x", ...changes });
  return { content: v.content, metadata: v.metadata };
}

/** The listing's sort column: a known one, else `updated_at` (agno ignores an unknown field). */
export function learningSortColumn(sortBy: string | undefined): (typeof LEARNING_SORT_COLUMNS)[number] {
  return (LEARNING_SORT_COLUMNS as readonly string[]).includes(sortBy ?? "")
    ? (sortBy as (typeof LEARNING_SORT_COLUMNS)[number])
    : "updated_at";
}

/** The users listing's sort: `user_id`, else the latest update. */
export function learningUsersSort(sortBy: string | undefined): "user_id" | "last_learning_updated_at" {
  return sortBy === "user_id" ? "user_id" : "last_learning_updated_at";
}

export const orderOf = (o: SortOrder | undefined): SortOrder => (o === "asc" ? "asc" : "desc");
