import { z } from "zod";
import type { MetricsBucket } from "../../db/port.js";
import { agnoTime } from "../session-view.js";
import { agnoDatetime, agnoObject } from "./agno-object.js";

/** agno's metrics models (os/routers/metrics/schemas.py). */
const source = (model: string) => ({ model, file: "os/routers/metrics/schemas.py" });
const count = (what: string) => z.int().min(0).describe(what);

export const dayAggregatedMetricsSchema = agnoObject(source("DayAggregatedMetrics"), {
  id: z.string().describe("`<day>_daily` for the deployment-wide day, `<day>_<user_id>_daily` for one user's bucket"),
  agent_runs_count: count("Total number of agent runs"),
  agent_sessions_count: count("Total number of agent sessions"),
  team_runs_count: count("Total number of team runs"),
  team_sessions_count: count("Total number of team sessions"),
  workflow_runs_count: count("Total number of workflow runs"),
  workflow_sessions_count: count("Total number of workflow sessions"),
  users_count: count("Total number of unique users"),
  token_metrics: z
    .record(z.string(), z.number())
    .describe("agno's token counters summed over the day's runs, and `cost` (agno-edge's: their summed cost)"),
  model_metrics: z
    .array(z.record(z.string(), z.unknown()))
    .describe("Runs per model: model_id, model_provider, count, and `cost` (agno-edge's: their summed cost)"),
  date: agnoDatetime().describe("The day (UTC midnight) the metrics aggregate"),
  created_at: agnoDatetime(),
  updated_at: agnoDatetime(),
});

export const metricsResponseSchema = agnoObject(source("MetricsResponse"), {
  metrics: z.array(dayAggregatedMetricsSchema),
  updated_at: agnoDatetime().nullable().describe("The most recent update of the caller's (or every) bucket"),
});

export const metricsRefreshResponseSchema = agnoObject(source("MetricsRefreshResponse"), {
  status: z.string().describe("started (background), or already_running"),
  message: z.string().nullable(),
});

export const metricsRefreshStatusResponseSchema = agnoObject(source("MetricsRefreshStatusResponse"), {
  status: z.enum(["idle", "running", "completed", "failed"]),
  started_at: agnoDatetime().nullable(),
  finished_at: agnoDatetime().nullable(),
  error: z.string().nullable(),
});

/** A bucket as agno's DayAggregatedMetrics.from_dict answers it. */
export function dayAggregatedMetricsView(b: MetricsBucket) {
  return {
    id: b.id,
    agent_runs_count: b.agent_runs_count,
    agent_sessions_count: b.agent_sessions_count,
    team_runs_count: b.team_runs_count,
    team_sessions_count: b.team_sessions_count,
    workflow_runs_count: b.workflow_runs_count,
    workflow_sessions_count: b.workflow_sessions_count,
    users_count: b.users_count,
    token_metrics: b.token_metrics,
    model_metrics: b.model_metrics,
    date: `${b.date}T00:00:00Z`,
    created_at: agnoTime(b.created_at)!,
    updated_at: agnoTime(b.updated_at)!,
  };
}
