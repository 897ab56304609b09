import { z } from "zod";
import { ValidationError } from "../errors.js";
import { JSON_LIMITS, jsonProblem, textProblem } from "../json-limits.js";
import { RUN_STATUSES, type RunRecord, type SessionRecord } from "./types.js";

/**
 * Ids are bounded so a hostile caller cannot fill an index with megabyte keys, and printable: a
 * control character (NUL above all, which Postgres refuses in text) is the caller's 4xx here.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
  .refine((s) => textProblem(s) === null, "must be valid Unicode");
const id = idSchema;
const optionalId = id.nullish();
const epochSeconds = z.number().int().nonnegative();
const jsonObject = z.record(z.string(), z.unknown()).nullish();

/**
 * Free-form JSON stays as shallow as the routes make it (see json-limits.ts), so an SDK caller
 * cannot store what a stack or the database's jsonb parser chokes on. Only depth is bounded
 * here: what a run's tools grew (its state) is stored whatever its size. `wrapped`: levels of
 * our own around the caller's value (session_data holds session_state).
 */
const depthWithin = (maxDepth: number) => (value: unknown, ctx: z.RefinementCtx) => {
  const problem = jsonProblem(value, { maxDepth, maxNodes: Number.POSITIVE_INFINITY });
  if (problem)
    ctx.addIssue({
      code: "custom",
      message: problem.message,
      path: problem.path === "" ? [] : problem.path.split("."),
    });
};
const bounded = <T extends z.ZodType>(schema: T, wrapped = 0) =>
  schema.superRefine(depthWithin(JSON_LIMITS.maxDepth + wrapped));

const runSchema = z
  .object({
    run_id: id,
    session_id: id,
    agent_id: optionalId,
    team_id: optionalId,
    workflow_id: optionalId,
    user_id: optionalId,
    parent_run_id: optionalId,
    status: z.enum(RUN_STATUSES).nullish(),
    created_at: epochSeconds.nullish(),
    updated_at: epochSeconds.nullish(),
    messages: z.array(z.object({ role: z.string() }).passthrough()).optional(),
    session_state: bounded(jsonObject, 1),
    metadata: bounded(jsonObject, 1),
  })
  .passthrough()
  // The caller's objects (state, metadata, tool arguments) sit a few levels down in a run.
  .superRefine(depthWithin(JSON_LIMITS.maxDepth * 2));

const sessionSchema = z.object({
  session_id: id,
  session_type: z.enum(["agent", "team", "workflow"]),
  agent_id: optionalId,
  team_id: optionalId,
  workflow_id: optionalId,
  user_id: optionalId,
  session_data: bounded(jsonObject, 1),
  agent_data: bounded(jsonObject, 1),
  team_data: bounded(jsonObject, 1),
  workflow_data: bounded(jsonObject, 1),
  metadata: bounded(jsonObject),
  summary: bounded(jsonObject, 1),
  created_at: epochSeconds.optional(),
  updated_at: epochSeconds.nullish(),
  runs: z.array(runSchema).optional(),
});

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || what;
  throw new ValidationError(`invalid ${what}: ${field}: ${issue.message}`, field);
}

/** Checks a run dict at the storage boundary; throws a ValidationError naming the field. */
export function validateRun(value: unknown): RunRecord {
  return check(runSchema, value, "run") as RunRecord;
}

export function validateSession(value: unknown): SessionRecord {
  return check(sessionSchema, value, "session") as SessionRecord;
}

export function validateId(value: unknown, field: string): string {
  return check(id, value, field);
}

export function validateIds(value: unknown, field: string): string[] {
  return check(z.array(id).min(1).max(1000), value, field);
}
