import type { RunEvent } from "../agent/events.js";
import type { StepOutput } from "./step-output.js";
import type { WorkflowRunOutput } from "./run-output.js";
import type { StepRequirement } from "./step-requirement.js";
import type { ErrorRequirement } from "./error-requirement.js";
import type { UserInputField } from "./human-review.js";

/** A step's position: its index at the top level, or the path of indexes into nested blocks (agno's tuple). */
export type StepIndex = number | number[];

/** The fields every workflow event carries (agno's BaseWorkflowRunOutputEvent). */
export interface WorkflowEventBase {
  run_id: string;
  session_id: string;
  workflow_id: string;
  workflow_name?: string;
  created_at: number;
  /** the block the event is about, and the block it sits in */
  step_id?: string;
  parent_step_id?: string;
  /** 0: this workflow's own event */
  nested_depth: number;
}

interface StepPlace {
  step_name?: string;
  step_index?: StepIndex;
}

type ExecutorPlace = Pick<StepRequirement, "executor_id" | "executor_name" | "executor_run_id" | "executor_type">;

type Results = { step_results: StepOutput[] };

/** agno's workflow events (run/workflow.py), by name, with their fields. */
export interface WorkflowEventFields {
  WorkflowStarted: object;
  WorkflowCompleted: Pick<WorkflowRunOutput, "content" | "content_type" | "step_results" | "step_executor_runs"> & {
    metadata?: Record<string, unknown>;
    metrics: WorkflowRunOutput["metrics"];
  };
  WorkflowError: { error: string; error_type: string; error_id?: string };
  WorkflowCancelled: { reason: string; content: string };
  /** after the step-level StepPaused: what a continue needs */
  WorkflowPaused: Pick<WorkflowRunOutput, "step_results" | "step_executor_runs"> & {
    status: "PAUSED";
    paused_step_index: number;
    paused_step_name: string | null;
    pause_kind: "step" | "executor";
    step_requirements: StepRequirement[];
    /** a step that failed with onError "pause": the decision the run waits for */
    error_requirements?: ErrorRequirement[];
  };
  StepPaused: StepPlace & {
    requires_confirmation: boolean;
    confirmation_message: string | null;
    requires_user_input: boolean;
    user_input_message: string | null;
    user_input_schema: UserInputField[] | null;
  };
  /** a Router waits for a person to pick its route(s) */
  RouterPaused: StepPlace & {
    available_choices: string[];
    user_input_message: string | null;
    allow_multiple_selections: boolean;
  };
  /** a step's output (or a Loop's iteration) waits for a person's review */
  StepOutputReview: StepPlace & { output_review_message: string | null; requires_output_review: boolean };
  /** the paused step goes on after its review was resolved */
  StepContinued: StepPlace;
  /** a step's agent paused for its tools (instead of StepPaused), and goes on once they are resolved */
  StepExecutorPaused: StepPlace & ExecutorPlace & { executor_requirements: StepRequirement["executor_requirements"] };
  StepExecutorContinued: StepPlace & ExecutorPlace;
  StepStarted: StepPlace;
  StepCompleted: StepPlace & { content: unknown; content_type: string; step_response: StepOutput };
  /** a step that failed: it is retried, skipped (skipOnFailure) or ends the workflow */
  StepError: StepPlace & { error: string; attempt: number };
  StepOutput: StepPlace & { step_output: StepOutput };
  StepsExecutionStarted: StepPlace & { steps_count: number };
  StepsExecutionCompleted: StepPlace & Results & { steps_count: number; executed_steps: number };
  LoopExecutionStarted: StepPlace & { max_iterations: number };
  LoopIterationStarted: StepPlace & { iteration: number; max_iterations: number };
  LoopIterationCompleted: StepPlace & {
    iteration: number;
    max_iterations: number;
    iteration_results: StepOutput[];
    should_continue: boolean;
  };
  LoopExecutionCompleted: StepPlace & { total_iterations: number; max_iterations: number; all_results: StepOutput[][] };
  ParallelExecutionStarted: StepPlace & { parallel_step_count: number };
  ParallelExecutionCompleted: StepPlace & Results & { parallel_step_count: number };
  ConditionExecutionStarted: StepPlace & { condition_result: boolean };
  ConditionExecutionCompleted: StepPlace &
    Results & { condition_result: boolean; executed_steps: number; branch: "if" | "else" | null };
  RouterExecutionStarted: StepPlace & { selected_steps: string[] };
  RouterExecutionCompleted: StepPlace & Results & { selected_steps: string[]; executed_steps: number };
}

export type WorkflowEventName = keyof WorkflowEventFields;

export type WorkflowEventOf<E extends WorkflowEventName> = WorkflowEventBase & { event: E } & WorkflowEventFields[E];

export type WorkflowEvent = { [E in WorkflowEventName]: WorkflowEventOf<E> }[WorkflowEventName];

/**
 * An agent's (or team's) event from inside a step, with agno's workflow context: the workflow,
 * its run, and the step it came from. Its `run_id` is the agent's own run.
 */
export type StepExecutorEvent = RunEvent & {
  workflow_run_id: string;
  step_id: string;
  step_name?: string;
  step_index?: StepIndex;
};

/** What a workflow run streams: its own events and those of the agents its steps run. */
export type WorkflowStreamEvent = WorkflowEvent | StepExecutorEvent;
