import { abortLocal, cancelStoredRun, registerRun, RunCancelledSignal, watchForCancel } from "../agent/cancellation.js";
import {
  ownsRun,
  type Component,
  type ComponentRef,
  type ComponentRunInput,
  type RunEndHook,
} from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import { DEFAULT_HEARTBEAT_SECONDS, keepRunAlive } from "../agent/liveness.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import type { RunRecord } from "../db/types.js";
import { mergeState } from "../db/state-changes.js";
import { ConflictError, NotConfiguredError, NotFoundError, StatusConflictError, ValidationError } from "../errors.js";
import { checkJson } from "../json-limits.js";
import { nowSeconds } from "../time.js";
import { workflowEvent, type RunScope } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { executeSteps, summarize, type StepsEnd, type StepsResume } from "./execute-steps.js";
import { resolveRequirement, type StepRequirementResolution } from "./step-requirement.js";
import { checkReviewsAtTopLevel } from "./inner-blocks.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { asText } from "./deepest-content.js";
import { toBlocks, type StepLike } from "./to-block.js";
import type { WorkflowBlock } from "./block.js";
import { loadWorkflowSession, workflowStateSaver } from "./workflow-session.js";
import { publicError } from "../public-error.js";

export interface WorkflowOptions {
  /** stable id (default: derived from the name) */
  id?: string;
  name: string;
  description?: string;
  /** run in order; agents and functions are made Steps */
  steps: StepLike[];
  /** where runs and sessions are stored; without it nothing is persisted */
  db?: Db;
  /** the initial session state; steps may change it and it is stored with the session */
  sessionState?: Record<string, unknown>;
  /** stored with every run */
  metadata?: Record<string, unknown>;
  /** how often cancels from elsewhere are looked for (ms, default 500) */
  cancelPollMs?: number;
  /** how often a running run marks its row alive (seconds, default 10) */
  heartbeatSeconds?: number;
}

export interface WorkflowContinueOptions {
  /** the decision on the step the run waits on: `{ step_id, confirmed, user_input }` */
  stepRequirements: StepRequirementResolution[];
  /** the run must belong to this user */
  userId?: string;
  stream?: boolean;
}

export interface WorkflowRunOptions {
  sessionId?: string;
  userId?: string;
  runId?: string;
  /** merged over the stored session state for this run */
  sessionState?: Record<string, unknown>;
  /** handed to every step as `additional_data` */
  additionalData?: Record<string, unknown>;
  /** stored with the run */
  metadata?: Record<string, unknown>;
  stream?: boolean;
}

/**
 * A workflow (agno's Workflow): steps run in order on one input, sharing a session state, stored
 * as one run (run_type "workflow") of a workflow session.
 *
 * @example
 * const flow = new Workflow({ name: "blog", steps: [researcher, new Step({ name: "edit", executor: edit })], db });
 * const out = await flow.run("Write about tides");
 * for await (const ev of flow.run("Again", { stream: true })) console.log(ev.event);
 */
export class Workflow implements Component {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly db?: Db;
  readonly steps: WorkflowBlock[];
  readonly heartbeatSeconds: number;
  private readonly opts: WorkflowOptions;

  constructor(opts: WorkflowOptions) {
    if (typeof opts.name !== "string" || opts.name === "") throw new ValidationError("a Workflow needs a name", "name");
    this.opts = opts;
    this.name = opts.name;
    this.description = opts.description;
    this.id =
      opts.id ??
      opts.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
    this.steps = toBlocks(opts.steps, "steps");
    checkReviewsAtTopLevel(this.steps);
    this.db = opts.db;
    this.heartbeatSeconds = opts.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
    if (!(this.heartbeatSeconds > 0)) throw new ValidationError("heartbeatSeconds must be > 0", "heartbeatSeconds");
  }

  get ref(): ComponentRef {
    return { type: "workflow", id: this.id, name: this.name };
  }

  /** The same workflow storing through another Db. */
  withDb(db: Db): Workflow {
    if (db === this.db) return this;
    const bound = Object.create(Workflow.prototype) as Workflow;
    Object.assign(bound, this, { db });
    return bound;
  }

  /**
   * Runs the workflow: its WorkflowRunOutput, or with `stream: true` its events (agno's workflow
   * events, and the events of the agents its steps run). Bad input throws before anything is stored.
   */
  run(input: unknown, opts: WorkflowRunOptions & { stream: true }): AsyncIterable<WorkflowStreamEvent>;
  run(input: unknown, opts?: WorkflowRunOptions & { stream?: false }): Promise<WorkflowRunOutput>;
  run(input: unknown, opts?: WorkflowRunOptions): Promise<WorkflowRunOutput> | AsyncIterable<WorkflowStreamEvent>;
  run(input: unknown, opts: WorkflowRunOptions = {}): Promise<WorkflowRunOutput> | AsyncIterable<WorkflowStreamEvent> {
    let events: AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput>;
    try {
      events = this.start(input, opts);
    } catch (error) {
      if (opts.stream) throw error;
      return Promise.reject(error);
    }
    return opts.stream ? events : drain(events);
  }

  /**
   * One run as the queue runs a component. Its events are workflow events (typed as RunEvent for
   * the Component contract) and its return value a WorkflowRunOutput.
   */
  execute(input: ComponentRunInput): AsyncGenerator<RunEvent, RunOutput> {
    const { message, onFinalWrite, stream, ...opts } = input;
    if (typeof message !== "string") throw new ValidationError("input must be a string", "message");
    return this.start(message, { ...opts, stream }, onFinalWrite) as unknown as AsyncGenerator<RunEvent, RunOutput>;
  }

  /** Cancels a run from anywhere (as Agent.cancelRun): false when it had already ended. */
  async cancelRun(runId: string, opts: { userId?: string } = {}): Promise<boolean> {
    if (!this.db) return abortLocal(runId, "cancelled");
    return cancelStoredRun(this.db, this.ref, runId, opts);
  }

  private start(
    input: unknown,
    opts: WorkflowRunOptions,
    onFinalWrite?: RunEndHook,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    if (input === undefined || input === null) throw new ValidationError("input is required", "input");
    checkJson(input, "input");
    for (const field of ["sessionState", "additionalData", "metadata"] as const) {
      const value = opts[field] as unknown;
      if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value)))
        throw new ValidationError(`${field} must be an object`, field);
      checkJson(value, field);
    }
    return this.runSteps(input, opts, onFinalWrite);
  }

  private async *runSteps(
    input: unknown,
    opts: WorkflowRunOptions,
    onFinalWrite?: RunEndHook,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    const db = this.db;
    const runId = opts.runId ?? crypto.randomUUID();
    const sessionId = opts.sessionId ?? crypto.randomUUID();
    const userId = opts.userId ?? null;
    const loaded = await loadWorkflowSession(db, this.ref, {
      sessionId,
      userId,
      runId: opts.runId,
      newId: opts.sessionId === undefined,
      name: asText(input),
      defaults: this.opts.sessionState ?? {},
    });
    // As agno and agent runs: the run's own state over the stored one, over the workflow's defaults.
    const sessionState = mergeState({ ...this.opts.sessionState, ...loaded.state }, opts.sessionState ?? {});
    const saveState = workflowStateSaver(db, sessionId, loaded.state);
    const metadata = this.opts.metadata || opts.metadata ? { ...this.opts.metadata, ...opts.metadata } : undefined;
    const output: WorkflowRunOutput = {
      run_id: runId,
      workflow_id: this.id,
      workflow_name: this.name,
      session_id: sessionId,
      user_id: userId,
      status: "RUNNING",
      input,
      content: null,
      content_type: "str",
      step_results: [],
      step_executor_runs: [],
      metrics: { steps: {} },
      session_state: sessionState,
      ...(metadata ? { metadata } : {}),
      ...(opts.additionalData ? { additional_data: opts.additionalData } : {}),
      created_at: nowSeconds(),
    };
    if (loaded.run?.status === "CANCELLED") {
      // Cancelled before it started (a queued run): it never runs.
      output.status = "CANCELLED";
      output.content = "cancelled before start";
      const scope = this.scope(output, new AbortController());
      yield workflowEvent(scope, "WorkflowCancelled", {
        reason: "cancelled before start",
        content: "cancelled before start",
      });
      return output;
    }
    if (loaded.run && loaded.run.status !== "PENDING") throw new ConflictError(`run ${runId} already exists`);
    if (db) {
      if (loaded.create) await db.createSession(loaded.create);
      await db.upsertRun(record(output), { expectStatus: ["PENDING", "RUNNING"] });
      if (opts.sessionState) await saveState(sessionState);
    }
    return yield* this.drive(output, saveState, onFinalWrite);
  }

  /**
   * Resumes a run paused by a HumanReview, from any process (everything is read from storage):
   * `stepRequirements` holds the person's decision on the step it waits on (`confirmed`, and
   * `user_input` when it asked for input). A rejection does what the review's `onReject` says:
   * skip the step, cancel the run, or (a Condition) run its else branch.
   */
  continueRun(runId: string, opts: WorkflowContinueOptions & { stream: true }): AsyncIterable<WorkflowStreamEvent>;
  continueRun(runId: string, opts: WorkflowContinueOptions & { stream?: false }): Promise<WorkflowRunOutput>;
  continueRun(
    runId: string,
    opts: WorkflowContinueOptions,
  ): Promise<WorkflowRunOutput> | AsyncIterable<WorkflowStreamEvent>;
  continueRun(
    runId: string,
    opts: WorkflowContinueOptions,
  ): Promise<WorkflowRunOutput> | AsyncIterable<WorkflowStreamEvent> {
    const events = this.resume(runId, opts);
    return opts.stream ? events : drain(events);
  }

  private async *resume(
    runId: string,
    opts: WorkflowContinueOptions,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    const db = this.db;
    if (!db) throw new NotConfiguredError("continuing a workflow run needs the workflow to have a db");
    if (!Array.isArray(opts.stepRequirements))
      throw new ValidationError("stepRequirements must be a list", "step_requirements");
    const row = await db.getRun(runId, opts.userId !== undefined ? { userId: opts.userId } : {});
    if (!row || !ownsRun(this.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
    if (row.status !== "PAUSED") throw new StatusConflictError(`run ${runId} is ${row.status}, not PAUSED`, row.status);
    const output = row.run_data as unknown as WorkflowRunOutput;
    const active = output.step_requirements?.at(-1);
    const index = output.paused_step_index;
    const block = index !== null && index !== undefined ? this.steps[index] : undefined;
    if (!active || !block || (block.name ?? null) !== (output.paused_step_name ?? null))
      throw new ConflictError(`run ${runId} paused at a step this workflow no longer has at that place`);
    const resolution = (opts.stepRequirements as StepRequirementResolution[]).find(
      (r) => r?.step_id === active.step_id,
    );
    if (!resolution)
      throw new ValidationError(
        `the run waits on step ${active.step_id} (${active.step_name}): resolve it`,
        "step_requirements",
      );
    resolveRequirement(active, resolution);
    output.status = "RUNNING";
    output.paused_step_index = null;
    output.paused_step_name = null;
    output.pause_kind = null;
    // Only one continue goes on: the others find the run no longer PAUSED.
    await db.upsertRun(record(output), { expectStatus: ["PAUSED"] });
    const session = await db.getSession(output.session_id, { includeRuns: false });
    const state = {
      ...((session?.record.session_data?.session_state as Record<string, unknown> | undefined) ??
        output.session_state ??
        {}),
    };
    output.session_state = state;
    const saveState = workflowStateSaver(db, output.session_id, state);
    if (active.confirmed === false && active.on_reject === "cancel") {
      const scope = this.scope(output, new AbortController());
      return yield* this.cancelled(
        output,
        scope,
        saveState,
        `Workflow cancelled: Step '${active.step_name}' was rejected`,
      );
    }
    return yield* this.drive(output, saveState, undefined, { startIndex: index!, requirement: active });
  }

  private scope(output: WorkflowRunOutput, controller: AbortController): RunScope {
    return {
      workflow: this.ref,
      run: output,
      userId: output.user_id,
      sessionState: output.session_state ?? {},
      signal: controller.signal,
      executorRuns: new Set(),
      checkCancelled() {
        if (controller.signal.aborted) throw controller.signal.reason ?? new RunCancelledSignal("cancelled");
      },
    };
  }

  /** Runs the steps of a stored RUNNING run (from `resume`'s step when continued) and stores how it ended. */
  private async *drive(
    output: WorkflowRunOutput,
    saveState: (s: Record<string, unknown>) => Promise<void>,
    onFinalWrite?: RunEndHook,
    resume?: StepsResume,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    const db = this.db;
    const runId = output.run_id;
    const controller = new AbortController();
    const scope = this.scope(output, controller);
    const started = performance.now();
    const before = output.metrics.duration ?? 0;
    const elapsed = () => before + (performance.now() - started) / 1000;
    const unregister = registerRun(runId, controller);
    const unwatch = db ? watchForCancel(db, runId, controller, this.opts.cancelPollMs ?? 500) : () => undefined;
    const stopBeat = db ? keepRunAlive(db, runId, this.heartbeatSeconds * 1000) : () => undefined;
    // A cancel reaches the agent runs in flight at once.
    const onAbort = () => scope.executorRuns.forEach((id) => abortLocal(id, "cancelled"));
    controller.signal.addEventListener("abort", onAbort);
    try {
      if (!resume) yield workflowEvent(scope, "WorkflowStarted", {});
      let end: StepsEnd;
      try {
        end = yield* executeSteps(this.steps, output.input, output.additional_data ?? {}, scope, resume);
        summarize(output);
      } catch (error) {
        summarize(output);
        output.metrics = { ...output.metrics, duration: elapsed() };
        if (isCancellation(error, scope)) return yield* this.cancelled(output, scope, saveState);
        return yield* this.failed(output, scope, error, saveState);
      }
      output.metrics = { ...output.metrics, duration: elapsed() };
      if (end.paused) {
        const req = end.requirement;
        output.status = "PAUSED";
        output.content = null;
        output.step_requirements = [...(output.step_requirements ?? []), req];
        output.paused_step_index = req.step_index;
        output.paused_step_name = req.step_name;
        output.pause_kind = "step";
      } else output.status = "COMPLETED";
      await saveState(scope.sessionState);
      try {
        if (db) await writeFinal(db, output, onFinalWrite);
      } catch (error) {
        if (error instanceof StatusConflictError && error.actual === "CANCELLED")
          return yield* this.cancelled(output, scope, async () => undefined);
        return yield* this.failed(output, scope, error, async () => undefined);
      }
      if (end.paused) {
        const req = end.requirement;
        const place = { step_name: req.step_name ?? undefined, step_index: req.step_index, step_id: req.step_id };
        yield workflowEvent(scope, "StepPaused", {
          ...place,
          requires_confirmation: req.requires_confirmation,
          confirmation_message: req.confirmation_message,
          requires_user_input: req.requires_user_input,
          user_input_message: req.user_input_message,
          user_input_schema: req.user_input_schema,
        });
        yield workflowEvent(scope, "WorkflowPaused", {
          status: "PAUSED",
          paused_step_index: req.step_index,
          paused_step_name: req.step_name,
          pause_kind: "step",
          step_requirements: output.step_requirements!,
          step_results: output.step_results,
          step_executor_runs: output.step_executor_runs,
        });
        return output;
      }
      yield workflowEvent(scope, "WorkflowCompleted", {
        content: output.content,
        content_type: output.content_type,
        step_results: output.step_results,
        step_executor_runs: output.step_executor_runs,
        metrics: output.metrics,
        ...(output.metadata ? { metadata: output.metadata } : {}),
      });
      return output;
    } finally {
      controller.signal.removeEventListener("abort", onAbort);
      stopBeat();
      unwatch();
      unregister();
    }
  }

  private async *cancelled(
    output: WorkflowRunOutput,
    scope: RunScope,
    saveState: (s: Record<string, unknown>) => Promise<void>,
    reason = "cancelled",
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    output.status = "CANCELLED";
    output.content = reason;
    await this.storeEnd(output, saveState, ["RUNNING", "CANCELLED"]);
    yield workflowEvent(scope, "WorkflowCancelled", { reason, content: reason });
    return output;
  }

  /** Ends the run as an ERROR carrying the public form of `error` (never SQL or a stack). */
  private async *failed(
    output: WorkflowRunOutput,
    scope: RunScope,
    error: unknown,
    saveState: (s: Record<string, unknown>) => Promise<void>,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    const shown = publicError(error, `workflow run ${output.run_id}`);
    output.status = "ERROR";
    output.content = shown.message;
    output.error = { message: shown.message, type: shown.type };
    await this.storeEnd(output, saveState, ["RUNNING"]);
    yield workflowEvent(scope, "WorkflowError", {
      error: shown.message,
      error_type: shown.type,
      error_id: shown.errorId,
    });
    return output;
  }

  /** Stores a run's end; a failure here is logged, and the heartbeat's silence lets the sweep end the row. */
  private async storeEnd(
    output: WorkflowRunOutput,
    saveState: (s: Record<string, unknown>) => Promise<void>,
    expect: string[],
  ): Promise<void> {
    try {
      await saveState(output.session_state ?? {});
      if (this.db) await this.db.upsertRun(record(output), { expectStatus: expect });
    } catch (error) {
      publicError(error, `workflow run ${output.run_id}: storing its end`);
    }
  }
}

/** The run as a row's `run_data`: plain JSON, stamped now. */
function record(output: WorkflowRunOutput): RunRecord {
  output.updated_at = nowSeconds();
  return JSON.parse(JSON.stringify(output)) as RunRecord;
}

/** The write that ends a completed run (from RUNNING): the caller's hook when it has one. */
async function writeFinal(db: Db, output: WorkflowRunOutput, hook?: RunEndHook): Promise<void> {
  const run = record(output);
  if (hook && (await hook(run, ["RUNNING"]))) return;
  await db.upsertRun(run, { expectStatus: ["RUNNING"] });
}

async function drain<T, R>(events: AsyncGenerator<T, R>): Promise<R> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}
