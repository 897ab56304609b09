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

const RUN_STATUS_SET = new Set<unknown>(RUN_STATUSES);
const SESSION_TYPES = new Set<unknown>(["agent", "team", "workflow"]);
const CONTROL = /[\u0000-\u001f\u007f]/;
const SESSION_KEYS = Object.keys(sessionSchema.shape);

/** An object literal's kind of object (what JSON.parse makes), with no symbol keys. */
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" &&
  v !== null &&
  Object.getPrototypeOf(v) === Object.prototype &&
  Object.getOwnPropertySymbols(v).length === 0;
const isId = (v: unknown) =>
  typeof v === "string" && v.length >= 1 && v.length <= 255 && !CONTROL.test(v) && textProblem(v) === null;
const isOptionalId = (v: unknown) => v === undefined || v === null || isId(v);
const isEpoch = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isOptionalEpoch = (v: unknown) => v === undefined || v === null || isEpoch(v);

/**
 * Whether `value` nests no deeper than `maxDepth` levels, counting containers as jsonProblem does
 * (arrays and plain objects), without building the path jsonProblem names a problem by.
 */
function withinDepth(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()! + 1;
    let children: unknown[];
    if (Array.isArray(v)) children = v;
    else {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) continue;
      children = Object.values(v as object);
    }
    if (depth > maxDepth) return false;
    for (const child of children)
      if (typeof child === "object" && child !== null) {
        values.push(child);
        depths.push(depth);
      }
  }
  return true;
}

const isBoundedObject = (v: unknown, maxDepth: number) =>
  v === undefined || v === null || (isRecord(v) && withinDepth(v, maxDepth));

/**
 * The schema's checks of a run, by hand: true only for a run runSchema accepts as it is, so the
 * run every write of a running agent stores skips zod's walk and copies. Anything else (a
 * failure above all, which zod names) goes through the schema.
 */
function plainRun(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v)) return false;
  const messages = v.messages;
  return (
    isId(v.run_id) &&
    isId(v.session_id) &&
    isOptionalId(v.agent_id) &&
    isOptionalId(v.team_id) &&
    isOptionalId(v.workflow_id) &&
    isOptionalId(v.user_id) &&
    isOptionalId(v.parent_run_id) &&
    (v.status === undefined || v.status === null || RUN_STATUS_SET.has(v.status)) &&
    isOptionalEpoch(v.created_at) &&
    isOptionalEpoch(v.updated_at) &&
    (messages === undefined ||
      (Array.isArray(messages) && messages.every((m) => isRecord(m) && typeof m.role === "string"))) &&
    isBoundedObject(v.session_state, JSON_LIMITS.maxDepth + 1) &&
    isBoundedObject(v.metadata, JSON_LIMITS.maxDepth + 1) &&
    withinDepth(v, JSON_LIMITS.maxDepth * 2)
  );
}

/** plainRun for a session (one without runs: a session written with its runs goes through the schema). */
function plainSession(v: unknown): v is Record<string, unknown> {
  if (!isRecord(v)) return false;
  const wrapped = JSON_LIMITS.maxDepth + 1;
  return (
    isId(v.session_id) &&
    SESSION_TYPES.has(v.session_type) &&
    isOptionalId(v.agent_id) &&
    isOptionalId(v.team_id) &&
    isOptionalId(v.workflow_id) &&
    isOptionalId(v.user_id) &&
    isBoundedObject(v.session_data, wrapped) &&
    isBoundedObject(v.agent_data, wrapped) &&
    isBoundedObject(v.team_data, wrapped) &&
    isBoundedObject(v.workflow_data, wrapped) &&
    isBoundedObject(v.metadata, JSON_LIMITS.maxDepth) &&
    isBoundedObject(v.summary, wrapped) &&
    (v.created_at === undefined || isEpoch(v.created_at)) &&
    isOptionalEpoch(v.updated_at) &&
    v.runs === undefined
  );
}

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join(".") || what;
  throw new ValidationError(`invalid ${what}: ${field}: ${issue.message}`, field);
}

/**
 * Checks a run dict at the storage boundary; throws a ValidationError naming the field. The
 * answer is a copy of the run's top level (its own fields can change after the check; what they
 * hold is shared).
 */
export function validateRun(value: unknown): RunRecord {
  if (plainRun(value)) return { ...value } as unknown as RunRecord;
  return check(runSchema, value, "run") as RunRecord;
}

/** validateRun for a session: only the schema's fields are kept. */
export function validateSession(value: unknown): SessionRecord {
  if (plainSession(value)) {
    const out: Record<string, unknown> = {};
    for (const key of SESSION_KEYS) if (key in value) out[key] = value[key];
    return out as unknown as SessionRecord;
  }
  return check(sessionSchema, value, "session") as SessionRecord;
}

export function validateId(value: unknown, field: string): string {
  return check(id, value, field);
}

export function validateIds(value: unknown, field: string): string[] {
  return check(z.array(id).min(1).max(1000), value, field);
}
