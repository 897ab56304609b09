import { abortLocal, registerRun, RunCancelledSignal, watchForCancel } from "../agent/cancellation.js";
import type { ComponentRef, RunEndHook } from "../agent/component.js";
import { keepRunAlive } from "../agent/liveness.js";
import type { Db } from "../db/port.js";
import type { RunRecord } from "../db/types.js";
import { StatusConflictError } from "../errors.js";
import { publicError } from "../public-error.js";
import { nowSeconds } from "../time.js";
import { workflowEvent, type RunScope, type WorkflowBlock } from "./block.js";
import { isCancellation } from "./cancelled.js";
import type { WorkflowStreamEvent } from "./events.js";
import { executeSteps, summarize, type StepsEnd, type StepsResume } from "./execute-steps.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { RunProgress, type Checkpoint } from "./run-progress.js";
import { isErrorRequirement } from "./error-requirement.js";
import { pausedEvent } from "./paused-event.js";
import { childScope, type TraceScope } from "../tracing/trace-scope.js";
import { endRunSpan, startRunSpan } from "../tracing/run-spans.js";

/** What a workflow's runs are driven with. */
export interface DriverConfig {
  ref: ComponentRef;
  steps: readonly WorkflowBlock[];
  db?: Db;
  heartbeatSeconds: number;
  cancelPollMs: number;
}

/**
 * Drives a stored RUNNING workflow run through its steps and stores how it ended (COMPLETED,
 * PAUSED, CANCELLED or ERROR), with the cancel watch and the heartbeat an agent run has.
 */
export class RunDriver {
  constructor(private readonly cfg: DriverConfig) {}

  get ref(): ComponentRef {
    return this.cfg.ref;
  }

  get steps(): readonly WorkflowBlock[] {
    return this.cfg.steps;
  }

  get db(): Db | undefined {
    return this.cfg.db;
  }

  scope(output: WorkflowRunOutput, controller: AbortController, durable = false): RunScope {
    const db = this.cfg.db;
    return {
      ...(durable && db ? { progress: new RunProgress((at) => saveCheckpoint(db, output, at)) } : {}),
      workflow: this.cfg.ref,
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

  /**
   * Runs the steps of a stored RUNNING run (from `resume`'s step when continued or restarted) and
   * stores how it ended. A durable run saves a checkpoint as each step ends.
   */
  async *drive(
    output: WorkflowRunOutput,
    saveState: (s: Record<string, unknown>) => Promise<void>,
    onFinalWrite?: RunEndHook,
    resume?: StepsResume,
    durable = false,
    trace?: TraceScope,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
    const db = this.cfg.db;
    const runId = output.run_id;
    const controller = new AbortController();
    const scope = this.scope(output, controller, durable);
    const span = trace && startRunSpan(trace, this.cfg.ref, output, output.input);
    if (span && trace) scope.trace = childScope(trace, span.context);
    const started = performance.now();
    const before = output.metrics.duration ?? 0;
    const elapsed = () => before + (performance.now() - started) / 1000;
    const unregister = registerRun(runId, controller);
    const unwatch = db ? watchForCancel(db, runId, controller, this.cfg.cancelPollMs ?? 500) : () => undefined;
    const stopBeat = db ? keepRunAlive(db, runId, this.cfg.heartbeatSeconds * 1000) : () => undefined;
    // A cancel reaches the agent runs in flight at once.
    const onAbort = () => scope.executorRuns.forEach((id) => abortLocal(id, "cancelled"));
    controller.signal.addEventListener("abort", onAbort);
    try {
      if (!resume) yield workflowEvent(scope, "WorkflowStarted", {});
      let end: StepsEnd;
      try {
        end = yield* executeSteps(this.cfg.steps, output.input, output.additional_data ?? {}, scope, resume);
        summarize(output);
      } catch (error) {
        summarize(output);
        output.metrics = { ...output.metrics, duration: elapsed() };
        if (isCancellation(error, scope)) return yield* this.cancelled(output, scope, saveState);
        return yield* this.failed(output, scope, error, saveState);
      }
      output.metrics = { ...output.metrics, duration: elapsed() };
      delete output.checkpoint;
      if (end.paused) {
        const req = end.requirement;
        output.status = "PAUSED";
        output.content = null;
        if (isErrorRequirement(req)) output.error_requirements = [req];
        else output.step_requirements = [...(output.step_requirements ?? []), req];
        output.paused_step_index = end.index;
        output.paused_step_name = this.cfg.steps[end.index]!.name ?? null;
        output.paused_frames = end.frames;
        output.pause_kind = !isErrorRequirement(req) && req.requires_executor_input ? "executor" : "step";
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
        const why = pausedEvent(scope, end.requirement);
        if (why) yield why;
        yield workflowEvent(scope, "WorkflowPaused", {
          status: "PAUSED",
          paused_step_index: end.index,
          paused_step_name: output.paused_step_name ?? null,
          pause_kind: output.pause_kind!,
          step_requirements: output.step_requirements ?? [],
          ...(output.error_requirements ? { error_requirements: output.error_requirements } : {}),
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
      if (span) endRunSpan(span, output);
      controller.signal.removeEventListener("abort", onAbort);
      stopBeat();
      unwatch();
      unregister();
    }
  }

  async *cancelled(
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
  async *failed(
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
      if (this.cfg.db) await this.cfg.db.upsertRun(record(output), { expectStatus: expect });
    } catch (error) {
      publicError(error, `workflow run ${output.run_id}: storing its end`);
    }
  }
}

/**
 * Saves how far a durable run got, in its row; a run cancelled meanwhile stops here (its row is
 * no longer RUNNING). The write does not wait for the disk flush: the runtime dying loses no
 * checkpoint, the database server crashing may lose the last ones, whose steps then run again
 * (at least once, as said).
 */
async function saveCheckpoint(db: Db, output: WorkflowRunOutput, at: Checkpoint): Promise<void> {
  output.checkpoint = at;
  await db.upsertRun(record(output), { expectStatus: ["RUNNING"], deferFlush: true });
}

/** The run as a row's `run_data`: plain JSON, stamped now. */
export function record(output: WorkflowRunOutput): RunRecord {
  output.updated_at = nowSeconds();
  return JSON.parse(JSON.stringify(output)) as RunRecord;
}

/** The write that ends a completed run (from RUNNING): the caller's hook when it has one. */
async function writeFinal(db: Db, output: WorkflowRunOutput, hook?: RunEndHook): Promise<void> {
  const run = record(output);
  if (hook && (await hook(run, ["RUNNING"]))) return;
  await db.upsertRun(run, { expectStatus: ["RUNNING"] });
}
