import { identityOf, type ComponentRef } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import { nowSeconds } from "../time.js";
import { TaskList } from "./task-list.js";
import type { TeamRunState } from "./team-run-state.js";

const base = (ref: ComponentRef, run: Pick<RunOutput, "run_id" | "session_id">) => ({
  run_id: run.run_id,
  session_id: run.session_id,
  ...identityOf(ref),
  created_at: nowSeconds(),
});

/** agno's TeamTaskIterationStarted for round `iteration`. */
export function roundStarted(
  ref: ComponentRef,
  run: Pick<RunOutput, "run_id" | "session_id">,
  iteration: number,
  maxIterations: number,
): RunEvent {
  return { event: "TeamTaskIterationStarted", ...base(ref, run), iteration, max_iterations: maxIterations };
}

/**
 * `tasks` mode, after the leader answered: the round's events (the task list's state, the round
 * ended, the next one started) and, unless the goal is marked complete, every task ended well, or
 * the rounds ran out, the message that starts the next round (agno's task loop).
 */
export function nextRound(
  ref: ComponentRef,
  output: RunOutput,
  sessionState: Record<string, unknown>,
  state: TeamRunState,
  maxIterations: number,
): { message: string | null; events: RunEvent[] } {
  state.rounds++;
  const list = TaskList.load(sessionState);
  const summary = list.summary();
  const events: RunEvent[] = [
    {
      event: "TeamTaskStateUpdated",
      ...base(ref, output),
      task_summary: summary,
      goal_complete: list.goalComplete,
      tasks: list.tasks.map((t) => ({
        id: t.id,
        title: t.title,
        description: t.description,
        status: t.status,
        assignee: t.assignee,
        dependencies: t.dependencies,
        result: t.result,
      })),
      completion_summary: list.completionSummary,
    },
    {
      event: "TeamTaskIterationCompleted",
      ...base(ref, output),
      iteration: state.rounds,
      max_iterations: maxIterations,
      task_summary: summary,
    },
  ];
  const done =
    state.rounds >= maxIterations ||
    list.goalComplete ||
    (list.allTerminal() && !list.tasks.some((t) => t.status === "failed"));
  if (done) return { message: null, events };
  events.push(roundStarted(ref, output, state.rounds + 1, maxIterations));
  return {
    message:
      `<current_task_state>\n${summary}\n</current_task_state>\n\n` +
      "Continue working on the tasks. Create, execute, or update tasks as needed. " +
      "When all tasks are done, call `mark_all_complete` with a summary.",
    events,
  };
}
