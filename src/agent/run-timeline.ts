import type { Message } from "../models/message.js";
import { BadRequestError } from "../errors.js";
import { nowSeconds } from "../time.js";
import { emptyMetrics } from "./metrics.js";
import type { RunOutput } from "./run-output.js";

/*
 * A run's transcript as a timeline one can go back along (agno 3.0's continue dispatch): cut it
 * at a message boundary, copy it into a sibling run, or drop its last answer to regenerate it.
 * A boundary `n` keeps `messages[0..n)`.
 */

/** Where a continue picks a run up: `"end"`, `"last_user"`, or a message boundary. */
export type ContinueFrom = "end" | "last_user" | number;

/**
 * The largest boundary at or below `requested` that cuts no tool exchange in two: a model call
 * kept without its tool's answer is refused by providers, so such a call is dropped whole.
 */
export function safeTruncationIndex(messages: readonly Message[], requested: number): number {
  if (requested <= 0 || requested >= messages.length) return requested;
  const answeredAt = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.tool_call_id) answeredAt.set(m.tool_call_id, i);
  });
  for (let i = 0; i < requested; i++) {
    for (const call of messages[i]!.tool_calls ?? []) {
      const at = answeredAt.get(call.id);
      if (at === undefined || at >= requested) return i;
    }
  }
  return requested;
}

/** The tool call ids the messages still mention (calls and answers). */
function referencedCalls(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.tool_call_id) ids.add(m.tool_call_id);
    for (const call of m.tool_calls ?? []) ids.add(call.id);
  }
  return ids;
}

/**
 * Cuts the run's transcript at `index` (snapped to a safe boundary) and drops the tool
 * executions and requirements whose calls went with it. Outside the transcript it changes nothing.
 */
export function truncateRun(run: RunOutput, index: number): void {
  if (index < 0 || index >= run.messages.length) return;
  const safe = safeTruncationIndex(run.messages, index);
  run.messages = run.messages.slice(0, safe);
  const kept = referencedCalls(run.messages);
  run.tools = (run.tools ?? []).filter((t) => kept.has(t.tool_call_id));
  run.requirements = (run.requirements ?? []).filter((r) => kept.has(r.tool_execution.tool_call_id));
  run.last_checkpoint_at_message_index = safe;
}

/**
 * A sibling of `run` in the same session, cut at `index`: a new run id, the lineage
 * (`forked_from_run_id`, `forked_from_message_index`), and its own metrics and birth time.
 */
export function forkRun(run: RunOutput, index: number, newRunId: string): RunOutput {
  const safe = safeTruncationIndex(run.messages, index);
  const forked = structuredClone(run);
  forked.run_id = newRunId;
  forked.forked_from_run_id = run.run_id;
  forked.forked_from_message_index = safe;
  forked.metrics = emptyMetrics();
  forked.created_at = nowSeconds();
  delete forked.updated_at;
  delete forked.error;
  truncateRun(forked, safe);
  return forked;
}

/** Where `regenerate` cuts: before the trailing answers that call no tool (the final response). */
export function regenerateBoundary(run: RunOutput): number {
  let i = run.messages.length;
  while (i > 0 && run.messages[i - 1]!.role === "assistant" && !run.messages[i - 1]!.tool_calls?.length) i--;
  if (i === 0) throw new BadRequestError("this run has nothing to regenerate from: it holds only answers");
  return i;
}

/** The boundary `continue_from` names for this run. */
export function continueBoundary(run: RunOutput, from: ContinueFrom, regenerate: boolean): number {
  if (regenerate) {
    if (from === "end" || from === "last_user") return regenerateBoundary(run);
    throw new BadRequestError("regenerate picks its own boundary: leave continue_from out");
  }
  if (typeof from === "number") return from;
  if (from === "end") return run.messages.length;
  for (let i = run.messages.length - 1; i >= 0; i--) if (run.messages[i]!.role === "user") return i + 1;
  throw new BadRequestError("continue_from=last_user: this run has no user message");
}

/** How a continue without requirements moves along a run's timeline (agno's `/continue` fields). */
export interface TimelineOptions {
  /** a new user message appended before the model answers again */
  input?: string;
  continueFrom?: ContinueFrom;
  /** continue in a new sibling run, leaving this one as it is */
  fork?: boolean;
  /** answer the last message again, in a sibling run */
  regenerate?: boolean;
  /** with regenerate: hide the original run from history (default true) */
  replaceOriginal?: boolean;
  /** with regenerate: what to add as the user's message (in place of `input`) */
  additionalInstructions?: string;
}

export interface TimelinePlan {
  fork: boolean;
  boundary: number;
  input?: string;
  /** set when the run is regenerated: hide the original from history */
  hideOriginal: boolean;
}

/** agno's normalisation of the continue fields: which run continues, from where, with what input. */
export function planTimeline(run: RunOutput, opts: TimelineOptions): TimelinePlan {
  const regenerate = opts.regenerate === true;
  if (opts.additionalInstructions !== undefined && opts.input !== undefined)
    throw new BadRequestError("send additional_instructions or input, not both");
  if (opts.replaceOriginal !== undefined && !regenerate)
    throw new BadRequestError("replace_original goes with regenerate=true");
  if (regenerate && opts.fork) throw new BadRequestError("regenerate always continues in a new run: leave fork out");
  const boundary = continueBoundary(run, opts.continueFrom ?? "end", regenerate);
  if (boundary < 0 || boundary > run.messages.length)
    throw new BadRequestError(`continue_from must be a message index from 0 to ${run.messages.length}`);
  // A finished run's model loop is over: continuing it is a new run beside it.
  const fork = regenerate || opts.fork === true || run.status === "COMPLETED" || run.status === "REGENERATED";
  // As agno: additional_instructions is regenerate's name for the input; alone it means nothing.
  const input = regenerate ? (opts.additionalInstructions ?? opts.input) : opts.input;
  return { fork, boundary, input: input || undefined, hideOriginal: regenerate && opts.replaceOriginal !== false };
}
