import { workflowEvent, type RunScope, type WorkflowBlock } from "./block.js";
import { lastContent } from "./deepest-content.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { StepMetrics, WorkflowRunOutput } from "./run-output.js";
import { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";
import { stepRequirement, type StepRequirement } from "./step-requirement.js";

/** Where a continued run picks up: the paused step, with its resolved requirement. */
export interface StepsResume {
  startIndex: number;
  requirement: StepRequirement;
}

/** How the steps ended: all done (or stopped), or paused before a step that asks for a person. */
export type StepsEnd = { paused: false } | { paused: true; requirement: StepRequirement };

/**
 * Runs a workflow's top-level steps in order, each output added to the run's `step_results` as
 * it ends (so a run that fails or is cancelled keeps what was done); a step with `stop` ends the
 * workflow there, as in agno. A step with a HumanReview pauses the run before it runs; a
 * continued run starts again at that step with the person's decision.
 */
export async function* executeSteps(
  blocks: readonly WorkflowBlock[],
  input: unknown,
  additionalData: Record<string, unknown>,
  scope: RunScope,
  resume?: StepsResume,
): AsyncGenerator<WorkflowStreamEvent, StepsEnd> {
  let stepInput = new StepInput({
    input,
    previous_step_content: null,
    previous_step_outputs: {},
    additional_data: additionalData,
    session_state: scope.sessionState,
  });
  // A continued run's earlier outputs are the previous steps' outputs again.
  scope.run.step_results.forEach((out, i) => (stepInput = stepInput.after(out.step_name ?? `step_${i + 1}`, out)));
  for (let i = resume?.startIndex ?? 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    scope.checkCancelled();
    const resolved = i === resume?.startIndex ? resume.requirement : undefined;
    let runInput = stepInput;
    let forceElse = false;
    if (resolved) {
      yield workflowEvent(scope, "StepContinued", { step_name: block.name, step_index: i, step_id: block.stepId });
      if (resolved.confirmed === false && resolved.on_reject === "skip") continue;
      forceElse = resolved.confirmed === false && resolved.on_reject === "else";
      if (resolved.user_input)
        runInput = new StepInput({
          ...stepInput,
          additional_data: { ...additionalData, user_input: resolved.user_input },
        });
    } else if (block.humanReview?.pauses) {
      const requirement = stepRequirement(block.humanReview, {
        stepId: block.stepId,
        name: block.name ?? null,
        index: i,
        stepType: block.stepType,
      });
      return { paused: true, requirement };
    }
    const output = yield* block.execute(runInput, scope, { index: i, topLevel: true }, { forceElse });
    scope.run.step_results.push(output);
    if (output.stop) break;
    stepInput = stepInput.after(block.name ?? `step_${i + 1}`, output);
  }
  return { paused: false };
}

/** The run's content (agno's: the last step's, following containers to their last inner step) and its metrics. */
export function summarize(run: WorkflowRunOutput): void {
  const last = run.step_results.at(-1);
  run.content = last ? lastContent(last) : "No steps executed";
  run.content_type = typeof run.content === "string" || run.content === null ? "str" : "dict";
  const steps: Record<string, StepMetrics> = {};
  const visit = (out: StepOutput) => {
    out.steps?.forEach(visit);
    if (out.step_name && out.metrics && (out.executor_type === "agent" || out.executor_type === "team"))
      steps[out.step_name] = {
        step_name: out.step_name,
        executor_type: out.executor_type,
        executor_name: out.executor_name ?? "unknown",
        metrics: out.metrics,
      };
  };
  run.step_results.forEach(visit);
  run.metrics = { ...run.metrics, steps };
}
