import { workflowEvent, type RunScope } from "./block.js";
import { isErrorRequirement, type ErrorRequirement } from "./error-requirement.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { StepRequirement } from "./step-requirement.js";

/**
 * The event that says why a run paused, as agno names it: RouterPaused (a person picks the
 * route), StepOutputReview (an output, or a Loop's iteration, to review), StepPaused (a
 * confirmation or input before the step runs), StepExecutorPaused (a step's agent waits on its
 * tools); none for a failing step, whose StepError came
 * as it failed (WorkflowPaused then carries its error_requirements).
 */
export function pausedEvent(scope: RunScope, req: StepRequirement | ErrorRequirement): WorkflowStreamEvent | null {
  const place = {
    step_name: req.step_name ?? undefined,
    step_index: req.step_path.length > 1 ? req.step_path : req.step_index,
    step_id: req.step_id,
  };
  if (isErrorRequirement(req)) return null;
  if (req.requires_executor_input) {
    const { executor_id, executor_name, executor_run_id, executor_type, executor_requirements } = req;
    return workflowEvent(scope, "StepExecutorPaused", {
      ...place,
      ...{ executor_id, executor_name, executor_run_id, executor_type, executor_requirements },
    });
  }
  if (req.requires_route_selection)
    return workflowEvent(scope, "RouterPaused", {
      ...place,
      available_choices: req.available_choices ?? [],
      user_input_message: req.user_input_message,
      allow_multiple_selections: req.allow_multiple_selections,
    });
  if (req.is_post_execution)
    return workflowEvent(scope, "StepOutputReview", {
      ...place,
      output_review_message: req.output_review_message,
      requires_output_review: true,
    });
  return workflowEvent(scope, "StepPaused", {
    ...place,
    requires_confirmation: req.requires_confirmation,
    confirmation_message: req.confirmation_message,
    requires_user_input: req.requires_user_input,
    user_input_message: req.user_input_message,
    user_input_schema: req.user_input_schema,
  });
}
