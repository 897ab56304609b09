import { abortLocal } from "../agent/cancellation.js";
import type { Component } from "../agent/component.js";
import type { RunOutput } from "../agent/run-output.js";
import { BadRequestError } from "../errors.js";
import type { RunScope, StepPosition } from "./block.js";
import { asText, deepestContent } from "./deepest-content.js";
import type { StepExecutorEvent, WorkflowStreamEvent } from "./events.js";
import type { StepExecutorRun } from "./run-output.js";
import type { Step, StepFunction } from "./step.js";
import { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";

/** One attempt of a Step's executor: a thrown error is the attempt's failure. */
export async function* runExecutor(
  step: Step,
  input: StepInput,
  scope: RunScope,
  at: StepPosition,
): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
  if (typeof step.executor === "function") return await callFunction(step.executor, input);
  return yield* runComponent(step, step.executor, input, scope, at);
}

async function callFunction(fn: StepFunction, input: StepInput): Promise<StepOutput> {
  const result = await fn(input);
  if (result instanceof StepOutput) return result;
  // agno keeps only text; any JSON value is kept as the content here (a dict content is agno's too).
  return new StepOutput({ content: result ?? null });
}

/**
 * Runs an agent (or any component) as agno's Step does: its message is the previous step's
 * (deepest) content, else the workflow's input; it works on a copy of the session state that
 * becomes the workflow's when it ends. Its run is kept in the workflow run's
 * `step_executor_runs` with `parent_run_id` and `workflow_step_id`, as agno keeps it, and not
 * stored apart: the executor runs without its db, so no agent run lands in the workflow's session.
 */
async function* runComponent(
  step: Step,
  executor: Component,
  input: StepInput,
  scope: RunScope,
  at: StepPosition,
): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
  const last = Object.values(input.previous_step_outputs).at(-1);
  const previous = last ? deepestContent(last) : undefined;
  let message = asText(previous !== undefined && previous !== null && previous !== "" ? previous : input.input);
  // What a person gave a step that asked for input reaches its agent as agno words it.
  const userInput = input.additional_data.user_input;
  if (userInput && typeof userInput === "object") {
    const lines = Object.entries(userInput).map(([k, v]) => `- ${k}: ${asText(v)}`);
    message = `${message ? `${message}\n\n` : ""}User preferences:\n${lines.join("\n")}`;
  }
  // A rejected output review run again: the agent sees what it gave and why it was rejected, as agno words it.
  const { previous_output: before, rejection_feedback: feedback } = input.additional_data;
  if (typeof before === "string") message = `${message ? `${message}\n\n` : ""}Your previous output:\n${before}`;
  if (typeof feedback === "string") message = `${message}\n\nFeedback from reviewer:\n${feedback}`;
  const run = yield* runAgent(executor, message, input.session_state, scope, {
    stepId: step.stepId,
    stepName: step.name,
    index: at.index,
  });
  if (run.session_state) replaceContents(input.session_state, run.session_state);
  if (run.status === "PAUSED") throw new ExecutorPausedError(step.name, executor.ref.type);
  const failed = run.status === "ERROR" || run.status === "CANCELLED";
  return new StepOutput({
    content: run.content ?? null,
    step_run_id: run.run_id,
    metrics: run.metrics,
    success: !failed,
    error: failed ? asText(run.content) : null,
  });
}

/**
 * Runs an agent (or any component) for a block of the workflow: its events are streamed with
 * the workflow's context, its run is kept in the workflow run's `step_executor_runs` with
 * `parent_run_id` and `workflow_step_id` (as agno keeps it), and it works on a copy of
 * `sessionState` (the caller decides what becomes of its changes). A cancel of the workflow
 * reaches it; once it ends, the cancel is thrown.
 */
export async function* runAgent(
  executor: Component,
  message: string,
  sessionState: Record<string, unknown>,
  scope: RunScope,
  block: { stepId: string; stepName?: string; index: StepPosition["index"] },
): AsyncGenerator<WorkflowStreamEvent, RunOutput> {
  const runId = crypto.randomUUID();
  const events = detached(executor).execute({
    message,
    runId,
    sessionId: scope.run.session_id,
    ...(scope.userId !== null ? { userId: scope.userId } : {}),
    sessionState: structuredClone(sessionState),
    stream: true,
  });
  scope.executorRuns.add(runId);
  // A cancel that came while the agent was being set up reaches it too.
  if (scope.signal.aborted) abortLocal(runId, "cancelled");
  let run: RunOutput;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        run = next.value;
        break;
      }
      const event: StepExecutorEvent = {
        ...next.value,
        session_id: scope.run.session_id,
        workflow_run_id: scope.run.run_id,
        step_id: block.stepId,
        ...(block.stepName !== undefined ? { step_name: block.stepName } : {}),
        step_index: block.index,
      };
      yield event;
    }
  } finally {
    scope.executorRuns.delete(runId);
  }
  const kept: StepExecutorRun = { ...run, parent_run_id: scope.run.run_id, workflow_step_id: block.stepId };
  scope.run.step_executor_runs.push(kept);
  scope.checkCancelled();
  return run;
}

/** The same component without a db (see runComponent). */
function detached(executor: Component): Component {
  if (!executor.db) return executor;
  return Object.assign(Object.create(Object.getPrototypeOf(executor) as object) as Component, executor, {
    db: undefined,
  });
}

/** Makes `target` hold what `source` holds, in place (others hold references to it). */
export function replaceContents(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) if (!(key in source)) delete target[key];
  Object.assign(target, source);
}

/**
 * A step's agent paused for a person (a tool that needs confirmation or input): the workflow
 * cannot pause for that yet, so the step fails, and is not tried again (it would pause again).
 */
export class ExecutorPausedError extends BadRequestError {
  constructor(stepName: string | undefined, executorType: string) {
    super(
      `step ${stepName}: the ${executorType} paused for a person (its tools need confirmation or input); workflows do not pause for that yet`,
    );
  }
}
