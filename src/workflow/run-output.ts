import type { RunMetrics, RunOutput } from "../agent/run-output.js";
import type { RunStatus } from "../db/types.js";
import type { StepOutput } from "./step-output.js";
import type { StepRequirement } from "./step-requirement.js";
import type { PauseFrame } from "./pause.js";
import type { Checkpoint } from "./run-progress.js";
import type { ErrorRequirement } from "./error-requirement.js";

/** One step's metrics in a workflow's (agno's StepMetrics): only steps an agent or a team ran. */
export interface StepMetrics {
  step_name: string;
  executor_type: string;
  executor_name: string;
  metrics: RunMetrics | null;
}

/** agno's WorkflowMetrics: the steps' metrics by step name, and the run's duration (seconds). */
export interface WorkflowMetrics {
  steps: Record<string, StepMetrics>;
  duration?: number;
}

/** An agent's (or team's) run made by a step, as the workflow run keeps it. */
export type StepExecutorRun = RunOutput & { workflow_step_id: string };

/** A workflow run as stored in `agno_runs.run_data` (agno's WorkflowRunOutput dict). */
export interface WorkflowRunOutput {
  run_id: string;
  workflow_id: string;
  workflow_name?: string;
  session_id: string;
  user_id: string | null;
  parent_run_id?: string | null;
  status: RunStatus;
  /** what the run was given, as given */
  input: unknown;
  /** the last step's (deepest) content */
  content: unknown;
  content_type: string;
  step_results: StepOutput[];
  /** the runs of the agents (and teams) the steps ran, each with `parent_run_id` set to this run */
  step_executor_runs: StepExecutorRun[];
  metrics: WorkflowMetrics;
  session_state?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** what the caller passed as `additionalData` (kept so a continued run hands it on) */
  additional_data?: Record<string, unknown>;
  error?: { message: string; type: string };
  /** every review the run paused for, the last one the active one while PAUSED (agno keeps the history) */
  step_requirements?: StepRequirement[];
  /** while PAUSED by a step that failed with onError "pause": the decision it waits for (agno's) */
  error_requirements?: ErrorRequirement[] | null;
  /** where a PAUSED run waits: the top-level step that holds the paused one (see paused_frames for the way down) */
  paused_step_index?: number | null;
  paused_step_name?: string | null;
  pause_kind?: "step" | "executor" | null;
  /** where each container on the way down to a nested pause stood, outermost first */
  paused_frames?: PauseFrame[] | null;
  /** how far a durable run got while it runs (kept to itself: a restarted run goes on from here) */
  checkpoint?: Checkpoint | null;
  created_at: number;
  updated_at?: number;
}
