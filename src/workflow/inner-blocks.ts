import { ValidationError } from "../errors.js";
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

/** Refuses a HumanReview below the top level: pausing there and resuming at its path is not done yet. */
export function checkReviewsAtTopLevel(blocks: readonly WorkflowBlock[]): void {
  const visit = (block: WorkflowBlock, path: string) => {
    for (const [i, inner] of innerBlocks(block).entries()) {
      if (inner.humanReview?.pauses)
        throw new ValidationError(
          `${path} > ${inner.name ?? `step ${i + 1}`}: humanReview works on top-level steps only (for now)`,
          "steps",
        );
      visit(inner, `${path} > ${inner.name ?? `step ${i + 1}`}`);
    }
  };
  blocks.forEach((b, i) => visit(b, b.name ?? `step ${i + 1}`));
}
