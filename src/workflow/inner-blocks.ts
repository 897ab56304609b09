import type { WorkflowBlock } from "./block.js";
import { Condition } from "./condition.js";
import { Loop } from "./loop.js";
import { Parallel } from "./parallel.js";
import { Router } from "./router.js";
import { Steps } from "./steps.js";

/** The blocks directly inside `block`. */
export function innerBlocks(block: WorkflowBlock): WorkflowBlock[] {
  if (block instanceof Steps || block instanceof Loop || block instanceof Parallel) return block.steps;
  if (block instanceof Condition) return [...block.steps, ...block.elseSteps];
  if (block instanceof Router) return block.choices;
  return [];
}
