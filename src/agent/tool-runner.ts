import { z } from "zod";
import { jsonProblem, sanitizeText } from "../json-limits.js";
import { message, type Message } from "../models/message.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import { ToolPause, type ResumedCall } from "../tools/tool-pause.js";
import type { RunEvent } from "./events.js";
import type { ToolExecution } from "./run-output.js";
import { nowSeconds } from "../time.js";
import { errorMessage } from "../errors.js";
import { ToolResult, type ToolMedia } from "../tools/tool-result.js";
import { childScope } from "../tracing/trace-scope.js";
import { tracedText } from "../tracing/run-spans.js";
import type { Span } from "../tracing/span.js";

/** A tool call's answer, as the model reads it, and the media it produced (a ToolResult's). */
type Answer = { text: string; error: boolean; media?: ToolMedia };

const MEDIA_FIELDS = ["images", "audio", "videos", "files"] as const;

/** What agno says to the model with the media a batch of tool calls produced. */
export const TOOL_MEDIA_NOTE = "The tool call above generated the attached media.";

/** A tool call ready to run, or already answered (rejected, limited, executed externally). */
export interface PendingCall {
  execution: ToolExecution;
  tool: Tool | undefined;
  /** set when the call must not run: this text is its answer */
  answer?: Answer;
  /** set when this call paused the run from inside (a ToolPause) and now runs again */
  resumed?: ResumedCall;
}

/** A call's outcome: its answer, or the pause it asked for. */
type Outcome = Answer | { pause: ToolPause };

/**
 * A model's tool arguments, or the error the model reads instead. Arguments are bounded as
 * client JSON is (too deep, too large, NUL or a lone surrogate: one prompt injection must not
 * crash the run or its final write), and never executed when refused.
 */
export function parseToolArgs(raw: string): { args: Record<string, unknown>; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw.trim() === "" ? "{}" : raw);
  } catch {
    return { args: {}, error: `tool arguments are not valid JSON: ${sanitizeText(raw.slice(0, 200))}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    return { args: {}, error: "tool arguments must be a JSON object" };
  const problem = jsonProblem(value, { text: true });
  if (problem)
    return { args: {}, error: `tool arguments ${problem.path ? `at ${problem.path} ` : ""}${problem.message}` };
  return { args: value as Record<string, unknown> };
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * Rewrites an answer before anything records it: the model, the events and the stored run all
 * see what it returns (tool-result offload swaps an oversized answer for its envelope here).
 */
export type AnswerFilter = (answer: Answer, call: ToolExecution, ctx: ToolContext) => Promise<Answer>;

/** Runs one call (its answer through the filter, when there is one), in its own span when the run is traced. */
async function outcomeOf(call: PendingCall, ctx: ToolContext, filter?: AnswerFilter): Promise<Outcome> {
  const span = ctx.trace && toolSpan(call, ctx);
  const callCtx: ToolContext = {
    ...ctx,
    toolCallId: call.execution.tool_call_id,
    ...(span && ctx.trace ? { trace: childScope(ctx.trace, span.context) } : {}),
  };
  try {
    let outcome = await runOne(call, call.resumed ? { ...callCtx, resumed: call.resumed } : callCtx);
    if (!("pause" in outcome) && filter) {
      // The filter rewrites the text the model reads; the media go on beside it.
      const filtered = await filter(outcome, call.execution, ctx);
      outcome = outcome.media ? { ...filtered, media: outcome.media } : filtered;
    }
    if (span) {
      if ("pause" in outcome) span.set("agno.tool.outcome", "paused").setStatus("OK");
      else if (outcome.error) span.set("agno.tool.outcome", "error").fail(outcome.text);
      else span.setAll({ "agno.tool.outcome": "ok", "output.value": tracedText(outcome.text) }).setStatus("OK");
    }
    return outcome;
  } catch (error) {
    span?.set("agno.tool.outcome", "cancelled").fail(errorMessage(error));
    throw error;
  } finally {
    span?.end();
  }
}

/** The span of one tool call (GenAI's `execute_tool`; agno's UI reads it as TOOL, with `tool.name` and `tool.parameters`). */
function toolSpan(call: PendingCall, ctx: ToolContext): Span {
  const args = tracedText(call.execution.tool_args) ?? "{}";
  return ctx.trace!.tracer.startSpan(`execute_tool ${call.execution.tool_name}`, {
    parent: ctx.trace!.parent,
    attributes: {
      "openinference.span.kind": "TOOL",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.execution.tool_name,
      "gen_ai.tool.call.id": call.execution.tool_call_id,
      "tool.name": call.execution.tool_name,
      "tool.parameters": args,
      "agno.tool.arguments_size": new TextEncoder().encode(JSON.stringify(call.execution.tool_args ?? {})).length,
      "agno.run.id": ctx.runId,
    },
  });
}

/** Runs one call: validates its arguments against the tool's schema, then executes it. */
async function runOne(call: PendingCall, ctx: ToolContext): Promise<Outcome> {
  if (call.answer) return call.answer;
  const tool = call.tool;
  if (!tool?.execute) return { text: `Error: tool ${call.execution.tool_name} does not exist`, error: true };
  const parsed = tool.parameters.safeParse(call.execution.tool_args);
  if (!parsed.success)
    return { text: `Error: invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`, error: true };
  try {
    const value = await tool.execute(parsed.data, ctx);
    if (value instanceof ToolResult) return { text: value.content, error: false, media: value.media };
    return { text: stringify(value), error: false };
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
    if (err instanceof ToolPause) return { pause: err };
    return { text: `Error: ${errorMessage(err)}`, error: true };
  }
}

/** A call that paused the run from inside, and why. */
export interface PausedCall {
  call: PendingCall;
  pause: ToolPause;
}

/**
 * Executes a batch of tool calls (all at once, or one after another), yields agno's tool events
 * and returns the tool messages for the model, plus the calls that asked to pause the run (they
 * get no message: the run continues them later). Failures become error answers the model reads;
 * only a cancellation stops the batch.
 */
export async function* runTools(
  calls: PendingCall[],
  opts: {
    parallel: boolean;
    ctx: ToolContext;
    base: () => Omit<Extract<RunEvent, { event: "ToolCallStarted" }>, "event" | "tool">;
    filter?: AnswerFilter;
  },
): AsyncGenerator<RunEvent, { messages: Message[]; paused: PausedCall[]; media?: ToolMedia }> {
  const paused: PausedCall[] = [];
  const emitted = emittedEvents();
  opts = { ...opts, ctx: { ...opts.ctx, emit: emitted.emit } };
  /** in call order: both modes finish calls in the order they came */
  const answered: PendingCall[] = [];
  const media: ToolMedia = {};
  const finish = (call: PendingCall, outcome: Outcome, started: number): boolean => {
    if ("pause" in outcome) {
      paused.push({ call, pause: outcome.pause });
      return false;
    }
    answered.push(call);
    for (const field of MEDIA_FIELDS) if (outcome.media?.[field]) (media[field] ??= []).push(...outcome.media[field]);
    call.execution.result = outcome.text;
    call.execution.tool_call_error = outcome.error || undefined;
    call.execution.metrics = { duration: (performance.now() - started) / 1000 };
    return true;
  };
  const completed = (call: PendingCall): RunEvent =>
    call.execution.tool_call_error
      ? { event: "ToolCallError", ...opts.base(), tool: call.execution, error: call.execution.result ?? "" }
      : { event: "ToolCallCompleted", ...opts.base(), tool: call.execution, content: call.execution.result };

  if (opts.parallel) {
    for (const call of calls) yield { event: "ToolCallStarted", ...opts.base(), tool: call.execution };
    const started = performance.now();
    const outcomes = yield* emitted.until(Promise.all(calls.map((c) => outcomeOf(c, opts.ctx, opts.filter))));
    calls.forEach((c, i) => finish(c, outcomes[i]!, started));
    for (const call of answered) yield completed(call);
  } else {
    for (const call of calls) {
      yield { event: "ToolCallStarted", ...opts.base(), tool: call.execution };
      const started = performance.now();
      if (!finish(call, yield* emitted.until(outcomeOf(call, opts.ctx, opts.filter)), started)) break;
      yield completed(call);
    }
  }
  // Calls after a pause (one after another) stay unanswered too: they run when the run continues.
  const messages = answered.map((c) =>
    message("tool", c.execution.result ?? "", {
      tool_call_id: c.execution.tool_call_id,
      tool_name: c.execution.tool_name,
      tool_args: c.execution.tool_args,
      tool_call_error: c.execution.tool_call_error ?? false,
      created_at: nowSeconds(),
    }),
  );
  // As agno: media go to the model in a user message after the answers (a tool message cannot carry them).
  const produced = Object.keys(media).length > 0 ? media : undefined;
  if (produced) messages.push(message("user", TOOL_MEDIA_NOTE, { ...produced, created_at: nowSeconds() }));
  return { messages, paused, ...(produced ? { media: produced } : {}) };
}

/**
 * The events tools emit while they run (ToolContext.emit), passed on as they come: `until`
 * yields them while `work` is pending and returns (or throws) what it settles to. Events
 * emitted after the batch ended are dropped: nobody is reading the run's events for them.
 */
function emittedEvents() {
  const queue: RunEvent[] = [];
  let wake: (() => void) | null = null;
  return {
    emit(event: RunEvent) {
      queue.push(event);
      wake?.();
    },
    async *until<T>(work: Promise<T>): AsyncGenerator<RunEvent, T> {
      let settled: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
      void work.then(
        (value) => {
          settled = { ok: true, value };
          wake?.();
        },
        (error: unknown) => {
          settled = { ok: false, error };
          wake?.();
        },
      );
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (settled) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (queue.length > 0 || settled) resolve();
        });
        wake = null;
      }
      if (!settled.ok) throw settled.error;
      return settled.value;
    },
  };
}
