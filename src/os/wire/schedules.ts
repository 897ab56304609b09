import { z } from "zod";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/** Every field of agno's schedule models is serialised (no `exclude_none`): optional ones are present as null. */
const source = (model: string) => ({ model, file: "os/routers/schedules/schema.py" });
const epoch = () => z.int().describe("Epoch seconds");
const json = z.record(z.string(), z.unknown());

export const scheduleResponseSchema = agnoObject(source("ScheduleResponse"), {
  id: z.string(),
  user_id: z.string().nullable().describe("The owner; null for a schedule that belongs to no user"),
  name: z.string(),
  description: z.string().nullable(),
  method: z.string().describe("The HTTP method the schedule calls its endpoint with"),
  endpoint: z.string().describe("The path of this AgentOS it runs, e.g. /agents/{agent_id}/runs"),
  payload: json.nullable().describe("The run's fields (message, session_id, …)"),
  cron_expr: z.string(),
  timezone: z.string().describe("IANA timezone the cron expression is read in"),
  timeout_seconds: z.int(),
  max_retries: z.int(),
  retry_delay_seconds: z.int(),
  enabled: z.boolean(),
  next_run_at: epoch().nullable().describe("When it fires next (epoch seconds); null while disabled"),
  managed_by: z.string().nullable().describe("The control plane that manages it, if any"),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  disabled_reason: z.string().nullable().describe("Why the system disabled it, if it did"),
  created_at: epoch().nullable(),
  updated_at: epoch().nullable(),
});

export const scheduleStateResponseSchema = agnoObject(source("ScheduleStateResponse"), {
  id: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  next_run_at: epoch().nullable(),
  updated_at: epoch().nullable(),
});

/** How an attempt ended (agno's values); `running` until its job ends. */
export const SCHEDULE_RUN_STATUSES = ["running", "success", "failed", "paused", "timeout", "cancelled"] as const;

export const scheduleRunResponseSchema = agnoObject(source("ScheduleRunResponse"), {
  id: z.string(),
  schedule_id: z.string(),
  user_id: z.string().nullable().describe("The schedule's owner when the attempt was recorded"),
  attempt: z.int().describe("1 for an occurrence's first try, one more per retry"),
  triggered_at: epoch().nullable(),
  completed_at: epoch().nullable(),
  status: z.enum(SCHEDULE_RUN_STATUSES),
  status_code: z.int().nullable().describe("The HTTP status the attempt's start was answered with"),
  run_id: z.string().nullable().describe("The agent run it started, if it started one"),
  session_id: z.string().nullable(),
  error: z.string().nullable(),
  input: json.nullable(),
  output: json.nullable(),
  requirements: z.array(json).nullable().describe("What a paused run waits for"),
  created_at: epoch().nullable(),
});

export const scheduleListSchema = paginated(scheduleResponseSchema);
export const scheduleRunListSchema = paginated(scheduleRunResponseSchema);
