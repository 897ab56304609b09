import type { PendingView, RunView } from "./run-state.js";

/** How a pending requirement was answered in the page. */
export interface Answer {
  confirmed: boolean;
  values: Record<string, string>;
}

/** One requirement's resolution as `/continue` takes it: the input it asked for, or the decision. */
function resolution(p: PendingView, answer: Answer | undefined) {
  if (p.fields.length > 0 && !p.confirm) return { id: p.id, user_input: answer?.values ?? {} };
  return { id: p.id, confirmed: answer?.confirmed ?? false };
}

/** An agent's or team's continue: `requirements`, one resolution per pending requirement. */
export function requirementResolutions(run: RunView, answers: Map<string, Answer>) {
  return run.pending.map((p) => resolution(p, answers.get(p.key)));
}

/** A workflow's continue: one entry per paused step, its own decision or its agent's requirements. */
export function stepResolutions(run: RunView, answers: Map<string, Answer>) {
  const byStep = new Map<string, Record<string, unknown>>();
  for (const p of run.pending) {
    const answer = answers.get(p.key);
    if (p.source === "executor") {
      const entry = byStep.get(p.stepId!) ?? { step_id: p.stepId!, executor_requirements: [] };
      (entry.executor_requirements as unknown[]).push(resolution(p, answer));
      byStep.set(p.stepId!, entry);
    } else
      byStep.set(p.id, {
        step_id: p.id,
        confirmed: answer?.confirmed ?? false,
        ...(p.fields.length > 0 && { user_input: answer?.values ?? {} }),
      });
  }
  return [...byStep.values()];
}
