import { abortLocal } from "../agent/cancellation.js";
import type { Component } from "../agent/component.js";
import type { RunOutput } from "../agent/run-output.js";
import type { RunEvent } from "../agent/events.js";
import { BadRequestError, ConflictError } from "../errors.js";
import type { RunScope, StepPosition } from "./block.js";
import { asText, deepestContent } from "./deepest-content.js";
import type { StepExecutorEvent, WorkflowStreamEvent } from "./events.js";
import { PauseSignal } from "./pause.js";
import type { StepExecutorRun } from "./run-output.js";
import { HumanReview } from "./human-review.js";
import { stepRequirement, type StepRequirement } from "./step-requirement.js";
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
  return stepOutputOf(step, executor, run, input, at);
}

/** A Step's executor that can go on with a paused run it is handed (an Agent, without its db). */
interface HeldRunHost extends Component {
  continueHeldRun(run: RunOutput, state: Record<string, unknown>, stream: boolean): AsyncGenerator<RunEvent, RunOutput>;
}

function canHold(executor: Component): executor is HeldRunHost {
  return typeof (executor as Partial<HeldRunHost>).continueHeldRun === "function";
}

/** What an agent's ended (or paused) run makes of its step: a paused one pauses the workflow, as agno's. */
function stepOutputOf(step: Step, executor: Component, run: RunOutput, input: StepInput, at: StepPosition): StepOutput {
  if (run.session_state) replaceContents(input.session_state, run.session_state);
  if (run.status === "PAUSED") {
    if (!canHold(executor)) throw new ExecutorPausedError(step.name, executor.ref.type);
    throw new PauseSignal(executorRequirement(step, executor, run, at));
  }
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
 * A continued workflow back at the step whose agent paused: the agent's held run (kept in
 * `step_executor_runs`) takes the resolved requirements and goes on (agno's
 * `_route_executor_requirements`); requirements left unresolved pause the workflow again.
 */
export async function* continueExecutor(
  step: Step,
  req: StepRequirement,
  input: StepInput,
  scope: RunScope,
  at: StepPosition,
): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
  const executor = step.executor;
  const held = scope.run.step_executor_runs.find((r) => r.run_id === req.executor_run_id);
  if (!held || typeof executor === "function" || !canHold(executor))
    throw new ConflictError(`step ${step.name}: its paused ${req.executor_type ?? "agent"} run is gone`);
  const resolved = new Map((req.executor_requirements ?? []).map((r) => [r.id, r]));
  const { parent_run_id: _p, workflow_step_id: _w, ...run } = held;
  run.requirements = (run.requirements ?? []).map((r) => resolved.get(r.id) ?? r);
  const state = structuredClone(input.session_state);
  const events = (detached(executor) as HeldRunHost).continueHeldRun(run as RunOutput, state, true);
  const ended = yield* followRun(events, run.run_id, scope, {
    stepId: step.stepId,
    stepName: step.name,
    index: at.index,
  });
  return stepOutputOf(step, executor, ended, input, at);
}

/** The requirement a step's paused agent run makes (agno's `_create_executor_step_requirement`). */
const NO_REVIEW = new HumanReview({});

function executorRequirement(step: Step, executor: Component, run: RunOutput, at: StepPosition): StepRequirement {
  const path = typeof at.index === "number" ? [at.index] : at.index;
  // A review with nothing asked of the person: the agent's own requirements are what is asked.
  const base = stepRequirement(NO_REVIEW, {
    stepId: step.stepId,
    name: step.name ?? null,
    index: path[path.length - 1]!,
    path,
    stepType: "Step",
  });
  return {
    ...base,
    max_retries: null,
    // Only the unresolved ones: an earlier pause's resolved requirements are history.
    requires_executor_input: true,
    executor_requirements: (run.requirements ?? []).filter((r) => !r.resolved),
    executor_id: executor.ref.id,
    executor_name: executor.ref.name ?? null,
    executor_run_id: run.run_id,
    executor_type: executor.ref.type,
    executor_session_id: run.session_id,
  };
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
    ...(scope.trace ? { trace: scope.trace } : {}),
  });
  return yield* followRun(events, runId, scope, block);
}

/**
 * Streams an agent run's events with the workflow's context and keeps the run in the workflow
 * run's `step_executor_runs` (in its earlier place when it is a continued one).
 */
async function* followRun(
  events: AsyncGenerator<RunEvent, RunOutput>,
  runId: string,
  scope: RunScope,
  block: { stepId: string; stepName?: string; index: StepPosition["index"] },
): AsyncGenerator<WorkflowStreamEvent, RunOutput> {
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
  const runs = scope.run.step_executor_runs;
  const earlier = runs.findIndex((r) => r.run_id === run.run_id);
  if (earlier >= 0) runs[earlier] = kept;
  else runs.push(kept);
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
 * A step's team paused for a person (a member's tool that needs confirmation or input): the
 * workflow pauses for an agent's only, so the step fails, and is not tried again (it would pause again).
 */
export class ExecutorPausedError extends BadRequestError {
  constructor(stepName: string | undefined, executorType: string) {
    super(
      `step ${stepName}: the ${executorType} paused for a person (its tools need confirmation or input); workflows pause for an agent's tools only, not yet a ${executorType}'s`,
    );
  }
}
