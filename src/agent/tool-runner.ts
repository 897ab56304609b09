import { z } from "zod";
import { message, nowSeconds, type Message } from "../models/message.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import type { RunEvent } from "./events.js";
import type { ToolExecution } from "./run-output.js";

/** A tool call ready to run, or already answered (rejected, limited, executed externally). */
export interface PendingCall {
  execution: ToolExecution;
  tool: Tool | undefined;
  /** set when the call must not run: this text is its answer */
  answer?: { text: string; error: boolean };
}

export function parseToolArgs(raw: string): { args: Record<string, unknown>; error?: string } {
  try {
    const value: unknown = JSON.parse(raw.trim() === "" ? "{}" : raw);
    if (value && typeof value === "object" && !Array.isArray(value)) return { args: value as Record<string, unknown> };
    return { args: {}, error: "tool arguments must be a JSON object" };
  } catch {
    return { args: {}, error: `tool arguments are not valid JSON: ${raw.slice(0, 200)}` };
  }
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
export type AnswerFilter = (answer: { text: string; error: boolean }, call: ToolExecution, ctx: ToolContext) => Promise<{ text: string; error: boolean }>;

/** Runs one call (through the filter, when there is one). */
async function answerOf(call: PendingCall, ctx: ToolContext, filter?: AnswerFilter): Promise<{ text: string; error: boolean }> {
  const answer = await runOne(call, ctx);
  return filter ? filter(answer, call.execution, ctx) : answer;
}

/** Runs one call: validates its arguments against the tool's schema, then executes it. */
async function runOne(call: PendingCall, ctx: ToolContext): Promise<{ text: string; error: boolean }> {
  if (call.answer) return call.answer;
  const tool = call.tool;
  if (!tool?.execute) return { text: `Error: tool ${call.execution.tool_name} does not exist`, error: true };
  const parsed = tool.parameters.safeParse(call.execution.tool_args);
  if (!parsed.success) return { text: `Error: invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`, error: true };
  try {
    return { text: stringify(await tool.execute(parsed.data, ctx)), error: false };
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
    return { text: `Error: ${err instanceof Error ? err.message : String(err)}`, error: true };
  }
}

/**
 * Executes a batch of tool calls (all at once, or one after another), yields agno's tool events
 * and returns the tool messages for the model. Failures become error answers the model reads;
 * only a cancellation stops the batch.
 */
export async function* runTools(
  calls: PendingCall[],
  opts: { parallel: boolean; ctx: ToolContext; base: () => Omit<Extract<RunEvent, { event: "ToolCallStarted" }>, "event" | "tool">; filter?: AnswerFilter },
): AsyncGenerator<RunEvent, Message[]> {
  const finish = (call: PendingCall, outcome: { text: string; error: boolean }, started: number) => {
    call.execution.result = outcome.text;
    call.execution.tool_call_error = outcome.error || undefined;
    call.execution.metrics = { duration: (performance.now() - started) / 1000 };
  };
  const completed = (call: PendingCall): RunEvent =>
    call.execution.tool_call_error
      ? { event: "ToolCallError", ...opts.base(), tool: call.execution, error: call.execution.result ?? "" }
      : { event: "ToolCallCompleted", ...opts.base(), tool: call.execution, content: call.execution.result };

  if (opts.parallel) {
    for (const call of calls) yield { event: "ToolCallStarted", ...opts.base(), tool: call.execution };
    const started = performance.now();
    const outcomes = await Promise.all(calls.map((c) => answerOf(c, opts.ctx, opts.filter)));
    calls.forEach((c, i) => finish(c, outcomes[i]!, started));
    for (const call of calls) yield completed(call);
  } else {
    for (const call of calls) {
      yield { event: "ToolCallStarted", ...opts.base(), tool: call.execution };
      const started = performance.now();
      finish(call, await answerOf(call, opts.ctx, opts.filter), started);
      yield completed(call);
    }
  }
  return calls.map((c) =>
    message("tool", c.execution.result ?? "", {
      tool_call_id: c.execution.tool_call_id,
      tool_name: c.execution.tool_name,
      tool_args: c.execution.tool_args,
      tool_call_error: c.execution.tool_call_error ?? false,
      created_at: nowSeconds(),
    }),
  );
}
