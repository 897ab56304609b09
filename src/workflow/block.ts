import type { ComponentRef } from "../agent/component.js";
import { nowSeconds } from "../time.js";
import type {
  StepIndex,
  WorkflowEventBase,
  WorkflowEventFields,
  WorkflowEventOf,
  WorkflowStreamEvent,
} from "./events.js";
import type { HumanReview } from "./human-review.js";
import type { BlockResume } from "./pause.js";
import type { RunProgress } from "./run-progress.js";
import type { WorkflowRunOutput } from "./run-output.js";
import type { StepInput } from "./step-input.js";
import type { StepOutput, StepType } from "./step-output.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/** What a building block needs of the run it is part of. */
export interface RunScope {
  workflow: ComponentRef;
  run: WorkflowRunOutput;
  userId: string | null;
  /** the state this block works on: the run's, or a Parallel branch's own copy */
  sessionState: Record<string, unknown>;
  signal: AbortSignal;
  /** the agent runs in flight, so a cancel reaches them too */
  executorRuns: Set<string>;
  /** throws the cancellation when the run was cancelled */
  checkCancelled(): void;
  /** saves how far a durable run got as its steps end (absent: not durable, or inside a Parallel) */
  progress?: RunProgress;
  /** where this block's spans go: under the workflow run's span, or the enclosing step's (absent: not traced) */
  trace?: TraceScope;
}

/** Where a block runs: its index (a path when nested), the block it is in, and whether it is a top-level step. */
export interface StepPosition {
  index: StepIndex;
  parentStepId?: string;
  topLevel: boolean;
}

/** Where a block's events say it runs: its name, its index path, its id and its parent's. */
export function placeOf(block: { name?: string; stepId: string }, at: StepPosition) {
  return { step_name: block.name, step_index: at.index, step_id: block.stepId, parent_step_id: at.parentStepId };
}

/** A workflow building block: Step, Steps, Loop, Parallel, Condition or Router. */
export interface WorkflowBlock {
  readonly name?: string;
  readonly description?: string;
  readonly stepType: StepType;
  /** stable for the block's life: requirements and events name the block by it */
  readonly stepId: string;
  readonly humanReview?: HumanReview;
  /** its events as it runs; its output as the generator's return value (`resume`: how a rejected review goes on) */
  execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput>;
}

/** A workflow event of `scope`'s run. */
export function workflowEvent<E extends keyof WorkflowEventFields>(
  scope: RunScope,
  event: E,
  fields: WorkflowEventFields[E] & Partial<Pick<WorkflowEventBase, "step_id" | "parent_step_id">>,
): WorkflowEventOf<E> {
  const base: WorkflowEventBase = {
    run_id: scope.run.run_id,
    session_id: scope.run.session_id,
    workflow_id: scope.workflow.id,
    ...(scope.workflow.name !== undefined ? { workflow_name: scope.workflow.name } : {}),
    created_at: nowSeconds(),
    nested_depth: 0,
  };
  return { event, ...base, ...fields } as WorkflowEventOf<E>;
}

/** The index of the `i`th block inside the block at `index` (agno's tuple, as a list). */
export function childIndex(index: StepIndex, i: number): number[] {
  return typeof index === "number" ? [index, i] : [...index, i];
}
