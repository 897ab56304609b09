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

/**
 * Refuses a HumanReview inside a Parallel (at any depth): its branches run at once and cannot
 * pause one by one (agno refuses it too). Anywhere else a review pauses the run where it is.
 */
export function checkReviews(blocks: readonly WorkflowBlock[]): void {
  const visit = (block: WorkflowBlock, path: string, inParallel: boolean) => {
    for (const [i, inner] of innerBlocks(block).entries()) {
      const at = `${path} > ${inner.name ?? `step ${i + 1}`}`;
      const parallel = inParallel || block instanceof Parallel;
      if (parallel && inner.humanReview?.pauses)
        throw new ValidationError(`${at}: humanReview cannot be used inside a Parallel`, "steps");
      visit(inner, at, parallel);
    }
  };
  blocks.forEach((b, i) => visit(b, b.name ?? `step ${i + 1}`, false));
}
