import type { RunMetrics } from "../agent/run-output.js";

/** agno's StepType: which building block made a StepOutput. */
export type StepType = "Step" | "Steps" | "Loop" | "Parallel" | "Condition" | "Router";

/** The fields of a StepOutput, as agno's `StepOutput.to_dict()` writes them. */
export interface StepOutputFields {
  step_name: string | null;
  step_id: string | null;
  step_type: StepType | null;
  /** "function", "agent", "team", "workflow" for a Step; "parallel" for a Parallel */
  executor_type: string | null;
  executor_name: string | null;
  content: unknown;
  /** the run id of the agent or team run that made it */
  step_run_id: string | null;
  metrics: RunMetrics | null;
  success: boolean;
  error: string | null;
  /** true ends the workflow after this step (agno's early termination) */
  stop: boolean;
  is_paused: boolean;
  /** the outputs of the steps inside a Steps, Loop, Parallel, Condition or Router */
  steps?: StepOutput[];
}

/**
 * What a step produced (agno's StepOutput). A function step returns one to set more than its
 * content: `return new StepOutput({ content: "done", stop: true })` ends the workflow there.
 */
export class StepOutput implements StepOutputFields {
  step_name: string | null = null;
  step_id: string | null = null;
  step_type: StepType | null = null;
  executor_type: string | null = null;
  executor_name: string | null = null;
  content: unknown = null;
  step_run_id: string | null = null;
  metrics: RunMetrics | null = null;
  success = true;
  error: string | null = null;
  stop = false;
  is_paused = false;
  steps?: StepOutput[];

  constructor(fields: Partial<StepOutputFields> = {}) {
    Object.assign(this, fields);
  }
}
