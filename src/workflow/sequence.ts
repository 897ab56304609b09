import { publicError } from "../public-error.js";
import { childIndex, type RunScope, type StepPosition, type WorkflowBlock } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";

/** How a sequence treats a block that throws: pass it on, or record it as a failed output and stop (agno's Condition and Router). */
export type OnBlockError = "throw" | "record";

export interface SequenceResult {
  results: StepOutput[];
  /** a step asked to end the workflow */
  stopped: boolean;
  /** the input the next step would have had (a Loop may carry it into its next iteration) */
  next: StepInput;
}

/**
 * Runs blocks one after another, each given the content and the outputs of those before it; a
 * step with `stop` ends the sequence (and, through its container's output, the workflow).
 */
export async function* runSequence(
  blocks: readonly WorkflowBlock[],
  first: StepInput,
  scope: RunScope,
  parent: { index: StepPosition["index"]; id: string },
  onError: OnBlockError = "throw",
): AsyncGenerator<WorkflowStreamEvent, SequenceResult> {
  const results: StepOutput[] = [];
  let input = first;
  for (const [i, block] of blocks.entries()) {
    scope.checkCancelled();
    const name = block.name ?? `step_${i + 1}`;
    let output: StepOutput;
    try {
      output = yield* block.execute(input, scope, {
        index: childIndex(parent.index, i),
        parentStepId: parent.id,
        topLevel: false,
      });
    } catch (error) {
      if (onError === "throw" || isCancellation(error, scope)) throw error;
      const message = publicError(error, `workflow run ${scope.run.run_id}: step ${name}`).message;
      results.push(
        new StepOutput({ step_name: name, content: `Step ${name} failed: ${message}`, success: false, error: message }),
      );
      return { results, stopped: false, next: input };
    }
    results.push(output);
    input = input.after(name, output);
    if (output.stop) return { results, stopped: true, next: input };
  }
  return { results, stopped: false, next: input };
}

/** A container's output over the outputs of its inner steps: failed if one failed, stopping if one stopped. */
export function containerOutput(
  fields: ConstructorParameters<typeof StepOutput>[0] & { steps: StepOutput[] },
): StepOutput {
  const steps = fields.steps;
  return new StepOutput({
    success: steps.every((s) => s.success),
    stop: steps.some((s) => s.stop),
    ...fields,
  });
}
