import { z } from "zod";
import type { ComponentRef, ComponentType } from "../agent/component.js";
import { AgnoError, ValidationError } from "../errors.js";
import { checkEvalFields, evalComponentRef, evalRunInputSchema, type EvalRunInput } from "../evals/eval-run-input.js";
import { checkJson } from "../json-limits.js";
import { validateCron } from "./cron.js";
import { SCHEDULE_MUTABLE_FIELDS, type Schedule, type ScheduleInput, type ScheduleUpdate } from "./types.js";

/** agno's limits (ScheduleCreate), so a schedule written by either validates in both. */
const fields = {
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(
      /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/,
      "must start with a letter or digit and hold only letters, digits, '.', '_' and '-'",
    ),
  description: z.string().max(1024).nullable(),
  // Case-insensitive as in agno, stored upper-case; no transform, so the OpenAPI document can show it.
  method: z.string().regex(/^post$/i, "must be POST: a schedule starts runs and evals"),
  endpoint: z.string().min(1).max(512),
  payload: z.record(z.string(), z.unknown()).nullable(),
  cron_expr: z.string().min(1).max(128),
  timezone: z.string().min(1).max(64),
  timeout_seconds: z.number().int().min(1).max(86_400),
  max_retries: z.number().int().min(0).max(10),
  retry_delay_seconds: z.number().int().min(1).max(3600),
  enabled: z.boolean(),
  next_run_at: z.number().int().nonnegative().nullable(),
  disabled_reason: z.string().max(1024).nullable(),
};

/** agno's ScheduleCreate body (also the OpenAPI schema of `POST /schedules`). */
export const scheduleCreateSchema = z.strictObject({
  name: fields.name,
  endpoint: fields.endpoint,
  cron_expr: fields.cron_expr,
  method: fields.method.default("POST"),
  description: fields.description.optional(),
  payload: fields.payload.optional(),
  timezone: fields.timezone.default("UTC"),
  timeout_seconds: fields.timeout_seconds.default(3600),
  max_retries: fields.max_retries.default(0),
  retry_delay_seconds: fields.retry_delay_seconds.default(60),
  enabled: fields.enabled.default(true),
});
const updateSchema = z.strictObject(fields).partial();

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : issue.path.join(".");
  throw new ValidationError(
    issue.code === "unrecognized_keys" ? `${field}: not a schedule field` : `${field}: ${issue.message}`,
    field,
  );
}

/** Run fields a payload may carry; `stream`/`background` are accepted and ignored (scheduled runs are always background). */
const PAYLOAD_FIELDS = new Set([
  "message",
  "session_id",
  "session_state",
  "dependencies",
  "metadata",
  "stream",
  "background",
]);
const runPayload = z.object({
  message: z.string({ error: "a run needs a message (string)" }).min(1).max(100_000),
  session_id: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
    .optional(),
  session_state: z.record(z.string(), z.unknown()).optional(),
  dependencies: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** The run endpoints of this AgentOS, by the component type their first segment names. */
const RUN_PATHS: Record<string, ComponentType> = { agents: "agent", teams: "team", workflows: "workflow" };

/**
 * The component a run endpoint names: /agents/{id}/runs, /teams/{id}/runs or /workflows/{id}/runs.
 * Only paths of this AgentOS are accepted, never a URL: the scheduler enqueues the run itself
 * instead of calling out, so a schedule cannot reach elsewhere. Whether the component is served is
 * the caller's question (the registry's).
 */
export function runTarget(endpoint: string): ComponentRef {
  if (!endpoint.startsWith("/") || endpoint.includes("://") || endpoint.startsWith("//")) {
    throw new ValidationError(
      `endpoint must be a path of this AgentOS such as /agents/{agent_id}/runs, not ${JSON.stringify(endpoint)}`,
      "endpoint",
    );
  }
  const match = /^\/(agents|teams|workflows)\/([^/?#]+)\/runs\/?$/.exec(endpoint);
  if (!match)
    throw new ValidationError(
      `endpoint ${JSON.stringify(endpoint)} is not a run endpoint this AgentOS can schedule: use /agents/{agent_id}/runs, /teams/{team_id}/runs, /workflows/{workflow_id}/runs or /eval-runs`,
      "endpoint",
    );
  const type = RUN_PATHS[match[1]!]!;
  let id: string;
  try {
    id = decodeURIComponent(match[2]!);
  } catch {
    throw new ValidationError(`endpoint ${JSON.stringify(endpoint)} has a malformed ${type} id`, "endpoint");
  }
  if (id.length > 255) throw new ValidationError(`endpoint: the ${type} id is longer than 255 characters`, "endpoint");
  return { type, id };
}

/** Checks a payload for the run it will start; returns the run fields. */
export function runPayloadOf(payload: Record<string, unknown> | null): z.infer<typeof runPayload> {
  // Stored now, sent to a model at every occurrence: bounded as a run's own fields are.
  checkJson(payload, "payload", { text: true });
  for (const key of Object.keys(payload ?? {})) {
    if (key === "user_id")
      throw new ValidationError("payload.user_id: a scheduled run runs as the schedule's owner", "payload.user_id");
    if (!PAYLOAD_FIELDS.has(key))
      throw new ValidationError(
        `payload.${key}: not a run field (use ${[...PAYLOAD_FIELDS].slice(0, 5).join(", ")})`,
        `payload.${key}`,
      );
  }
  const checked = runPayload.safeParse(payload ?? {});
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0]!;
  const field = ["payload", ...issue.path].join(".");
  throw new ValidationError(`${field}: ${issue.message}`, field);
}

/** What a schedule starts at each occurrence: a component's run, or an eval of one. */
export type ScheduleTarget =
  | { kind: "run"; ref: ComponentRef; fields: z.infer<typeof runPayload> }
  | { kind: "eval"; ref: Pick<ComponentRef, "type" | "id">; input: EvalRunInput };

/** Checks an eval schedule's payload as `POST /eval-runs` checks its body (a 422 naming the field); returns the input. */
export function evalPayloadOf(payload: Record<string, unknown> | null): EvalRunInput {
  checkJson(payload, "payload", { text: true });
  const checked = evalRunInputSchema.safeParse(payload ?? {});
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field =
      issue.code === "unrecognized_keys"
        ? `payload.${issue.keys.join(", ")}`
        : ["payload", ...issue.path.map(String)].join(".");
    throw new ValidationError(
      issue.code === "unrecognized_keys" ? `${field}: not an eval run field` : `${field}: ${issue.message}`,
      field,
    );
  }
  try {
    evalComponentRef(checked.data);
    checkEvalFields(checked.data);
  } catch (error) {
    if (error instanceof AgnoError) throw new ValidationError(`payload: ${error.message}`, "payload");
    throw error;
  }
  return checked.data;
}

/**
 * What a schedule's endpoint and payload start, checked: `/eval-runs` with an EvalRunInput, or a
 * run endpoint (`runTarget`) with run fields. Whether the component is served is the caller's question.
 */
export function scheduleTarget(endpoint: string, payload: Record<string, unknown> | null): ScheduleTarget {
  if (/^\/eval-runs\/?$/.test(endpoint)) {
    const input = evalPayloadOf(payload);
    return { kind: "eval", ref: evalComponentRef(input), input };
  }
  const ref = runTarget(endpoint);
  return { kind: "run", ref, fields: runPayloadOf(payload) };
}

/** A new schedule's columns from agno's create body; `next_run_at` is the first occurrence after `now`. */
export function prepareCreate(input: ScheduleInput | Record<string, unknown>, now: number) {
  const s = parse(scheduleCreateSchema, input);
  scheduleTarget(s.endpoint, s.payload ?? null);
  const next = validateCron(s.cron_expr, s.timezone, now);
  return {
    ...s,
    method: "POST",
    description: s.description ?? null,
    payload: s.payload ?? null,
    next_run_at: s.enabled ? next : null,
  };
}

/**
 * SPEC SC2: the changes `updateSchedule` may make, checked field by field and together with what
 * is stored (a new cron is validated in the timezone it will run in). A changed cron, timezone,
 * or a re-enable without an explicit `next_run_at` moves `next_run_at` to the next occurrence.
 */
export function prepareUpdate(current: Schedule, changes: Record<string, unknown>, now: number): ScheduleUpdate {
  const refused = Object.keys(changes).filter((k) => !(SCHEDULE_MUTABLE_FIELDS as readonly string[]).includes(k));
  if (refused.length > 0) {
    throw new ValidationError(
      `${refused.join(", ")}: cannot be changed by updateSchedule (only ${SCHEDULE_MUTABLE_FIELDS.join(", ")})`,
      refused[0],
    );
  }
  const update: ScheduleUpdate = parse(updateSchema, changes);
  if (update.method !== undefined) update.method = "POST";
  const merged = { ...current, ...update };
  if (update.endpoint !== undefined || update.payload !== undefined) scheduleTarget(merged.endpoint, merged.payload);
  const timing = update.cron_expr !== undefined || update.timezone !== undefined;
  if (timing) validateCron(merged.cron_expr, merged.timezone, now);
  const reEnabled = update.enabled === true && !current.enabled;
  if (update.next_run_at === undefined && merged.enabled && (timing || reEnabled || current.next_run_at === null)) {
    update.next_run_at = validateCron(merged.cron_expr, merged.timezone, now);
  }
  if (reEnabled && update.disabled_reason === undefined) update.disabled_reason = null;
  return update;
}
