import { ValidationError } from "../errors.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { compileCel, loopContext, type CelProgram } from "./cel.js";
import type { WorkflowStreamEvent } from "./events.js";
import { PauseSignal, type BlockResume } from "./pause.js";
import { stepRequirement, type StepRequirement } from "./step-requirement.js";
import { containerOutput, resumeFrom, runSequence } from "./sequence.js";
import { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";
import { toBlocks, type StepLike } from "./to-block.js";

/** Ends a Loop: true after an iteration stops it. Given that iteration's outputs. */
export type EndCondition = (iterationResults: StepOutput[]) => boolean | Promise<boolean>;

export interface LoopOptions {
  /** a person confirms (or gives input) before it runs: the run pauses there (not inside a Parallel) */
  humanReview?: HumanReview;
  name?: string;
  description?: string;
  steps: StepLike[];
  /** iterations at most (default 3) */
  maxIterations?: number;
  /**
   * A function, or a CEL expression over `current_iteration`, `max_iterations`, `all_success`,
   * `last_step_content` and `step_outputs` (e.g. `'last_step_content.contains("DONE")'`).
   */
  endCondition?: EndCondition | string;
  /** each iteration starts from the last one's output instead of the Loop's input */
  forwardIterationOutput?: boolean;
}

/**
 * Runs its steps again and again (agno's Loop) until the end condition holds, a step stops, or
 * `maxIterations` is reached. As in agno, a failing end condition counts as false.
 */
export class Loop implements WorkflowBlock {
  readonly stepType = "Loop" as const;
  readonly stepId = crypto.randomUUID();
  readonly humanReview?: HumanReview;
  readonly name?: string;
  readonly description?: string;
  readonly steps: WorkflowBlock[];
  readonly maxIterations: number;
  readonly forwardIterationOutput: boolean;
  private readonly endCondition?: EndCondition | CelProgram;
  private readonly endIsCel: boolean;

  constructor(opts: LoopOptions) {
    this.name = opts.name;
    this.description = opts.description;
    opts.humanReview?.checkFor("Loop");
    this.humanReview = opts.humanReview;
    this.steps = toBlocks(opts.steps, "steps");
    this.maxIterations = opts.maxIterations ?? 3;
    if (!Number.isInteger(this.maxIterations) || this.maxIterations < 1)
      throw new ValidationError("maxIterations must be a whole number >= 1", "maxIterations");
    this.forwardIterationOutput = opts.forwardIterationOutput ?? false;
    const end = opts.endCondition as unknown;
    if (end !== undefined && typeof end !== "string" && typeof end !== "function")
      throw new ValidationError("endCondition must be a function or a CEL expression", "endCondition");
    this.endIsCel = typeof end === "string";
    this.endCondition = typeof end === "string" ? compileCel(end, "endCondition") : (end as EndCondition | undefined);
  }

  private async shouldEnd(results: StepOutput[], iteration: number): Promise<boolean> {
    if (!this.endCondition) return false;
    try {
      const verdict = this.endIsCel
        ? (this.endCondition as CelProgram)(loopContext(results, iteration, this.maxIterations))
        : await (this.endCondition as EndCondition)(results);
      return verdict === true;
    } catch {
      return false;
    }
  }

  /** Pauses the run after an iteration for a person's review; the Loop's own frame keeps the iterations so far. */
  private reviewIteration(at: StepPosition, iteration: number, all: StepOutput[][], last: StepOutput): never {
    const review = this.humanReview!;
    const path = typeof at.index === "number" ? [at.index] : at.index;
    const message =
      review.iterationReviewMessage ??
      `Loop '${this.name ?? "loop"}' completed iteration ${iteration}/${this.maxIterations}. Continue?`;
    const signal = new PauseSignal({
      ...stepRequirement(review, {
        stepId: this.stepId,
        name: this.name ?? null,
        index: path[path.length - 1]!,
        path,
        stepType: "Loop",
      }),
      requires_output_review: true,
      output_review_message: message,
      requires_confirmation: true,
      confirmation_message: message,
      step_output: last,
      is_post_execution: true,
      max_retries: null,
    });
    signal.frames.push({
      step_type: "Loop",
      step_name: this.name ?? null,
      index: this.steps.length,
      results: [],
      state: { iteration, all, iteration_review: true },
    });
    throw signal;
  }

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const max = this.maxIterations;
    const place = placeOf(this, at);
    // A continued run comes back into the iteration that paused, with the iterations before it.
    let resumed = resumeFrom(resume?.point);
    const state = resume?.point?.frames[0]?.state as
      { iteration: number; all: StepOutput[][]; iteration_review?: boolean } | undefined;
    const all: StepOutput[][] = state ? [...state.all] : [];
    let iteration = state?.iteration ?? 0;
    const decision = state?.iteration_review ? (resume!.point!.requirement as StepRequirement) : undefined;
    if (decision) {
      resumed = undefined;
      // Rejected with "retry": one more iteration, told why (approved: the loop ends with what it has).
      if (decision.rejection_feedback)
        input = new StepInput({
          ...input,
          additional_data: { ...input.additional_data, rejection_feedback: decision.rejection_feedback },
        });
    }
    let iterationInput = this.forwardIterationOutput && all.length > 0 ? input.afterAll(all[all.length - 1]!) : input;
    if (!resumed && !decision) yield workflowEvent(scope, "LoopExecutionStarted", { ...place, max_iterations: max });
    while (iteration < max && decision?.confirmed !== true) {
      scope.checkCancelled();
      if (!resumed)
        yield workflowEvent(scope, "LoopIterationStarted", { ...place, iteration: iteration + 1, max_iterations: max });
      const frame = () => ({ step_type: "Loop" as const, step_name: this.name ?? null, state: { iteration, all } });
      const inner = runSequence(this.steps, iterationInput, scope, { index: at.index, id, frame }, "throw", resumed);
      resumed = undefined;
      const { results, stopped, next } = yield* inner;
      all.push(results);
      iteration++;
      const ended = stopped || (await this.shouldEnd(results, iteration));
      yield workflowEvent(scope, "LoopIterationCompleted", {
        ...place,
        iteration,
        max_iterations: max,
        iteration_results: results,
        should_continue: !ended && iteration < max,
      });
      if (ended) break;
      if (this.forwardIterationOutput) iterationInput = next;
      const last = results.at(-1);
      if (this.humanReview?.requiresIterationReview && iteration < max && last)
        this.reviewIteration(at, iteration, all, last);
      // Saved between iterations, so a restarted run starts the next one instead of ending this one again.
      await scope.progress?.between(() => ({ ...frame(), index: 0, results: [] }));
    }
    yield workflowEvent(scope, "LoopExecutionCompleted", {
      ...place,
      total_iterations: iteration,
      max_iterations: max,
      all_results: all,
    });
    const flat = all.flat();
    return containerOutput({
      step_name: this.name ?? null,
      step_id: id,
      step_type: "Loop",
      content: `Loop ${this.name} completed ${iteration} iterations with ${flat.length} total steps`,
      steps: flat,
    });
  }
}
