import type { RunScope, WorkflowBlock } from "./block.js";
import { isPause, type PauseFrame, type ResumePoint } from "./pause.js";
import { runBlock } from "./run-block.js";
import { lastContent } from "./deepest-content.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { StepMetrics, WorkflowRunOutput } from "./run-output.js";
import { StepInput } from "./step-input.js";
import type { StepOutput } from "./step-output.js";
import type { StepRequirement } from "./step-requirement.js";
import type { ErrorRequirement } from "./error-requirement.js";

/** Where a continued (or restarted) run picks up: the top-level step that holds the pause (or runs next), the way down to it, the decision. */
export interface StepsResume {
  startIndex: number;
  point: ResumePoint;
}

/** How the steps ended: all done (or stopped), or paused before a step that asks for a person (at any depth). */
export type StepsEnd =
  | { paused: false }
  | { paused: true; requirement: StepRequirement | ErrorRequirement; index: number; frames: PauseFrame[] };

/**
 * Runs a workflow's top-level steps in order, each output added to the run's `step_results` as
 * it ends (so a run that fails or is cancelled keeps what was done); a step with `stop` ends the
 * workflow there, as in agno. A block with a HumanReview, at any depth, pauses the run before it
 * runs; a continued run goes back down to it and goes on with the person's decision.
 */
export async function* executeSteps(
  blocks: readonly WorkflowBlock[],
  input: unknown,
  additionalData: Record<string, unknown>,
  scope: RunScope,
  resume?: StepsResume,
): AsyncGenerator<WorkflowStreamEvent, StepsEnd> {
  // A continued run's earlier outputs are the previous steps' outputs again.
  let stepInput = new StepInput({
    input,
    previous_step_content: null,
    previous_step_outputs: {},
    additional_data: additionalData,
    session_state: scope.sessionState,
  }).afterAll(scope.run.step_results);
  for (let i = resume?.startIndex ?? 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    scope.checkCancelled();
    scope.progress?.starting(i);
    let output: StepOutput | null;
    try {
      output = yield* runBlock(
        block,
        stepInput,
        scope,
        { index: i, topLevel: true },
        i === resume?.startIndex ? resume.point : undefined,
      );
    } catch (error) {
      if (isPause(error)) return { paused: true, requirement: error.requirement, index: i, frames: error.frames };
      throw error;
    }
    if (output !== null) {
      scope.run.step_results.push(output);
      stepInput = stepInput.after(block.name ?? `step_${i + 1}`, output);
    }
    await scope.progress?.stepEnded(i + 1);
    if (output?.stop) break;
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
