import { ValidationError } from "../errors.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { compileCel, stepInputContext, type CelProgram } from "./cel.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { BlockResume } from "./pause.js";
import { containerOutput, resumeFrom, runSequence } from "./sequence.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { toBlocks, type StepLike } from "./to-block.js";

/** Decides a Condition from the StepInput (its session_state included). */
export type ConditionEvaluator = (input: StepInput) => boolean | Promise<boolean>;

export interface ConditionOptions {
  /** a person confirms (or gives input) before it runs: the run pauses there (not inside a Parallel) */
  humanReview?: HumanReview;
  name?: string;
  description?: string;
  /**
   * true runs `steps`, false `elseSteps` (or nothing): a boolean, a function, or a CEL
   * expression over `input`, `previous_step_content`, `previous_step_outputs`,
   * `additional_data` and `session_state` (default true, as agno).
   */
  evaluator?: boolean | ConditionEvaluator | string;
  steps: StepLike[];
  elseSteps?: StepLike[];
}

/**
 * Runs its steps when the evaluator says so (agno's Condition), else its else-steps. As in agno,
 * only `true` counts as true, a failing CEL expression counts as false, and a step that fails
 * inside it ends the branch with a failed output instead of failing the workflow.
 */
export class Condition implements WorkflowBlock {
  readonly stepType = "Condition" as const;
  readonly stepId = crypto.randomUUID();
  readonly humanReview?: HumanReview;
  readonly name?: string;
  readonly description?: string;
  readonly steps: WorkflowBlock[];
  readonly elseSteps: WorkflowBlock[];
  private readonly evaluator: boolean | ConditionEvaluator | CelProgram;
  private readonly isCel: boolean;

  constructor(opts: ConditionOptions) {
    this.name = opts.name;
    this.description = opts.description;
    opts.humanReview?.checkFor("Condition");
    this.humanReview = opts.humanReview;
    this.steps = toBlocks(opts.steps, "steps");
    this.elseSteps = opts.elseSteps ? toBlocks(opts.elseSteps, "elseSteps") : [];
    const evaluator = (opts.evaluator ?? true) as unknown;
    if (typeof evaluator !== "boolean" && typeof evaluator !== "string" && typeof evaluator !== "function")
      throw new ValidationError("evaluator must be a boolean, a function or a CEL expression", "evaluator");
    this.isCel = typeof evaluator === "string";
    this.evaluator =
      typeof evaluator === "string" ? compileCel(evaluator, "evaluator") : (evaluator as boolean | ConditionEvaluator);
  }

  private async evaluate(input: StepInput): Promise<boolean> {
    if (typeof this.evaluator === "boolean") return this.evaluator;
    if (this.isCel) {
      try {
        return (this.evaluator as CelProgram)(stepInputContext(input)) === true;
      } catch {
        return false;
      }
    }
    return (await (this.evaluator as ConditionEvaluator)(input)) === true;
  }

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const place = placeOf(this, at);
    // A continued run comes back into the branch it paused in, without evaluating again.
    const resumed = resumeFrom(resume?.point);
    const state = resume?.point?.frames[0]?.state as { branch: "if" | "else"; condition_result: boolean } | undefined;
    // A rejected review with onReject "else" runs the else branch without evaluating (as agno).
    const result = state ? state.condition_result : resume?.forceElse ? false : await this.evaluate(input);
    if (!resumed) yield workflowEvent(scope, "ConditionExecutionStarted", { ...place, condition_result: result });
    const branch = state ? state.branch : result ? "if" : this.elseSteps.length > 0 ? "else" : null;
    if (branch === null) {
      yield workflowEvent(scope, "ConditionExecutionCompleted", {
        ...place,
        condition_result: false,
        executed_steps: 0,
        branch: null,
        step_results: [],
      });
      return new StepOutput({
        step_name: this.name ?? null,
        step_id: id,
        step_type: "Condition",
        content: `Condition ${this.name} not met - skipped ${this.steps.length} steps`,
      });
    }
    const blocks = branch === "if" ? this.steps : this.elseSteps;
    // As agno: a failing inner step ends the Condition with it recorded (onError unset or "skip"), or fails it ("fail", "pause": the run pauses).
    const onError = this.humanReview?.onError;
    const failing = onError === "fail" || onError === "pause" ? "throw" : "record";
    const frame = () => ({
      step_type: "Condition" as const,
      step_name: this.name ?? null,
      state: { branch, condition_result: result },
    });
    const { results } = yield* runSequence(blocks, input, scope, { index: at.index, id, frame }, failing, resumed);
    yield workflowEvent(scope, "ConditionExecutionCompleted", {
      ...place,
      condition_result: result,
      executed_steps: results.length,
      branch,
      step_results: results,
    });
    return containerOutput({
      step_name: this.name ?? null,
      step_id: id,
      step_type: "Condition",
      content: `Condition ${this.name} completed with ${results.length} results (${branch} branch)`,
      steps: results,
    });
  }
}
