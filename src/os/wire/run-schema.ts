import { z } from "zod";
import { agnoDatetime, agnoObject } from "./agno-object.js";

const free = z.record(z.string(), z.unknown());

/**
 * agno's RunSchema (`os/schema.py`): one run in a listing, derived from the run dict by
 * `RunSchema.from_dict`. FastAPI serialises the model whole, so every field is present, null
 * when the run has none.
 */
export const runSchemaSchema = agnoObject(
  { model: "RunSchema", file: "os/schema.py" },
  {
    run_id: z.string(),
    parent_run_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    user_id: z.string().nullable(),
    status: z.string().nullable(),
    run_input: z.string().nullable().describe("The run's input as text"),
    content: z.union([z.string(), free]).nullable(),
    run_response_format: z.enum(["text", "json"]).nullable(),
    reasoning_content: z.string().nullable(),
    reasoning_steps: z.array(free).nullable(),
    metrics: free.nullable(),
    messages: z.array(free).nullable(),
    tools: z.array(free).nullable(),
    events: z.array(free).nullable(),
    created_at: agnoDatetime().nullable(),
    references: z.array(free).nullable(),
    citations: free.nullable(),
    reasoning_messages: z.array(free).nullable(),
    session_state: free.nullable(),
    images: z.array(free).nullable(),
    videos: z.array(free).nullable(),
    audio: z.array(free).nullable(),
    files: z.array(free).nullable(),
    response_audio: free.nullable(),
    input_media: z.strictObject({
      images: z.array(free),
      videos: z.array(free),
      audios: z.array(free),
      files: z.array(free),
    }),
    followups: z.array(z.string()).nullable(),
    forked_from_run_id: z.string().nullable(),
    forked_from_message_index: z.number().int().nullable(),
    forked_from_session_id: z.string().nullable(),
    regenerated_from: z.string().nullable(),
    last_checkpoint_at_message_index: z.number().int().nullable(),
  },
);
