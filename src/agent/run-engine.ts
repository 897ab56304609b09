import { z } from "zod";
import type { Db } from "../db/port.js";
import type { RunRecord } from "../db/types.js";
import { errorMessage, StatusConflictError, ValidationError } from "../errors.js";
import { message } from "../models/message.js";
import type { Model, ModelRequest, TokenUsage } from "../models/model.js";
import { publicError } from "../public-error.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { ToolMedia } from "../tools/tool-result.js";
import type { MediaRecord } from "../models/message.js";
import { RunCancelledSignal, registerRun, watchForCancel } from "./cancellation.js";
import { identityOf, type ComponentRef, type RunEndHook } from "./component.js";
import type { RunEvent } from "./events.js";
import { invalidArguments, requirementFor, requirementKind, stampApprovalId } from "./hitl.js";
import { keepRunAlive } from "./liveness.js";
import { addModelCall } from "./metrics.js";
import type { RunOutput, RunRequirement, ToolExecution } from "./run-output.js";
import { parseToolArgs, runTools, type AnswerFilter, type PausedCall, type PendingCall } from "./tool-runner.js";
import { nowSeconds } from "../time.js";
import type { JobEnqueuer, ToolJob } from "../queue/job-enqueuer.js";
import type { Span } from "../tracing/span.js";
import { childScope, type TraceScope } from "../tracing/trace-scope.js";
import { endRunSpan, startRunSpan, tracedText } from "../tracing/run-spans.js";

/** What the engine needs of an agent: its resolved configuration, never the Agent class itself. */
export interface EngineConfig {
  /** whose run it is: the run's and its events' identity fields come from this */
  ref: ComponentRef;
  model: Model;
  reasoningModel?: Model;
  /** false when nobody takes the run's events as they come: the model may answer in one piece */
  streamModel: boolean;
  tools: Map<string, Tool>;
  toolCallLimit?: number;
  parallelToolCalls: boolean;
  outputSchema?: z.ZodType;
  outputSchemaName?: string;
  db?: Db;
  /** where its tools enqueue background jobs (ToolContext.enqueueJob), when the agent is served with the durable queue */
  jobs?: JobEnqueuer;
  cancelPollMs: number;
  /** how often an executing run marks its row alive (ms), so a run whose runtime dies is found stale */
  heartbeatMs: number;
  postHooks: Array<(output: RunOutput) => void | Promise<void>>;
  /** stores the session's state; called only when the run changed it */
  saveSession: (output: RunOutput) => Promise<void>;
  /** applied to every tool answer before it is recorded (tool-result offload) */
  answerFilter?: AnswerFilter;
  /** makes the write that ends the run COMPLETED or PAUSED, when the caller stores more with it (the queue: its job) */
  onFinalWrite?: RunEndHook;
  /** RunOptions.onSessionState: handed the run's live session state before each batch of tool calls */
  onSessionState?: (state: Record<string, unknown>) => void;
  /** tools run only once the run's first write has landed (a team's members run in the session that write creates) */
  toolsAfterOpened?: boolean;
  /**
   * Folds into the run what its tools did beside their answers (a team: its members' runs and
   * metrics), after each batch of tool calls and before a cancelled or failed run is stored.
   * Requirements it returns (a member paused for a person) pause the run.
   */
  collect?: (output: RunOutput) => RunRequirement[];
  /**
   * Asked when the model answers without tool calls: a message to send it as the user's next
   * turn (a team in tasks mode, until its task list is done), or null to end the run; `events`
   * are streamed first.
   */
  followUp?: (
    output: RunOutput,
    sessionState: Record<string, unknown>,
  ) => { message: string | null; events?: RunEvent[] };
  /** where the run's spans go (its run span, model calls and tool calls), under the caller's span */
  trace?: TraceScope;
}

/** The promise of nextTurn while its turn has not come. */
let turn: Promise<void> | undefined;

/**
 * Resolves once the work queued in this turn of the event loop (the first model request's
 * sending, say) has run: with Node's `setImmediate` where there is one, else a zero timer. Runs
 * started in one turn (jobs a queue started together) all wait for the same one, so their
 * writes still go together (and are batched into one statement).
 */
const nextTurn = (): Promise<void> =>
  (turn ??= new Promise((resolve) => {
    const done = () => {
      turn = undefined;
      resolve();
    };
    const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
    if (immediate) immediate(done);
    else setTimeout(done, 0);
  }));

/** What a step of a phase settled to, in a race with the opening write. */
const settledStep = () => settledStep;

/** The first write of a run failed before anything of it was stored: the run never started. */
class NotStarted {
  constructor(readonly error: unknown) {}
}

const REASONING_PROMPT =
  "Think through the request step by step before anyone answers it. Write your reasoning only: the analysis, the plan, " +
  "the checks. Do not write the final answer.";

/**
 * Drives one run: model calls, tool calls, pauses for people, cancellation, persistence. It is
 * an async generator of agno's events whose return value is the final RunOutput, so streaming
 * and non-streaming callers share one code path.
 */
export class RunEngine {
  private readonly controller = new AbortController();
  private toolCalls = 0;
  /** when the current phase (start, or a resume) began; time spent paused is not the run's */
  private phaseStarted: number | null = null;
  /** the session state as loaded, to skip the session write when no tool changed it */
  private readonly initialState: string;
  /**
   * The write that stores a starting run as RUNNING, while it is in flight: the run goes on
   * meanwhile (its first model request does not wait for a round trip), and every write that
   * needs the row (or a new session's row) waits for it first, so it always lands first.
   */
  private opening: Promise<void> | undefined;
  /** the span of the phase under way (start, or a resume), when the run is traced */
  private span: Span | undefined;

  constructor(
    private readonly cfg: EngineConfig,
    private readonly output: RunOutput,
    private readonly sessionState: Record<string, unknown>,
    private readonly dependencies: Record<string, unknown> = {},
  ) {
    this.initialState = JSON.stringify(sessionState);
  }

  private async saveSessionState(): Promise<void> {
    if (JSON.stringify(this.sessionState) === this.initialState) return;
    await this.opened();
    await this.cfg.saveSession(this.output);
  }

  private base() {
    return {
      run_id: this.output.run_id,
      session_id: this.output.session_id,
      ...identityOf(this.cfg.ref),
      created_at: nowSeconds(),
    };
  }

  /** The run as it is stored now (its `updated_at` and session state stamped). */
  private record(): RunRecord {
    this.output.updated_at = nowSeconds();
    this.output.session_state = this.sessionState;
    return this.output as unknown as RunRecord;
  }

  /**
   * The run as stored now, for a write still on its way while the run goes on: what the run
   * changes in place (its lists, metrics and session state) is copied, the rest (its input, with
   * any inline media) is shared, not serialised an extra time.
   */
  private snapshot(): RunRecord {
    const o = this.output;
    const details = o.metrics.details;
    const copy: RunOutput = {
      ...o,
      updated_at: nowSeconds(),
      messages: [...o.messages],
      tools: [...o.tools],
      requirements: [...o.requirements],
      metrics: { ...o.metrics, ...(details ? { details: { ...details, model: [...details.model] } } : {}) },
      session_state: JSON.parse(JSON.stringify(this.sessionState)) as Record<string, unknown>,
    };
    return copy as unknown as RunRecord;
  }

  /** Waits for the opening write (its failure is the caller's: the run goes no further). */
  private async opened(): Promise<void> {
    await this.opening;
  }

  /**
   * The opening write's failure, if it failed, handed out once: the run's ending is written
   * after it (so the end never lands first), and the writes after that go ahead.
   */
  private async openingFailure(): Promise<unknown> {
    const opening = this.opening;
    this.opening = undefined;
    try {
      await opening;
      return undefined;
    } catch (error) {
      return error;
    }
  }

  /** Persists the run. While it runs, a write only lands if nobody cancelled it meanwhile. */
  private async save(expect?: string[]): Promise<void> {
    const run = this.record();
    if (!this.cfg.db) return;
    await this.opened();
    await this.cfg.db.upsertRun(run, expect ? { expectStatus: expect } : {});
  }

  /** The write that ends this attempt (COMPLETED or PAUSED, from RUNNING): the caller's hook when it has one. */
  private async saveFinal(): Promise<void> {
    const hook = this.cfg.onFinalWrite;
    if (hook && this.cfg.db) {
      this.record();
      await this.opened();
      // Null: the hook wrote nothing (the run was not RUNNING, say); the plain write then says why.
      if (await hook(this.output as unknown as RunRecord, ["RUNNING"])) return;
    }
    await this.save(["RUNNING"]);
  }

  /**
   * Starts a new run. Its first write (status RUNNING, so others can see and cancel it) is sent
   * in the next turn of the event loop, after the run's first model request has set off, and
   * the run does not wait for it: its events (RunStarted first) are held until it
   * has landed, and every later write waits for it. `before` runs the pre-hooks (it is handed
   * `opened`, to wait for the write first): one that throws ends the run as an ERROR, stored and
   * streamed like any. `firstWrite`, when given, makes that write instead (with the session the
   * run starts, say): true when it stored the run, false when the usual write is still to make;
   * when it throws, the run did not start: its error is thrown as it came, no event before it.
   */
  async *start(
    before: (opened: () => Promise<void>) => Promise<void> = async () => undefined,
    firstWrite?: (run: RunRecord) => Promise<boolean>,
  ): AsyncGenerator<RunEvent, RunOutput> {
    this.output.status = "RUNNING";
    if (this.cfg.db) {
      const run = this.snapshot();
      const db = this.cfg.db;
      this.opening = (async () => {
        // Built and sent once the run's first model request is on its way, not before it: the
        // write is on the run's path only where something waits for it.
        await nextTurn();
        if (firstWrite) {
          let stored: boolean;
          try {
            stored = await firstWrite(run);
          } catch (error) {
            throw new NotStarted(error);
          }
          if (stored) return;
        }
        // Its loss in a database crash only undoes the RUNNING mark: the next write, which
        // waits for the log, makes it durable with it.
        await db.upsertRun(run, { expectStatus: ["PENDING", "RUNNING"], deferFlush: true });
      })();
      // Awaited by the run's next write, or the guard: never a rejection nobody handles.
      this.opening.catch(() => undefined);
    }
    return yield* this.guard(async function* (this: RunEngine) {
      return yield* this.heldUntilOpened(this.started(before));
    });
  }

  /** A started run: RunStarted, the pre-hooks, the model and its tools until the run ends. */
  private async *started(before: (opened: () => Promise<void>) => Promise<void>): AsyncGenerator<RunEvent, RunOutput> {
    yield { event: "RunStarted", ...this.base(), model: this.cfg.model.id, model_provider: this.cfg.model.provider };
    await before(() => this.opened());
    if (this.cfg.reasoningModel) yield* this.reason();
    return yield* this.loop();
  }

  /**
   * Passes `phase`'s events on, none before the opening write has landed: until then the phase
   * runs ahead (its model request is already on its way) and its events wait here, so whoever
   * sees RunStarted finds the run stored (to cancel it, to re-attach to its event log). If the
   * write fails, the phase is stopped (its model request aborted) and the failure is thrown.
   */
  private async *heldUntilOpened(phase: AsyncGenerator<RunEvent, RunOutput>): AsyncGenerator<RunEvent, RunOutput> {
    const opening = this.opening;
    if (!opening) return yield* phase;
    let outcome: { failed: false } | { failed: true; error: unknown } | undefined;
    const landed = opening.then(
      () => (outcome = { failed: false }),
      (error: unknown) => (outcome = { failed: true, error }),
    );
    const advance = () => {
      const next = phase.next();
      next.catch(() => undefined);
      return next;
    };
    let step = advance();
    /** whether the phase has finished (returned or thrown) */
    let over = false;
    const take = async () => {
      try {
        const next = await step;
        over = next.done === true;
        return next;
      } catch (error) {
        over = true;
        throw error;
      }
    };
    try {
      const held: RunEvent[] = [];
      while (!outcome) {
        const first = await Promise.race([step.then(settledStep, settledStep), landed]);
        if (first !== settledStep) break;
        let next: IteratorResult<RunEvent, RunOutput>;
        try {
          next = await take();
        } catch (error) {
          // The events before the error are passed on as they would have been, once the run is stored.
          if (!(await landed).failed) for (const event of held) yield event;
          throw error;
        }
        if (next.done) {
          // The phase wrote its end, which waited for the opening: it has landed.
          if (!(await landed).failed) for (const event of held) yield event;
          return next.value;
        }
        held.push(next.value);
        step = advance();
      }
      if (outcome?.failed) {
        this.controller.abort(outcome.error);
        throw outcome.error;
      }
      for (const event of held) yield event;
      for (;;) {
        const next = await take();
        if (next.done) return next.value;
        yield next.value;
        step = advance();
      }
    } finally {
      // A phase left unfinished (the opening failed, the caller stopped early) is closed as
      // `yield*` would close it: once it has reached its next step.
      if (!over) {
        await step.catch(() => undefined);
        await phase.return(this.output).catch(() => undefined);
      }
    }
  }

  /**
   * Resumes a paused run whose requirements are all resolved: runs the held tool calls, then the
   * loop. `from`: the stored statuses it may resume from (a failed run continues in place too).
   */
  async *resume(calls: PendingCall[], from: string[] = ["PAUSED"]): AsyncGenerator<RunEvent, RunOutput> {
    return yield* this.guard(async function* (this: RunEngine) {
      this.output.status = "RUNNING";
      await this.save(from);
      yield { event: "RunContinued", ...this.base() };
      const done = yield* this.executeTools(calls);
      if (done === "paused") return this.output;
      if (done) return yield* this.complete(done.text);
      return yield* this.loop();
    });
  }

  /** Wraps a phase with cancellation watching and the terminal bookkeeping of errors. */
  private async *guard(
    phase: (this: RunEngine) => AsyncGenerator<RunEvent, RunOutput>,
  ): AsyncGenerator<RunEvent, RunOutput> {
    const unregister = registerRun(this.output.run_id, this.controller);
    const unwatch = this.cfg.db
      ? watchForCancel(this.cfg.db, this.output.run_id, this.controller, this.cfg.cancelPollMs)
      : () => undefined;
    // The heartbeat marks a RUNNING row alive: it starts once the row is written.
    let ended = false;
    let stopHeartbeat = () => undefined as void;
    const db = this.cfg.db;
    if (db) {
      const beat = () => {
        if (!ended) stopHeartbeat = keepRunAlive(db, this.output.run_id, this.cfg.heartbeatMs);
      };
      if (this.opening) this.opening.then(beat, () => undefined);
      else beat();
    }
    this.phaseStarted = performance.now();
    const trace = this.cfg.trace;
    this.span = trace && startRunSpan(trace, this.cfg.ref, this.output, this.output.input?.input_content);
    try {
      return yield* phase.call(this);
    } catch (thrown) {
      // The opening write went first: its failure is the run's, whatever the phase met after it.
      const error = (await this.openingFailure()) ?? thrown;
      if (error instanceof NotStarted) throw error.error;
      if (this.isCancel(error)) return yield* this.cancelled();
      return yield* this.failed(error);
    } finally {
      if (this.span) endRunSpan(this.span, this.output);
      ended = true;
      stopHeartbeat();
      unwatch();
      unregister();
    }
  }

  private isCancel(error: unknown): boolean {
    if (error instanceof StatusConflictError) return error.actual === "CANCELLED";
    return (
      error instanceof RunCancelledSignal ||
      (this.controller.signal.aborted && this.controller.signal.reason instanceof RunCancelledSignal)
    );
  }

  /** Adds the current phase's working time to the run's duration, once. */
  private closePhase(): void {
    if (this.phaseStarted === null) return;
    this.output.metrics.duration = (this.output.metrics.duration ?? 0) + (performance.now() - this.phaseStarted) / 1000;
    this.phaseStarted = null;
  }

  private checkpoint(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason ?? new RunCancelledSignal("cancelled");
  }

  private async *cancelled(): AsyncGenerator<RunEvent, RunOutput> {
    this.closePhase();
    this.cfg.collect?.(this.output);
    this.output.status = "CANCELLED";
    await this.save();
    await this.saveSessionState();
    yield { event: "RunCancelled", ...this.base(), reason: "cancelled" };
    return this.output;
  }

  /**
   * Ends the run as an ERROR carrying the public form of `error` (publicError: no SQL, parameters
   * or stack). When the full record cannot be stored (the write that failed was often this run's
   * own content), a minimal one holds the end, so the run never stays RUNNING.
   */
  private async *failed(error: unknown): AsyncGenerator<RunEvent, RunOutput> {
    this.closePhase();
    const shown = publicError(error, `run ${this.output.run_id}`);
    this.cfg.collect?.(this.output);
    this.output.status = "ERROR";
    this.output.content = shown.message;
    this.output.content_type = "str";
    this.output.error = { message: shown.message, type: shown.type, ...(shown.kind ? { kind: shown.kind } : {}) };
    try {
      await this.save(["RUNNING"]);
    } catch (saveError) {
      if (this.isCancel(saveError)) return yield* this.cancelled();
      if ((await this.saveEndOnly(saveError)) === "CANCELLED") {
        this.output.status = "CANCELLED";
        yield { event: "RunCancelled", ...this.base(), reason: "cancelled" };
        return this.output;
      }
    }
    yield {
      event: "RunError",
      ...this.base(),
      content: shown.message,
      error_type: shown.type,
      error_id: shown.errorId,
      ...(shown.kind ? { error_kind: shown.kind } : {}),
    };
    return this.output;
  }

  /**
   * The last-resort write of a failed run: its ids, status ERROR and the public error, none of the
   * messages, input or state that may be what the database refused. If even this fails the row is
   * left RUNNING for the liveness sweep to end; the caller still gets the RunError.
   */
  private async saveEndOnly(saveError: unknown): Promise<"ERROR" | "CANCELLED" | "unsaved"> {
    publicError(saveError, `run ${this.output.run_id}: storing its end`);
    if (!this.cfg.db) return "unsaved";
    const o = this.output;
    const end = {
      run_id: o.run_id,
      session_id: o.session_id,
      ...identityOf(this.cfg.ref),
      user_id: o.user_id,
      status: "ERROR",
      content: o.content,
      content_type: "str",
      error: o.error,
      model: o.model,
      model_provider: o.model_provider,
      messages: [],
      tools: [],
      requirements: [],
      metrics: o.metrics,
      created_at: o.created_at,
      updated_at: nowSeconds(),
    };
    try {
      await this.cfg.db.upsertRun(end as unknown as RunRecord, { expectStatus: ["PENDING", "RUNNING"] });
      return "ERROR";
    } catch (endError) {
      if (this.isCancel(endError)) return "CANCELLED";
      publicError(endError, `run ${this.output.run_id}: storing its end without content`);
      return "unsaved";
    }
  }

  /** Native reasoning with a separate model: its thinking is kept and handed to the main model. */
  private async *reason(): AsyncGenerator<RunEvent, void> {
    const model = this.cfg.reasoningModel!;
    const messages = [...this.output.messages, message("system", REASONING_PROMPT)];
    const { text } = yield* this.callModel(model, { messages, signal: this.controller.signal }, false);
    this.output.reasoning_content = text;
    yield { event: "RunContent", ...this.base(), reasoning_content: text, content_type: "str" };
    this.output.messages.push(message("assistant", `Reasoning:\n${text}`, { reasoning_content: text }));
  }

  /** One model request, streamed; text deltas become RunContent events when `emit` is set. */
  private async *callModel(model: Model, request: ModelRequest, emit: boolean) {
    this.checkpoint();
    yield { event: "ModelRequestStarted" as const, ...this.base(), model: model.id, model_provider: model.provider };
    const started = performance.now();
    let firstToken: number | undefined;
    let text = "";
    let reasoning = "";
    let usage: TokenUsage | undefined;
    let cost: number | undefined;
    const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
    let finishReason: string | undefined;
    const span = this.modelSpan(model);
    try {
      for await (const chunk of model.stream({
        userId: this.output.user_id ?? undefined,
        ...request,
        stream: this.cfg.streamModel,
      })) {
        if (chunk.type === "text" || chunk.type === "reasoning") firstToken ??= (performance.now() - started) / 1000;
        if (chunk.type === "text") {
          text += chunk.delta;
          if (emit) yield { event: "RunContent" as const, ...this.base(), content: chunk.delta, content_type: "str" };
        } else if (chunk.type === "reasoning") {
          reasoning += chunk.delta;
          if (emit)
            yield { event: "RunContent" as const, ...this.base(), reasoning_content: chunk.delta, content_type: "str" };
        } else if (chunk.type === "tool_call") {
          toolCalls.push({ id: chunk.id, name: chunk.name, arguments: chunk.arguments });
        } else {
          usage = chunk.usage;
          cost = chunk.cost;
          finishReason = chunk.reason;
        }
      }
    } catch (error) {
      span?.fail(errorMessage(error));
      throw error;
    } finally {
      // A failed request, or one its caller stopped (ending twice is harmless: the first end counts).
      if (!usage) span?.end();
    }
    const duration = (performance.now() - started) / 1000;
    const used = usage ?? {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      reasoning_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    };
    addModelCall(this.output.metrics, {
      id: model.id,
      provider: model.provider,
      usage: used,
      timeToFirstToken: firstToken,
      duration,
      cost,
    });
    span
      ?.setAll({
        "gen_ai.usage.input_tokens": used.input_tokens,
        "gen_ai.usage.output_tokens": used.output_tokens,
        "llm.token_count.prompt": used.input_tokens,
        "llm.token_count.completion": used.output_tokens,
        "llm.token_count.total": used.total_tokens,
        "gen_ai.response.finish_reasons": finishReason ? [finishReason] : undefined,
        "gen_ai.response.time_to_first_token": firstToken,
        "output.value": tracedText(text || (toolCalls.length > 0 ? toolCalls : undefined)),
      })
      .setStatus("OK")
      .end();
    yield {
      event: "ModelRequestCompleted" as const,
      ...this.base(),
      model: model.id,
      model_provider: model.provider,
      input_tokens: used.input_tokens,
      output_tokens: used.output_tokens,
      time_to_first_token: firstToken,
    };
    return { text, reasoning, toolCalls };
  }

  /** The span of one model request, under the run's (GenAI's `chat` operation; agno's UI reads it as LLM). */
  private modelSpan(model: Model): Span | undefined {
    const trace = this.cfg.trace;
    if (!trace || !this.span) return undefined;
    return trace.tracer.startSpan(`chat ${model.id}`, {
      parent: this.span.context,
      kind: "CLIENT",
      attributes: {
        "openinference.span.kind": "LLM",
        "gen_ai.operation.name": "chat",
        "gen_ai.system": model.provider,
        "gen_ai.provider.name": model.provider,
        "gen_ai.request.model": model.id,
        "llm.model_name": model.id,
        "llm.provider": model.provider,
        "agno.run.id": this.output.run_id,
      },
    });
  }

  /** Model, tools, model, … until the model answers without tools, a person is needed, or a limit stops it. */
  private async *loop(): AsyncGenerator<RunEvent, RunOutput> {
    for (;;) {
      const limitReached = this.cfg.toolCallLimit !== undefined && this.toolCalls >= this.cfg.toolCallLimit;
      const tools = this.cfg.tools.size > 0 ? [...this.cfg.tools.values()].map((t) => t.definition()) : undefined;
      const request: ModelRequest = {
        messages: this.output.messages,
        tools,
        toolChoice: tools && limitReached ? "none" : undefined,
        signal: this.controller.signal,
        responseFormat: this.cfg.outputSchema
          ? {
              type: "json",
              schema: z.toJSONSchema(this.cfg.outputSchema, { target: "draft-7" }) as Record<string, unknown>,
              name: this.cfg.outputSchemaName,
            }
          : undefined,
      };
      const reply = yield* this.callModel(this.cfg.model, request, this.cfg.outputSchema === undefined);
      if (reply.reasoning) this.output.reasoning_content = (this.output.reasoning_content ?? "") + reply.reasoning;
      this.output.messages.push(
        message("assistant", reply.text || null, {
          ...(reply.toolCalls.length
            ? {
                tool_calls: reply.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
        }),
      );
      if (reply.toolCalls.length === 0) {
        const next = this.cfg.followUp?.(this.output, this.sessionState);
        for (const event of next?.events ?? []) yield event;
        if (!next?.message) return yield* this.complete(reply.text);
        this.output.messages.push(message("user", next.message));
        continue;
      }

      const calls = reply.toolCalls.map((c) => this.pendingCall(c));
      const requirements = calls.flatMap((c) => {
        const r = c.tool && !c.answer ? requirementFor(c.tool, c.execution, nowSeconds()) : null;
        return r ? [r] : [];
      });
      this.output.tools.push(...calls.map((c) => c.execution));
      if (requirements.length > 0) {
        yield* this.pause(
          requirements,
          calls.map((c) => c.execution),
        );
        return this.output;
      }
      const done = yield* this.executeTools(calls);
      if (done === "paused") return this.output;
      if (done) return yield* this.complete(done.text);
    }
  }

  /** Stores the run as PAUSED until people resolve `requirements`. */
  private async *pause(requirements: RunRequirement[], tools: ToolExecution[]): AsyncGenerator<RunEvent, void> {
    this.output.status = "PAUSED";
    stampApprovalId(requirements, this.output.tools);
    this.output.requirements = requirements;
    this.closePhase();
    await this.saveFinal();
    await this.saveSessionState();
    yield { event: "RunPaused", ...this.base(), tools, requirements };
  }

  /**
   * The requirements of calls that paused from inside (a ToolPause): each is for the inner call a
   * person must decide on, under the outer call's id (so agno's continue payload, keyed by tool
   * call id, resolves it), and keeps the outer tool's checkpoint for when the run continues.
   */
  private innerRequirements(paused: PausedCall[]): RunRequirement[] {
    return paused.map(({ call, pause }) => {
      const inner: ToolExecution = {
        tool_call_id: call.execution.tool_call_id,
        tool_name: pause.tool.name,
        tool_args: pause.args,
        created_at: nowSeconds(),
      };
      const requirement = requirementFor(pause.tool, inner, nowSeconds());
      if (!requirement)
        throw new TypeError(`${call.execution.tool_name} paused for ${pause.tool.name}, which needs nobody`);
      // The stored outer call carries the same flags, so agno's client (which answers with the
      // run's `tools` list, keyed by tool call id) sees what to confirm or fill in.
      const {
        requires_confirmation,
        requires_user_input,
        user_input_schema,
        external_execution_required,
        requires_approval,
      } = inner;
      Object.assign(call.execution, {
        requires_confirmation,
        requires_user_input,
        user_input_schema,
        external_execution_required,
        requires_approval,
      });
      return { ...requirement, paused_tool_name: call.execution.tool_name, checkpoint: pause.checkpoint };
    });
  }

  /** Turns a model's tool call into a pending call; calls over the limit are answered with an error. */
  private pendingCall(call: { id: string; name: string; arguments: string }): PendingCall {
    const parsed = parseToolArgs(call.arguments);
    const execution: ToolExecution = {
      tool_call_id: call.id,
      tool_name: call.name,
      tool_args: parsed.args,
      created_at: nowSeconds(),
    };
    const tool = this.cfg.tools.get(call.name);
    if (tool?.stopAfterToolCall) execution.stop_after_tool_call = true;
    this.toolCalls++;
    if (this.cfg.toolCallLimit !== undefined && this.toolCalls > this.cfg.toolCallLimit) {
      return {
        execution,
        tool,
        answer: {
          text: `Error: tool call limit of ${this.cfg.toolCallLimit} reached; answer without tools`,
          error: true,
        },
      };
    }
    if (parsed.error) return { execution, tool, answer: { text: `Error: ${parsed.error}`, error: true } };
    // Nobody is asked to confirm a call whose arguments cannot run: the model reads why instead.
    const invalid = tool && requirementKind(tool) === "confirmation" ? invalidArguments(tool, parsed.args) : null;
    if (invalid) return { execution, tool, answer: { text: invalid, error: true } };
    return { execution, tool };
  }

  /**
   * Runs a batch; returns the answer that ends the run when a stop-after tool answered, or
   * "paused" when a call paused the run from inside (the run is then stored as PAUSED).
   */
  private async *executeTools(calls: PendingCall[]): AsyncGenerator<RunEvent, { text: string } | "paused" | null> {
    this.checkpoint();
    if (this.cfg.toolsAfterOpened) await this.opened();
    const ctx: ToolContext = {
      runId: this.output.run_id,
      sessionId: this.output.session_id,
      userId: this.output.user_id ?? null,
      sessionState: this.sessionState,
      dependencies: this.dependencies,
      signal: this.controller.signal,
      ...(this.cfg.jobs ? { enqueueJob: this.enqueueJob(this.cfg.jobs) } : {}),
      ...(this.cfg.trace && this.span ? { trace: childScope(this.cfg.trace, this.span.context) } : {}),
    };
    this.cfg.onSessionState?.(this.sessionState);
    const { messages, paused, media } = yield* runTools(calls, {
      parallel: this.cfg.parallelToolCalls,
      ctx,
      base: () => this.base(),
      filter: this.cfg.answerFilter,
    });
    this.output.messages.push(...messages);
    // Media the tools produced are the run's output media (agno's RunOutput.images, …).
    for (const [field, items] of Object.entries(media ?? {}) as [keyof ToolMedia, MediaRecord[]][])
      (this.output[field] ??= []).push(...items);
    this.checkpoint();
    const held = this.cfg.collect?.(this.output) ?? [];
    if (paused.length > 0 || held.length > 0) {
      // The event lists the paused calls as the stored run does (flagged); the requirements name the inner calls.
      yield* this.pause(
        [...this.innerRequirements(paused), ...held],
        paused.length > 0 ? paused.map((p) => p.call.execution) : calls.map((c) => c.execution),
      );
      return "paused";
    }
    const stopper = calls.find((c) => c.execution.stop_after_tool_call && !c.execution.tool_call_error);
    return stopper ? { text: stopper.execution.result ?? "" } : null;
  }

  /** ToolContext.enqueueJob for this run: its jobs belong to the run's user and component. */
  private enqueueJob(jobs: JobEnqueuer): (job: ToolJob) => ReturnType<JobEnqueuer["enqueue"]> {
    return (job) => jobs.enqueue(job, { userId: this.output.user_id ?? null, component: this.cfg.ref });
  }

  private async *complete(text: string): AsyncGenerator<RunEvent, RunOutput> {
    this.output.content = text;
    this.output.content_type = "str";
    if (this.cfg.outputSchema) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ValidationError("the model's answer is not JSON, but the agent has an output schema", "content");
      }
      const checked = this.cfg.outputSchema.safeParse(parsed);
      if (!checked.success)
        throw new ValidationError(
          `the model's answer does not match the output schema: ${z.prettifyError(checked.error)}`,
          "content",
        );
      this.output.content = checked.data;
      this.output.content_type = this.cfg.outputSchemaName ?? "json";
    }
    for (const hook of this.cfg.postHooks) await hook(this.output);
    this.output.status = "COMPLETED";
    this.closePhase();
    await this.saveFinal();
    await this.saveSessionState();
    yield {
      event: "RunCompleted",
      ...this.base(),
      content: this.output.content,
      content_type: this.output.content_type,
      metrics: this.output.metrics,
      ...(this.output.reasoning_content ? { reasoning_content: this.output.reasoning_content } : {}),
    };
    return this.output;
  }
}
