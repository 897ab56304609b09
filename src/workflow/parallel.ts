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
import { isPause, PauseSignal, type BlockResume, type PauseFrame } from "./pause.js";
import { runBlock } from "./run-block.js";

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

  private failed(i: number, error: unknown, scope: RunScope): StepOutput {
    const name = this.steps[i]!.name ?? `step_${i}`;
    const message = publicError(error, `workflow run ${scope.run.run_id}: parallel step ${name}`).message;
    return new StepOutput({
      step_name: name,
      content: `Step ${name} failed: ${message}`,
      success: false,
      error: message,
    });
  }

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const count = this.steps.length;
    const place = placeOf(this, at);
    // A continued run keeps the branches that ended (they do not run again) and goes back into the paused one.
    const frame = resume?.point?.frames[0];
    const saved = frame?.state as ParallelState | undefined;
    const done: Record<string, StepOutput | null> = { ...(saved?.done ?? {}) };
    const waiting: ParallelState["waiting"] = { ...(saved?.waiting ?? {}) };
    if (!frame) yield workflowEvent(scope, "ParallelExecutionStarted", { ...place, parallel_step_count: count });
    const base = structuredClone(scope.sessionState);
    const states = this.steps.map(() => structuredClone(base));
    const branches = this.steps.map((block, i) => ({ block, i })).filter(({ i }) => !(String(i) in done));
    const settled = yield* mergeGenerators(
      branches.map(({ block, i }) => {
        const branchAt = { index: childIndex(at.index, i), parentStepId: id, topLevel: false };
        const point =
          frame && frame.index === i ? { ...resume!.point!, frames: resume!.point!.frames.slice(1) } : undefined;
        const held = waiting[String(i)];
        // A branch that paused too while another was waited on: its pause comes back as it was, no step of it runs again.
        if (!point && held) return pausedAgain(held);
        // Branches run at once: no single place to save, so a Parallel is saved only as a whole.
        const branchScope = { ...scope, sessionState: states[i]!, progress: undefined };
        return runBlock(block, input.withState(states[i]!), branchScope, branchAt, point);
      }),
    );
    const cancelled = settled.find((s) => !s.ok && isCancellation(s.error, scope));
    if (cancelled && !cancelled.ok) throw cancelled.error;
    let merged = base;
    for (const state of states) merged = applyStateChanges(merged, stateChanges(base, state));
    replaceContents(scope.sessionState, merged);
    const paused: Array<{ i: number; signal: PauseSignal }> = [];
    settled.forEach((s, k) => {
      const i = branches[k]!.i;
      delete waiting[String(i)];
      if (s.ok) done[String(i)] = s.value;
      else if (isPause(s.error)) paused.push({ i, signal: s.error });
      else done[String(i)] = this.failed(i, s.error, scope);
    });
    if (paused.length > 0) {
      // One review at a time: the first branch's; the others wait in the Parallel's frame.
      const [first, ...rest] = paused;
      for (const { i, signal } of rest) waiting[String(i)] = { requirement: signal.requirement, frames: signal.frames };
      first!.signal.frames.unshift({
        step_type: "Parallel",
        step_name: this.name ?? null,
        index: first!.i,
        results: [],
        state: { done, waiting },
      });
      throw first!.signal;
    }
    const results = this.steps
      .map((_, i) => done[String(i)])
      .filter((r): r is StepOutput => r !== null && r !== undefined);
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

/** What a paused Parallel keeps: the branches that ended (null: skipped), and the pauses still waiting their turn. */
interface ParallelState {
  done: Record<string, StepOutput | null>;
  waiting: Record<string, { requirement: PauseSignal["requirement"]; frames: PauseFrame[] }>;
}

/** A branch's pause held while another was reviewed, thrown again as it was. */
// eslint-disable-next-line require-yield
async function* pausedAgain(held: ParallelState["waiting"][string]): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
  const signal = new PauseSignal(held.requirement);
  signal.frames.push(...held.frames);
  throw signal;
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
