import { z } from "zod";
import { ValidationError } from "../errors.js";
import { RUN_STATUSES, type RunRecord, type SessionRecord } from "./types.js";

/** Ids are bounded so a hostile caller cannot fill an index with megabyte keys. */
const id = z.string().min(1).max(255);
const optionalId = id.nullish();
const epochSeconds = z.number().int().nonnegative();
const jsonObject = z.record(z.string(), z.unknown()).nullish();

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
  })
  .passthrough();

const sessionSchema = z.object({
  session_id: id,
  session_type: z.enum(["agent", "team", "workflow"]),
  agent_id: optionalId,
  team_id: optionalId,
  workflow_id: optionalId,
  user_id: optionalId,
  session_data: jsonObject,
  agent_data: jsonObject,
  team_data: jsonObject,
  workflow_data: jsonObject,
  metadata: jsonObject,
  summary: jsonObject,
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
