import { applyStateChanges, stateChanges } from "../db/state-changes.js";
import { publicError } from "../public-error.js";
import { childIndex, workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { mergeGenerators } from "./merge-generators.js";
import { replaceContents } from "./run-executor.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { toBlocks, type StepLike } from "./to-block.js";

export interface ParallelOptions {
  name?: string;
  description?: string;
  steps: StepLike[];
}

/**
 * Runs its steps at the same time (agno's Parallel), each on the same input and on its own copy
 * of the session state. When all have ended, each branch's changes (against the state the
 * Parallel started with) are applied in the order the branches are declared, whatever order
 * they finished in: on a key two branches set, the later-declared branch wins; items that
 * branches appended to one list are all kept, in declaration order; keys set by only one branch
 * are kept. A branch that fails is a failed output; the others go on (as in agno).
 */
export class Parallel implements WorkflowBlock {
  readonly stepType = "Parallel" as const;
  readonly stepId = crypto.randomUUID();
  readonly name?: string;
  readonly description?: string;
  readonly steps: WorkflowBlock[];

  constructor(opts: ParallelOptions) {
    this.name = opts.name;
    this.description = opts.description;
    this.steps = toBlocks(opts.steps, "steps");
  }

  async *execute(input: StepInput, scope: RunScope, at: StepPosition): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const count = this.steps.length;
    const place = placeOf(this, at);
    yield workflowEvent(scope, "ParallelExecutionStarted", { ...place, parallel_step_count: count });
    const base = structuredClone(scope.sessionState);
    const states = this.steps.map(() => structuredClone(base));
    const settled = yield* mergeGenerators(
      this.steps.map((block, i) =>
        block.execute(
          input.withState(states[i]!),
          // Branches run at once: no single place to save, so a Parallel is saved only as a whole.
          { ...scope, sessionState: states[i]!, progress: undefined },
          { index: childIndex(at.index, i), parentStepId: id, topLevel: false },
        ),
      ),
    );
    const cancelled = settled.find((s) => !s.ok && isCancellation(s.error, scope));
    if (cancelled && !cancelled.ok) throw cancelled.error;
    let merged = base;
    for (const state of states) merged = applyStateChanges(merged, stateChanges(base, state));
    replaceContents(scope.sessionState, merged);
    const results = settled.map((s, i) => {
      if (s.ok) return s.value;
      const name = this.steps[i]!.name ?? `step_${i}`;
      const message = publicError(s.error, `workflow run ${scope.run.run_id}: parallel step ${name}`).message;
      return new StepOutput({
        step_name: name,
        content: `Step ${name} failed: ${message}`,
        success: false,
        error: message,
      });
    });
    yield workflowEvent(scope, "ParallelExecutionCompleted", {
      ...place,
      parallel_step_count: count,
      step_results: results,
    });
    return new StepOutput({
      step_name: this.name ?? "Parallel",
      step_id: id,
      step_type: "Parallel",
      executor_type: "parallel",
      executor_name: this.name ?? "Parallel",
      content: aggregatedContent(results),
      success: results.every((r) => r.success),
      stop: results.some((r) => r.stop),
      steps: results,
    });
  }
}

/** agno's summary of a Parallel's results, one section per branch. */
function aggregatedContent(results: StepOutput[]): string {
  if (results.length === 0) return "No parallel steps executed";
  let out = "## Parallel Execution Results\n\n";
  results.forEach((r, i) => {
    const text =
      r.content === null || r.content === undefined
        ? ""
        : String(typeof r.content === "string" ? r.content : JSON.stringify(r.content));
    out += `### ${r.success ? "✅ SUCCESS:" : "❌ FAILURE:"} ${r.step_name ?? `Step ${i + 1}`}\n`;
    out += text.trim() ? `${text}\n\n` : "*(No content)*\n\n";
  });
  return out.trim();
}
