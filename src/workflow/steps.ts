import { publicError } from "../public-error.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { isPause, type BlockResume } from "./pause.js";
import { containerOutput, resumeFrom, runSequence } from "./sequence.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { toBlocks, type StepLike } from "./to-block.js";

export interface StepsOptions {
  /** a person confirms (or gives input) before it runs: the run pauses there (not inside a Parallel) */
  humanReview?: HumanReview;
  name?: string;
  description?: string;
  steps: StepLike[];
}

/**
 * A named sequence of steps run as one (agno's Steps). As in agno, a failure inside it is its
 * failed output (the workflow goes on), not the workflow's error.
 */
export class Steps implements WorkflowBlock {
  readonly stepType = "Steps" as const;
  readonly stepId = crypto.randomUUID();
  readonly humanReview?: HumanReview;
  readonly name?: string;
  readonly description?: string;
  readonly steps: WorkflowBlock[];

  constructor(opts: StepsOptions) {
    this.name = opts.name;
    this.description = opts.description;
    opts.humanReview?.checkFor("Steps");
    this.humanReview = opts.humanReview;
    this.steps = toBlocks(opts.steps, "steps");
  }

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const place = placeOf(this, at);
    const count = this.steps.length;
    const resumed = resumeFrom(resume?.point);
    if (!resumed) yield workflowEvent(scope, "StepsExecutionStarted", { ...place, steps_count: count });
    let results: StepOutput[];
    try {
      const frame = () => ({ step_type: "Steps" as const, step_name: this.name ?? null });
      ({ results } = yield* runSequence(this.steps, input, scope, { index: at.index, id, frame }, "throw", resumed));
    } catch (error) {
      if (isPause(error) || isCancellation(error, scope)) throw error;
      const message = publicError(error, `workflow run ${scope.run.run_id}: steps ${this.name}`).message;
      return new StepOutput({
        step_name: this.name ?? "Steps",
        step_type: "Steps",
        content: `Steps execution failed: ${message}`,
        success: false,
        error: message,
      });
    }
    yield workflowEvent(scope, "StepsExecutionCompleted", {
      ...place,
      steps_count: count,
      executed_steps: results.length,
      step_results: results,
    });
    return containerOutput({
      step_name: this.name ?? null,
      step_id: id,
      step_type: "Steps",
      content: `Steps ${this.name} completed with ${results.length} results`,
      steps: results,
    });
  }
}
