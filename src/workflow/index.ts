export { Workflow, type WorkflowContinueOptions, type WorkflowOptions, type WorkflowRunOptions } from "./workflow.js";
export {
  HumanReview,
  type HumanReviewOptions,
  type OnError,
  type OnReject,
  type OnTimeout,
  type UserInputField,
} from "./human-review.js";
export type { ErrorRequirement } from "./error-requirement.js";
export type { StepRequirement, StepRequirementResolution } from "./step-requirement.js";
export { Step, type StepExecutor, type StepFunction, type StepOptions } from "./step.js";
export { Steps, type StepsOptions } from "./steps.js";
export { Loop, type EndCondition, type LoopOptions } from "./loop.js";
export { Parallel, type ParallelOptions } from "./parallel.js";
export { Condition, type ConditionEvaluator, type ConditionOptions } from "./condition.js";
export { Router, type RouterOptions, type RouterSelection, type RouterSelector } from "./router.js";
export { StepInput, type StepInputFields } from "./step-input.js";
export { StepOutput, type StepOutputFields, type StepType } from "./step-output.js";
export type { StepLike } from "./to-block.js";
export type { RunScope, StepPosition, WorkflowBlock } from "./block.js";
export type {
  StepExecutorEvent,
  StepIndex,
  WorkflowEvent,
  WorkflowEventBase,
  WorkflowEventName,
  WorkflowEventOf,
  WorkflowStreamEvent,
} from "./events.js";
export type { StepExecutorRun, StepMetrics, WorkflowMetrics, WorkflowRunOutput } from "./run-output.js";
