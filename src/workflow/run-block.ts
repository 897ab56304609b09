import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock } from "./block.js";
import type { WorkflowStreamEvent } from "./events.js";
import { PauseSignal, type ResumePoint } from "./pause.js";
import { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";
import { stepRequirement } from "./step-requirement.js";

/**
 * Runs one block of a sequence (the workflow's, or a container's): a block with a HumanReview
 * throws a PauseSignal instead; when a continued run comes back to it, the person's decision
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
  if (resume && resume.frames.length > 0) return yield* block.execute(input, scope, at, { point: resume });
  if (resume?.requirement) {
    const decision = resume.requirement;
    const place = { step_name: block.name, step_index: at.index, step_id: block.stepId };
    if (decision.requires_executor_input) {
      const { executor_id, executor_name, executor_run_id, executor_type } = decision;
      yield workflowEvent(scope, "StepExecutorContinued", {
        ...place,
        ...{ executor_id, executor_name, executor_run_id, executor_type },
      });
      return yield* block.execute(input, scope, at, { executor: decision });
    }
    yield workflowEvent(scope, "StepContinued", place);
    if (decision.confirmed === false && decision.on_reject === "skip") return null;
    const forceElse = decision.confirmed === false && decision.on_reject === "else";
    // The input is the paused block's only, as in agno: the blocks after it do not get it.
    const given = decision.user_input
      ? new StepInput({ ...input, additional_data: { ...input.additional_data, user_input: decision.user_input } })
      : input;
    return yield* block.execute(given, scope, at, { forceElse });
  }
  if (block.humanReview?.pauses) {
    const path = typeof at.index === "number" ? [at.index] : at.index;
    throw new PauseSignal(
      stepRequirement(block.humanReview, {
        stepId: block.stepId,
        name: block.name ?? null,
        index: path[path.length - 1]!,
        path,
        stepType: block.stepType,
      }),
    );
  }
  return yield* block.execute(input, scope, at);
}
