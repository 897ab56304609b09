import { abortLocal, cancelStoredRun } from "../agent/cancellation.js";
import type { StoredOrigin } from "../agent/stored-origin.js";
import { recordRunEvents } from "../agent/event-log.js";
import type {
  Component,
  ComponentRef,
  ComponentResumeInput,
  ComponentRunInput,
  RunEndHook,
} from "../agent/component.js";
import type { StepRequirementResolution } from "./step-requirement.js";
import type { RunEvent } from "../agent/events.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "../agent/liveness.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import { mergeState } from "../db/state-changes.js";
import { ConflictError, ValidationError } from "../errors.js";
import { checkJson } from "../json-limits.js";
import { nowSeconds } from "../time.js";
import { workflowEvent, type WorkflowBlock } from "./block.js";
import { continueWorkflowRun, timeOutWorkflowRun, type WorkflowContinueOptions } from "./continue-run.js";
import { asText } from "./deepest-content.js";
import type { WorkflowStreamEvent } from "./events.js";
import { record, RunDriver } from "./run-driver.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { toBlocks, type StepLike } from "./to-block.js";
import { loadWorkflowSession, workflowStateSaver } from "./workflow-session.js";
import type { TraceScope } from "../tracing/trace-scope.js";

export type { WorkflowContinueOptions } from "./continue-run.js";

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
  /** set by the builder of stored configs (components as data): the version and stage built */
  stored?: StoredOrigin;
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
  /**
   * Saves a checkpoint in the run's row as each step ends, so the run, started again with the
   * same `runId` after its process died, goes on after the last step that ended. The queue's
   * runs are always durable.
   */
  durable?: boolean;
  /** traces the run (its span, each step's, and the agents' runs inside them) under this span */
  trace?: TraceScope;
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
  readonly stored?: StoredOrigin;
  readonly db?: Db;
  readonly steps: WorkflowBlock[];
  readonly heartbeatSeconds: number;
  private readonly opts: WorkflowOptions;

  constructor(opts: WorkflowOptions) {
    if (typeof opts.name !== "string" || opts.name === "") throw new ValidationError("a Workflow needs a name", "name");
    this.opts = opts;
    this.name = opts.name;
    this.description = opts.description;
    this.stored = opts.stored;
    this.id =
      opts.id ??
      opts.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "");
    this.steps = toBlocks(opts.steps, "steps");
    this.db = opts.db;
    this.heartbeatSeconds = opts.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
    if (!(this.heartbeatSeconds > 0)) throw new ValidationError("heartbeatSeconds must be > 0", "heartbeatSeconds");
  }

  /** What runs this workflow's runs, bound to its current db. */
  private get driver(): RunDriver {
    return new RunDriver({
      ref: this.ref,
      steps: this.steps,
      db: this.db,
      heartbeatSeconds: this.heartbeatSeconds,
      cancelPollMs: this.opts.cancelPollMs ?? 500,
    });
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
    const { message, onFinalWrite, stream, media, dependencies: _dependencies, ...opts } = input;
    if (typeof message !== "string") throw new ValidationError("input must be a string", "message");
    // Refused rather than dropped: a workflow run does not hand media to its steps yet.
    if (media?.length) throw new ValidationError("workflow runs take no media yet", "media");
    // The queue runs it again after a crash: each step that ends is saved, so only the one in flight runs again.
    return this.start(message, { ...opts, stream, durable: true }, onFinalWrite) as unknown as AsyncGenerator<
      RunEvent,
      RunOutput
    >;
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
      const scope = this.driver.scope(output, new AbortController());
      yield workflowEvent(scope, "WorkflowCancelled", {
        reason: "cancelled before start",
        content: "cancelled before start",
      });
      return output;
    }
    if (loaded.run && loaded.run.status !== "PENDING") throw new ConflictError(`run ${runId} already exists`);
    const stored = loaded.run?.run_data as unknown as WorkflowRunOutput | undefined;
    if (db && stored?.checkpoint) {
      // Started again after its process died: it goes on after the last step that ended.
      const restarted: WorkflowRunOutput = { ...stored, status: "RUNNING" };
      const checkpoint = stored.checkpoint;
      await db.upsertRun(record(restarted), { expectStatus: ["PENDING"] });
      const saver = workflowStateSaver(db, sessionId, loaded.state);
      return yield* this.driver.drive(
        restarted,
        saver,
        onFinalWrite,
        { startIndex: checkpoint.index, point: { frames: checkpoint.frames } },
        true,
        opts.trace,
      );
    }
    if (db) {
      if (loaded.create) await db.createSession(loaded.create);
      await db.upsertRun(record(output), { expectStatus: ["PENDING", "RUNNING"] });
      if (opts.sessionState) await saveState(sessionState);
    }
    return yield* this.driver.drive(output, saveState, onFinalWrite, undefined, opts.durable, opts.trace);
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
    const events = continueWorkflowRun(this.driver, runId, opts);
    return opts.stream ? events : drain(events);
  }

  resume(runId: string, input: ComponentResumeInput): AsyncGenerator<RunEvent, RunOutput> {
    return continueWorkflowRun(this.driver, runId, {
      stepRequirements: input.resolutions as StepRequirementResolution[],
      approver: { isAdmin: input.isAdmin },
      stream: input.stream,
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      ...(input.trace ? { trace: input.trace } : {}),
    }) as unknown as AsyncGenerator<RunEvent, RunOutput>;
  }

  /**
   * Resolves a paused run whose review's `timeout` passed, with nobody asking (what the cron
   * tick does): the review's `onTimeout` cancels the run, skips the block or approves it, and
   * the run goes on to its end. Null when the run is not paused past a deadline (any more);
   * a StatusConflictError when a person's continue got there first.
   */
  async timeOutRun(runId: string, now = Date.now()): Promise<WorkflowRunOutput | null> {
    const events = timeOutWorkflowRun(this.driver, runId, now);
    const last = this.db ? await this.db.lastRunEventIndex(runId) : -1;
    // A run someone followed has an event log: what it does now goes on in it, for `/resume`.
    if (!this.db || last < 0) return drain(events);
    return drain(recordRunEvents(this.db, events, { runId, firstIndex: last + 1 }));
  }
}

async function drain<T, R>(events: AsyncGenerator<T, R>): Promise<R> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}
