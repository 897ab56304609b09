import type { z } from "zod";
import { safeTruncationIndex } from "../agent/run-timeline.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Message } from "../models/message.js";
import { BadRequestError } from "../errors.js";
import type { runSchemaSchema } from "./wire/run-schema.js";
import { runOutputDict } from "./wire/run-output.js";

/*
 * Views of a stored run that agno derives rather than stores: the RunSchema of a listing, the
 * checkpoints a client may continue from, a snapshot of the run cut at one of them.
 */

type RunSchema = z.infer<typeof runSchemaSchema>;
type Dict = Record<string, unknown>;

/** Seconds since the epoch as pydantic writes a UTC datetime. */
export function utcDatetime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** agno's `stringify_input_content`: text stays text, anything else is its JSON. */
function inputText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && (content[0] as Dict | undefined)?.role === "user")
    return String((content[0] as Dict).content ?? JSON.stringify(content));
  return JSON.stringify(content, null, 2);
}

/** agno's `get_run_input`: the stored input, else the last user message, else "". */
function runInput(run: Dict): string {
  const input = run.input as Dict | undefined;
  if (input && input.input_content !== undefined && input.input_content !== null) return inputText(input.input_content);
  const messages = (run.messages as Dict[] | undefined) ?? [];
  const user = [...messages].reverse().find((m) => m.role === "user");
  return user ? String(user.content ?? "") : "";
}

/**
 * agno's `RunSchema.from_dict` over the run's dict (`to_dict`, so the fields it holds as None are
 * absent, and agno's defaults for absent keys apply: "" for ids and text, [] for lists).
 */
export function runSchemaOf(stored: object): RunSchema {
  const run = runOutputDict(stored);
  const get = <T>(key: string, fallback: T): T => (key in run ? (run[key] as T) : fallback);
  const input = (run.input as Dict | undefined) ?? {};
  const media = (kind: string) => (Array.isArray(input[kind]) ? (input[kind] as Dict[]) : []);
  const content = get<unknown>("content", "");
  const nonEmpty = (key: string) =>
    Array.isArray(run[key]) && (run[key] as unknown[]).length > 0 ? (run[key] as Dict[]) : null;
  return {
    run_id: String(get("run_id", "")),
    parent_run_id: get("parent_run_id", ""),
    agent_id: get("agent_id", ""),
    user_id: get("user_id", ""),
    status: get<string | null>("status", null),
    run_input: runInput(run),
    content:
      typeof content === "string" || content === null
        ? content
        : typeof content === "object" && !Array.isArray(content)
          ? (content as Dict)
          : JSON.stringify(content),
    run_response_format: get("content_type", "str") === "str" ? "text" : "json",
    reasoning_content: get("reasoning_content", ""),
    reasoning_steps: get("reasoning_steps", []),
    metrics: get("metrics", {}),
    messages: nonEmpty("messages"),
    tools: nonEmpty("tools"),
    events: nonEmpty("events"),
    created_at: typeof run.created_at === "number" ? utcDatetime(run.created_at) : null,
    references: get("references", []),
    citations: get<Dict | null>("citations", null),
    reasoning_messages: get("reasoning_messages", []),
    session_state: get<Dict | null>("session_state", null),
    images: get("images", []),
    videos: get("videos", []),
    audio: get("audio", []),
    files: get("files", []),
    response_audio: get<Dict | null>("response_audio", null),
    input_media: { images: media("images"), videos: media("videos"), audios: media("audios"), files: media("files") },
    followups: get<string[] | null>("followups", null),
    forked_from_run_id: get<string | null>("forked_from_run_id", null),
    forked_from_message_index: get<number | null>("forked_from_message_index", null),
    forked_from_session_id: get<string | null>("forked_from_session_id", null),
    regenerated_from: get<string | null>("regenerated_from", null),
    last_checkpoint_at_message_index: get<number | null>("last_checkpoint_at_message_index", null),
  };
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

/** agno's `build_run_checkpoint_snapshot`: the run as it was at `index` (a copy; the stored run is untouched). */
export function runCheckpointSnapshot(run: RunOutput, index: number) {
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
  return { checkpoint, snapshot: runOutputDict(snapshot) };
}
