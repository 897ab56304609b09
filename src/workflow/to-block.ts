import { ValidationError } from "../errors.js";
import type { WorkflowBlock } from "./block.js";
import { isComponent, Step, type StepExecutor } from "./step.js";

/** What a list of steps may hold: building blocks, and agents or functions (each made a Step, as agno does). */
export type StepLike = WorkflowBlock | StepExecutor;

const BLOCK_TYPES = new Set(["Step", "Steps", "Loop", "Parallel", "Condition", "Router"]);

export function isBlock(value: unknown): value is WorkflowBlock {
  return (
    typeof value === "object" &&
    value !== null &&
    BLOCK_TYPES.has((value as WorkflowBlock).stepType) &&
    typeof (value as WorkflowBlock).execute === "function"
  );
}

/** The block `step` stands for; `field` names the option in the error a wrong value gets. */
export function toBlock(step: StepLike, field: string): WorkflowBlock {
  if (isBlock(step)) return step;
  if (typeof step === "function" || isComponent(step)) return new Step({ executor: step });
  throw new ValidationError(
    `${field}: a step must be a Step, Steps, Loop, Parallel, Condition, Router, an agent or a function`,
    field,
  );
}

export function toBlocks(steps: unknown, field: string): WorkflowBlock[] {
  if (!Array.isArray(steps)) throw new ValidationError(`${field} must be a list of steps`, field);
  return steps.map((s, i) => toBlock(s as StepLike, `${field}[${i}]`));
}
