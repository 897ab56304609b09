import type { RunScope, WorkflowBlock } from "./block.js";
import { lastContent } from "./deepest-content.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { StepMetrics, WorkflowRunOutput } from "./run-output.js";
import { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";

/**
 * Runs a workflow's top-level steps in order, each output added to the run's `step_results` as
 * it ends (so a run that fails or is cancelled keeps what was done); a step with `stop` ends the
 * workflow there, as in agno.
 */
export async function* executeSteps(
  blocks: readonly WorkflowBlock[],
  input: unknown,
  additionalData: Record<string, unknown>,
  scope: RunScope,
): AsyncGenerator<WorkflowStreamEvent, void> {
  let stepInput = new StepInput({
    input,
    previous_step_content: null,
    previous_step_outputs: {},
    additional_data: additionalData,
    session_state: scope.sessionState,
  });
  for (const [i, block] of blocks.entries()) {
    scope.checkCancelled();
    const output = yield* block.execute(stepInput, scope, { index: i, topLevel: true });
    scope.run.step_results.push(output);
    if (output.stop) break;
    stepInput = stepInput.after(block.name ?? `step_${i + 1}`, output);
  }
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
