import { publicError } from "../public-error.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock } from "./block.js";
import { isCancellation } from "./cancelled.js";
import { isErrorRequirement } from "./error-requirement.js";
import type { WorkflowStreamEvent } from "./events.js";
import { isPause, PauseSignal, type BlockResume, type ResumePoint } from "./pause.js";
import { ExecutorPausedError } from "./run-executor.js";
import { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { stepRequirement, type StepRequirement } from "./step-requirement.js";

/**
 * Runs one block of a sequence (the workflow's, or a container's): a block with a HumanReview
 * throws a PauseSignal instead (before it runs, or after, with its output for review, or when
 * it fails with onError "pause"); when a continued run comes back to it, the person's decision
 * applies (null: the block is skipped); when the pause is deeper inside it, the way down goes on.
 * A run restarted from a checkpoint comes back with no decision: the block runs afresh.
 */
export async function* runBlock(
  block: WorkflowBlock,
  input: StepInput,
  scope: RunScope,
  at: StepPosition,
  resume?: ResumePoint,
): AsyncGenerator<WorkflowStreamEvent, StepOutput | null> {
  if (resume && resume.frames.length > 0) {
    const decision = resume.requirement;
    const own = decision && resume.frames.length === 1 && resume.frames[0]!.state?.iteration_review === true;
    // A Loop's own iteration review rejected with "skip": the loop's output is dropped, as in agno.
    if (own) yield continued(block, scope, at);
    if (own && !isErrorRequirement(decision) && decision.confirmed === false && decision.on_reject === "skip")
      return null;
    return yield* block.execute(input, scope, at, { point: resume });
  }
  if (resume?.requirement) {
    const decision = resume.requirement;
    if (!isErrorRequirement(decision) && decision.requires_executor_input) {
      const { executor_id, executor_name, executor_run_id, executor_type } = decision;
      yield workflowEvent(scope, "StepExecutorContinued", {
        ...{ step_name: block.name, step_index: at.index, step_id: block.stepId },
        ...{ executor_id, executor_name, executor_run_id, executor_type },
      });
      return yield* attempt(block, input, scope, at, { executor: decision }, 0);
    }
    yield continued(block, scope, at);
    if (isErrorRequirement(decision))
      return decision.decision === "skip"
        ? null
        : yield* attempt(block, input, scope, at, {}, decision.retry_count + 1);
    if (decision.requires_route_selection)
      return yield* attempt(
        block,
        input,
        scope,
        at,
        { selection: decision.selected_choices ?? [] },
        decision.retry_count,
      );
    if (decision.confirmed === false && decision.on_reject === "skip") return null;
    if (decision.is_post_execution) {
      const reviewed = new StepOutput({ ...decision.step_output });
      if (decision.confirmed) {
        if (decision.edited_output !== null && decision.edited_output !== undefined)
          reviewed.content = decision.edited_output;
        return reviewed;
      }
      // Rejected with "retry": a Router asks for its route again, a Step runs again with the feedback.
      if (block.stepType === "Router") throw new PauseSignal(routeSelection(block, at, decision.retry_count + 1));
      return yield* attempt(block, withFeedback(input, decision, reviewed), scope, at, {}, decision.retry_count + 1);
    }
    const forceElse = decision.confirmed === false && decision.on_reject === "else";
    // The input is the paused block's only, as in agno: the blocks after it do not get it.
    const given = decision.user_input
      ? new StepInput({ ...input, additional_data: { ...input.additional_data, user_input: decision.user_input } })
      : decision.confirmed === false
        ? withFeedback(input, decision, null)
        : input;
    return yield* attempt(block, given, scope, at, { forceElse }, 0);
  }
  const review = block.humanReview;
  if (review?.pauses) {
    // A Router asking for input asks for its route (agno's route selection), unless it asks for a confirmation first.
    if (block.stepType === "Router" && review.requiresUserInput && !review.requiresConfirmation)
      throw new PauseSignal(routeSelection(block, at, 0));
    throw new PauseSignal(requirementOf(block, at));
  }
  return yield* attempt(block, input, scope, at, undefined, 0);
}

/**
 * Runs the block: a failure does what its onError says (unset or "fail": fails; "skip": a
 * failed output; "pause": the run waits for a person), and an output to review pauses the run.
 */
async function* attempt(
  block: WorkflowBlock,
  input: StepInput,
  scope: RunScope,
  at: StepPosition,
  how: BlockResume | undefined,
  retries: number,
): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
  const review = block.humanReview;
  let output: StepOutput;
  try {
    output = yield* block.execute(input, scope, at, how);
  } catch (error) {
    const onError = review?.onError;
    if (!onError || onError === "fail" || isPause(error) || error instanceof ExecutorPausedError) throw error;
    if (isCancellation(error, scope)) throw error;
    const shown = publicError(error, `workflow run ${scope.run.run_id}: step ${block.name}`);
    if (onError === "skip")
      return new StepOutput({
        step_name: block.name ?? null,
        step_id: block.stepId,
        step_type: block.stepType,
        content: `Step skipped due to error: ${shown.message}`,
        success: false,
        error: shown.message,
      });
    const path = pathOf(at);
    throw new PauseSignal({
      step_id: block.stepId,
      step_name: block.name ?? null,
      step_index: path[path.length - 1]!,
      step_path: path,
      error_message: shown.message,
      error_type: shown.type,
      retry_count: retries,
      decision: null,
    });
  }
  if (review && (block.stepType === "Step" || block.stepType === "Router") && review.reviewsOutput(output)) {
    const message =
      review.outputReviewMessage ??
      `Review output of ${block.stepType === "Router" ? "router" : "step"} '${block.name ?? "step"}'?`;
    throw new PauseSignal({
      ...requirementOf(block, at),
      requires_output_review: true,
      output_review_message: message,
      requires_confirmation: true,
      confirmation_message: message,
      requires_user_input: false,
      user_input_message: null,
      user_input_schema: null,
      step_output: output,
      is_post_execution: true,
      retry_count: retries,
    });
  }
  return output;
}

function pathOf(at: StepPosition): number[] {
  return typeof at.index === "number" ? [at.index] : at.index;
}

function requirementOf(block: WorkflowBlock, at: StepPosition): StepRequirement {
  const path = pathOf(at);
  return stepRequirement(block.humanReview!, {
    stepId: block.stepId,
    name: block.name ?? null,
    index: path[path.length - 1]!,
    path,
    stepType: block.stepType,
  });
}

/** A Router's pause for a person to pick its route(s) (agno's route selection). */
function routeSelection(block: WorkflowBlock, at: StepPosition, retries: number): StepRequirement {
  const review = block.humanReview!;
  const choices = (block as WorkflowBlock & { choices: WorkflowBlock[] }).choices
    .map((c) => c.name)
    .filter((n): n is string => n !== undefined);
  return {
    ...requirementOf(block, at),
    requires_confirmation: false,
    confirmation_message: null,
    requires_user_input: false,
    user_input_schema: review.userInputSchema,
    user_input_message: review.userInputMessage ?? `Select a route from: ${choices.join(", ")}`,
    requires_route_selection: true,
    available_choices: choices,
    allow_multiple_selections: review.allowMultipleSelections,
    retry_count: retries,
  };
}

/** The input of a block run again after a rejection: the reviewer's feedback and, for an output review, what it gave. */
function withFeedback(input: StepInput, decision: StepRequirement, before: StepOutput | null): StepInput {
  const extra: Record<string, unknown> = {};
  if (decision.rejection_feedback) extra.rejection_feedback = decision.rejection_feedback;
  if (before && before.content !== null && before.content !== undefined)
    extra.previous_output = typeof before.content === "string" ? before.content : JSON.stringify(before.content);
  if (Object.keys(extra).length === 0) return input;
  return new StepInput({ ...input, additional_data: { ...input.additional_data, ...extra } });
}

function continued(block: WorkflowBlock, scope: RunScope, at: StepPosition) {
  return workflowEvent(scope, "StepContinued", { step_name: block.name, step_index: at.index, step_id: block.stepId });
}
