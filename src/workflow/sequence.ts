import { publicError } from "../public-error.js";
import { childIndex, type RunScope, type StepPosition, type WorkflowBlock } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { isPause, type PauseFrame, type ResumePoint } from "./pause.js";
import { runBlock } from "./run-block.js";
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

/** Where a continued sequence picks up: the inner step that paused, the outputs before it, the way further down. */
export interface SequenceResume {
  index: number;
  results: StepOutput[];
  point: ResumePoint;
}

/** The SequenceResume a container's frame stands for, from the resume it was given (undefined: a fresh run). */
export function resumeFrom(point: ResumePoint | undefined): SequenceResume | undefined {
  const frame = point?.frames[0];
  if (!point || !frame) return undefined;
  return { index: frame.index, results: frame.results, point: { ...point, frames: point.frames.slice(1) } };
}

/** The container a sequence runs in: its index and id, and what its frame holds beyond the sequence's place (a Loop's iteration, a Condition's branch). */
export interface SequenceParent {
  index: StepPosition["index"];
  id: string;
  frame: () => Omit<PauseFrame, "index" | "results">;
}

/**
 * Runs blocks one after another, each given the content and the outputs of those before it; a
 * step with `stop` ends the sequence (and, through its container's output, the workflow). A
 * block that asks for a person ends it with a PauseSignal that says where it stood; in a
 * durable run each block that ends is saved with where the sequence stands.
 */
export async function* runSequence(
  blocks: readonly WorkflowBlock[],
  first: StepInput,
  scope: RunScope,
  parent: SequenceParent,
  onError: OnBlockError = "throw",
  resume?: SequenceResume,
): AsyncGenerator<WorkflowStreamEvent, SequenceResult> {
  const results: StepOutput[] = [...(resume?.results ?? [])];
  let input = first.afterAll(results);
  let next = resume?.index ?? 0;
  const where = (): PauseFrame => ({ ...parent.frame(), index: next, results: [...results] });
  const leave = scope.progress?.enter(where);
  try {
    for (let i = next; i < blocks.length; i++) {
      const block = blocks[i]!;
      scope.checkCancelled();
      const name = block.name ?? `step_${i + 1}`;
      let output: StepOutput | null;
      try {
        output = yield* runBlock(
          block,
          input,
          scope,
          { index: childIndex(parent.index, i), parentStepId: parent.id, topLevel: false },
          i === resume?.index ? resume.point : undefined,
        );
      } catch (error) {
        if (isPause(error)) {
          error.frames.unshift(where());
          throw error;
        }
        if (onError === "throw" || isCancellation(error, scope)) throw error;
        const message = publicError(error, `workflow run ${scope.run.run_id}: step ${name}`).message;
        results.push(
          new StepOutput({
            step_name: name,
            content: `Step ${name} failed: ${message}`,
            success: false,
            error: message,
          }),
        );
        return { results, stopped: false, next: input };
      }
      next = i + 1;
      if (output !== null) {
        results.push(output);
        input = input.after(name, output);
      }
      await scope.progress?.innerStepEnded();
      if (output?.stop) return { results, stopped: true, next: input };
    }
    return { results, stopped: false, next: input };
  } finally {
    leave?.();
  }
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
