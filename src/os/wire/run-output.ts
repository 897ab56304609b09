import { z } from "zod";
import { RUN_STATUSES } from "../../db/types.js";
import { agnoObject } from "./agno-object.js";

/*
 * agno's RunOutput as `RunOutput.to_dict()` writes it (libs/agno/agno/run/agent.py): the answer
 * of a run that did not stream, of `GET /agents/{id}/runs/{run_id}` and of a continue. `to_dict`
 * leaves out every field that is None, so each field is optional except those with a default.
 * The nested dicts (messages, tools, requirements, metrics, media) are agno's own `to_dict()`s,
 * checked for the keys that identify them.
 */

const free = z.record(z.string(), z.unknown());
const list = z.array(z.unknown()).min(1);
/** agno's `Message.to_dict()`: None and empty collections are left out, `created_at` always there. */
const message = z.strictObject({
  id: z.string().optional(),
  content: z.unknown().optional(),
  reasoning_content: z.string().optional(),
  from_history: z.boolean().optional(),
  compressed_content: z.string().optional(),
  stop_after_tool_call: z.boolean().optional(),
  role: z.string(),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
  tool_name: z.string().optional(),
  tool_args: free.optional(),
  tool_call_error: z.boolean().optional(),
  tool_calls: list.optional(),
  redacted_reasoning_content: z.string().optional(),
  provider_data: free.optional(),
  checkpoint_status: z.string().optional(),
  checkpoint_created_at: z.number().int().optional(),
  images: list.optional(),
  audio: list.optional(),
  videos: list.optional(),
  files: list.optional(),
  audio_output: free.optional(),
  references: free.optional(),
  metrics: free.optional(),
  created_at: z.number().int(),
});
const toolExecution = z.looseObject({ tool_name: z.string().nullable().optional() });
const mediaList = z.array(free);

export const runInputSchema = z.strictObject({
  input_content: z.unknown(),
  images: mediaList.optional(),
  videos: mediaList.optional(),
  audios: mediaList.optional(),
  files: mediaList.optional(),
});

export const runOutputSchema = agnoObject(
  { model: "RunOutput", file: "run/agent.py" },
  {
    run_id: z.string(),
    agent_id: z.string().optional(),
    agent_name: z.string().optional(),
    session_id: z.string().optional(),
    parent_run_id: z.string().optional(),
    workflow_id: z.string().optional(),
    user_id: z.string().optional(),
    input: runInputSchema.optional(),
    content: z.unknown().optional(),
    content_type: z.string().describe('"str" for text, else the structured output\'s name'),
    reasoning_content: z.string().optional(),
    reasoning_steps: z.array(free).optional(),
    reasoning_messages: z.array(message).optional(),
    model_provider_data: free.optional(),
    model: z.string().optional(),
    model_provider: z.string().optional(),
    messages: z.array(message).optional(),
    metrics: free.optional(),
    additional_input: z.array(message).optional(),
    tools: z.array(toolExecution).optional(),
    images: mediaList.optional(),
    videos: mediaList.optional(),
    audio: mediaList.optional(),
    files: mediaList.optional(),
    response_audio: free.optional(),
    citations: free.optional(),
    references: z.array(free).optional(),
    followups: z.array(z.string()).optional(),
    metadata: free.optional(),
    session_state: free.optional(),
    created_at: z.number().int().describe("Unix seconds"),
    events: z.array(free).optional(),
    status: z.enum(RUN_STATUSES),
    queue_attempt: z.number().int().optional(),
    requirements: z.array(free).optional(),
    last_checkpoint_at_message_index: z.number().int().optional(),
    forked_from_run_id: z.string().optional(),
    forked_from_message_index: z.number().int().optional(),
    forked_from_session_id: z.string().optional(),
    regenerated_from: z.string().optional(),
    workflow_step_id: z.string().optional(),
  },
  {
    updated_at: z.number().int().optional(),
    error: z.looseObject({ message: z.string(), type: z.string() }).optional(),
    memory_update_error: z.string().optional(),
  },
);

/**
 * A stored or returned run as agno's `to_dict()` answers it: the fields that hold None are left
 * out, as agno leaves them out, and a field agno's dataclass defaults is there (a run the queue
 * accepted is stored before it has a content type).
 */
export function runOutputDict(run: object): Record<string, unknown> {
  const out: Record<string, unknown> = {
    content_type: "str",
    ...Object.fromEntries(Object.entries(run).filter(([, v]) => v !== null && v !== undefined)),
  };
  for (const key of ["messages", "reasoning_messages", "additional_input"])
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(messageDict);
  return out;
}

const isEmpty = (v: unknown) =>
  v === null ||
  v === undefined ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);

/** One message as agno's `Message.to_dict()` writes it: no None, no empty list or dict. */
function messageDict(message: unknown): unknown {
  if (typeof message !== "object" || message === null) return message;
  return Object.fromEntries(Object.entries(message).filter(([k, v]) => k === "created_at" || !isEmpty(v)));
}
