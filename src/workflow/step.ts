import type { Component } from "../agent/component.js";
import { errorMessage, ValidationError } from "../errors.js";
import { publicError } from "../public-error.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { isPause, type BlockResume } from "./pause.js";
import { continueExecutor, ExecutorPausedError, runExecutor } from "./run-executor.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import type { Span } from "../tracing/span.js";
import { childScope, type TraceScope } from "../tracing/trace-scope.js";
import { tracedText } from "../tracing/run-spans.js";

/** A function step: given the StepInput, it returns a StepOutput, or any content (a string, say). */
export type StepFunction = (input: StepInput) => unknown;

/** What a Step runs: an Agent (any Component: a Team too) or a function. */
export type StepExecutor = Component | StepFunction;

export interface StepOptions {
  /** a person confirms (or gives input) before it runs: the run pauses there (not inside a Parallel) */
  humanReview?: HumanReview;
  /** the step's name: previous_step_outputs and events use it (default: the function's or the agent's name) */
  name?: string;
  executor: StepExecutor;
  stepId?: string;
  description?: string;
  /** further attempts after a failure (default 3, as agno) */
  maxRetries?: number;
  /** after the last attempt fails, go on with a failed output instead of failing the workflow */
  skipOnFailure?: boolean;
}

/** Whether `value` is a Component (an Agent, a Team, …) rather than a plain function. */
export function isComponent(value: unknown): value is Component {
  return (
    typeof value === "object" && value !== null && "ref" in value && typeof (value as Component).execute === "function"
  );
}

/**
 * One unit of work (agno's Step): runs its executor on the StepInput, retrying a failure up to
 * `maxRetries` times (a cancel is never retried).
 *
 * @example
 * new Step({ name: "research", executor: researcher, maxRetries: 1 })
 * new Step({ name: "count", executor: (input) => String(input.input).length })
 */
export class Step implements WorkflowBlock {
  readonly stepType = "Step" as const;
  readonly name?: string;
  readonly stepId: string;
  readonly description?: string;
  readonly executor: StepExecutor;
  readonly maxRetries: number;
  readonly skipOnFailure: boolean;
  readonly humanReview?: HumanReview;

  constructor(opts: StepOptions) {
    const executor = opts.executor as unknown;
    if (typeof executor !== "function" && !isComponent(executor))
      throw new ValidationError("a Step's executor must be an agent, a team or a function", "executor");
    const maxRetries = opts.maxRetries ?? 3;
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new ValidationError("maxRetries must be a whole number >= 0", "maxRetries");
    this.executor = opts.executor;
    this.name =
      opts.name ??
      (isComponent(opts.executor) ? (opts.executor.ref.name ?? opts.executor.ref.id) : opts.executor.name || undefined);
    this.stepId = opts.stepId ?? crypto.randomUUID();
    this.description =
      opts.description ??
      (isComponent(opts.executor) ? (opts.executor as { description?: string }).description : undefined);
    opts.humanReview?.checkFor("Step");
    this.humanReview = opts.humanReview;
    this.maxRetries = maxRetries;
    this.skipOnFailure = opts.skipOnFailure ?? false;
  }

  /** "function", or the executor's component type ("agent", "team", "workflow"). */
  get executorType(): string {
    return isComponent(this.executor) ? this.executor.ref.type : "function";
  }

  get executorName(): string {
    if (isComponent(this.executor)) return this.executor.ref.name ?? this.executor.ref.id;
    return this.executor.name || "anonymous_function";
  }

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const place = placeOf(this, at);
    const span = scope.trace && this.startSpan(scope.trace);
    if (span && scope.trace) scope = { ...scope, trace: childScope(scope.trace, span.context) };
    try {
      const output = yield* this.attempts(input, scope, at, place, resume);
      span?.setAll({ "output.value": tracedText(output.content), "agno.step.success": output.success !== false });
      if (output.success === false) span?.fail(output.error ?? "step failed");
      else span?.setStatus("OK");
      return output;
    } catch (error) {
      span?.fail(errorMessage(error));
      throw error;
    } finally {
      span?.end();
    }
  }

  /** The span of one execution of the step, under the workflow run's (or the enclosing block's). */
  private startSpan(trace: TraceScope): Span {
    return trace.tracer.startSpan(`${this.name ?? "Step"}.execute`, {
      parent: trace.parent,
      attributes: {
        "openinference.span.kind": "CHAIN",
        "agno.step.id": this.stepId,
        "agno.step.name": this.name,
        "agno.step.executor_type": this.executorType,
        "agno.step.executor_name": this.executorName,
      },
    });
  }

  private async *attempts(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    place: ReturnType<typeof placeOf>,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    yield workflowEvent(scope, "StepStarted", place);
    let output: StepOutput | undefined;
    for (let attempt = 0; output === undefined; attempt++) {
      scope.checkCancelled();
      try {
        // A continued step whose agent paused goes on with that run first; a retry starts afresh.
        output =
          attempt === 0 && resume?.executor
            ? yield* continueExecutor(this, resume.executor, input, scope, at)
            : yield* runExecutor(this, input, scope, at);
      } catch (error) {
        if (isCancellation(error, scope) || isPause(error)) throw error;
        const message = publicError(error, `workflow run ${scope.run.run_id}: step ${this.name}`).message;
        yield workflowEvent(scope, "StepError", { ...place, error: message, attempt: attempt + 1 });
        if (attempt < this.maxRetries && !(error instanceof ExecutorPausedError)) continue;
        if (!this.skipOnFailure) throw error;
        output = new StepOutput({ content: `Step ${this.name} failed but skipped`, success: false, error: message });
      }
    }
    Object.assign(output, {
      step_name: this.name ?? "unnamed_step",
      step_id: this.stepId,
      step_type: "Step",
      executor_type: this.executorType,
      executor_name: this.executorName,
    });
    // As agno: a top-level function step's output is streamed as a StepOutput event too.
    if (at.topLevel && this.executorType === "function")
      yield workflowEvent(scope, "StepOutput", { ...place, step_output: output });
    yield workflowEvent(scope, "StepCompleted", {
      ...place,
      content: output.content,
      content_type: typeof output.content === "string" || output.content === null ? "str" : "dict",
      step_response: output,
    });
    return output;
  }
}
