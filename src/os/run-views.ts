import { safeTruncationIndex } from "../agent/run-timeline.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Message } from "../models/message.js";
import { BadRequestError } from "../errors.js";
import { agentRunView } from "./session-view.js";
import { runOutputDict } from "./wire/run-output.js";

/*
 * Views of a stored run that agno derives rather than stores: the RunSchema of a listing, the
 * checkpoints a client may continue from, a snapshot of the run cut at one of them.
 */

/**
 * agno's `RunSchema.from_dict` over the run's dict (`to_dict`, so the fields it holds as None are
 * absent, and agno's defaults for absent keys apply).
 */
export function runSchemaOf(stored: object) {
  return agentRunView(runOutputDict(stored));
}

/** A message's text in a line of at most `max` characters, as a checkpoint previews it. */
function preview(content: unknown, max = 120): string | null {
  if (content === undefined || content === null) return null;
  const text = (typeof content === "string" ? content : JSON.stringify(content)).replace(/\n/g, " ").trim();
  return text.length <= max ? text : `${text.slice(0, max - 1)}...`;
}

export interface RunCheckpoint {
  checkpoint_id: string | null;
  run_id: string;
  session_id: string;
  message_index: number;
  continue_from: number;
  status: string;
  reason: "checkpoint" | "end" | "snapshot";
  created_at: number;
  message_id: string | null;
  message_role: string | null;
  message_preview: string | null;
  is_latest: boolean;
}

function checkpointAt(run: RunOutput, index: number, reason: RunCheckpoint["reason"]): RunCheckpoint {
  const message: Message | undefined = index > 0 ? run.messages[index - 1] : undefined;
  const marked = message?.checkpoint_status as string | undefined;
  return {
    checkpoint_id: null,
    run_id: run.run_id,
    session_id: run.session_id,
    message_index: index,
    continue_from: index,
    status: marked ?? run.status,
    reason,
    created_at: (message?.checkpoint_created_at as number | undefined) ?? run.created_at,
    message_id: typeof message?.id === "string" ? message.id : null,
    message_role: message?.role ?? null,
    message_preview: message ? preview(message.content) : null,
    is_latest: index === run.messages.length,
  };
}

/**
 * agno's `list_run_checkpoints`: the boundaries a client may continue from (the last mid-run
 * checkpoint, messages marked as checkpoints, the end), numbered in order from "1".
 */
export function runCheckpoints(run: RunOutput): RunCheckpoint[] {
  const messages = run.messages ?? [];
  const byIndex = new Map<number, RunCheckpoint>();
  const last = run.last_checkpoint_at_message_index;
  if (Number.isInteger(last) && last! >= 0 && last! <= messages.length)
    byIndex.set(last!, checkpointAt(run, last!, "checkpoint"));
  messages.forEach((m, i) => {
    if (m.checkpoint_status !== undefined && m.checkpoint_status !== null)
      byIndex.set(i + 1, checkpointAt(run, i + 1, "checkpoint"));
  });
  if (messages.length > 0) byIndex.set(messages.length, checkpointAt(run, messages.length, "end"));
  return [...byIndex.keys()]
    .sort((a, b) => a - b)
    .map((index, n) => ({ ...byIndex.get(index)!, checkpoint_id: String(n + 1) }));
}

/**
 * agno's `build_run_checkpoint_snapshot`: the run as it was at `index` (a copy; the stored run is
 * untouched), written out by `toDict` (an agent's RunOutput or a team's TeamRunOutput).
 */
export function runCheckpointSnapshot(
  run: RunOutput,
  index: number,
  toDict: (run: object) => Record<string, unknown> = runOutputDict,
) {
  const messages = run.messages ?? [];
  if (index < 0 || index > messages.length)
    throw new BadRequestError(`message_index must be between 0 and ${messages.length}`);
  const safe = safeTruncationIndex(messages, index);
  const snapshot = structuredClone(run);
  snapshot.messages = messages.slice(0, safe);
  snapshot.last_checkpoint_at_message_index = safe;
  const kept = new Set<string>();
  for (const m of snapshot.messages) {
    if (m.tool_call_id) kept.add(m.tool_call_id);
    for (const call of m.tool_calls ?? []) kept.add(call.id);
  }
  snapshot.tools = (snapshot.tools ?? []).filter((t) => kept.has(t.tool_call_id));
  snapshot.requirements = (snapshot.requirements ?? []).filter((r) => kept.has(r.tool_execution.tool_call_id));
  const checkpoint = checkpointAt(run, index, "snapshot");
  checkpoint.checkpoint_id = runCheckpoints(run).find((c) => c.message_index === index)?.checkpoint_id ?? null;
  return { checkpoint, snapshot: toDict(snapshot) };
}
