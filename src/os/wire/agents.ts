import { z } from "zod";
import { agnoObject } from "./agno-object.js";
import { runOutputSchema } from "./run-output.js";

/*
 * The agent routes' answers, as agno 3.0 writes them (libs/agno/agno/os/routers/agents/). The
 * agent listing and detail are `AgentResponse` with `response_model_exclude_none`: an unset field
 * is absent, never null. A run answer is `RunOutput.to_dict()`, which also leaves out every None.
 */

const free = z.record(z.string(), z.unknown());

/** agno's ModelResponse (`os/schema.py`), as the agent detail nests it: only the fields agno knows. */
export const modelResponseSchema = agnoObject(
  { model: "ModelResponse", file: "os/schema.py" },
  {
    name: z.string().optional().describe("The model's class name"),
    model: z.string().optional().describe("The model id"),
    provider: z.string().optional().describe("The model provider"),
  },
);

/** `ModelResponse(...).model_dump()` inside a config block: every key, null when unknown. */
const dumpedModel = z.strictObject({
  name: z.string().nullable().optional(),
  model: z.string().nullable().optional(),
  provider: z.string().nullable().optional(),
});

/** One tool as agno's `Function.to_dict()` lists it (its serialised fields, None left out). */
const functionDict = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  parameters: free,
  strict: z.boolean().optional(),
  requires_confirmation: z.boolean(),
  external_execution: z.boolean(),
  approval_type: z.enum(["required", "audit"]).optional(),
});

/*
 * Each configuration block is agno's `filter_meaningful_config` output: the keys `from_agent`
 * builds, minus those that are None or at agno's default; a block left empty is absent.
 */
const toolsBlock = z.strictObject({
  tools: z.array(functionDict).optional(),
  tool_call_limit: z.number().int().optional(),
  tool_choice: z.union([z.string(), free]).optional(),
});
const sessionsBlock = z.strictObject({
  session_table: z.string().optional(),
  add_history_to_context: z.boolean().optional(),
  enable_session_summaries: z.boolean().optional(),
  num_history_runs: z.number().int().optional(),
  search_past_sessions: z.boolean().optional(),
  num_past_sessions_to_search: z.number().int().optional(),
  num_past_session_runs_in_search: z.number().int().optional(),
  cache_session: z.boolean().optional(),
});
const knowledgeBlock = z.strictObject({
  db_id: z.string().optional(),
  knowledge_table: z.string().optional(),
  enable_agentic_knowledge_filters: z.boolean().optional(),
  knowledge_filters: z.unknown().optional(),
  references_format: z.string().optional(),
});
const memoryBlock = z.strictObject({
  enable_agentic_memory: z.boolean().optional(),
  update_memory_on_run: z.boolean().optional(),
  metadata: free.optional(),
  memory_table: z.string().optional(),
  model: dumpedModel.optional(),
});
const reasoningBlock = z.strictObject({
  reasoning: z.boolean().optional(),
  reasoning_agent_id: z.string().optional(),
  reasoning_model: dumpedModel.optional(),
});
const defaultToolsBlock = z.strictObject({
  read_chat_history: z.boolean().optional(),
  search_knowledge: z.boolean().optional(),
  update_knowledge: z.boolean().optional(),
  read_tool_call_history: z.boolean().optional(),
});
const systemMessageBlock = z.strictObject({
  system_message: z.string().optional(),
  system_message_role: z.string().optional(),
  build_context: z.boolean().optional(),
  description: z.string().optional(),
  instructions: z.union([z.string(), z.array(z.string())]).optional(),
  expected_output: z.string().optional(),
  additional_context: z.string().optional(),
  markdown: z.boolean().optional(),
  add_name_to_context: z.boolean().optional(),
  add_datetime_to_context: z.boolean().optional(),
  add_location_to_context: z.boolean().optional(),
  timezone_identifier: z.string().optional(),
  resolve_in_context: z.boolean().optional(),
});
const extraMessagesBlock = z.strictObject({
  additional_input: z.array(z.unknown()).optional(),
  user_message_role: z.string().optional(),
  build_user_context: z.boolean().optional(),
});
const responseSettingsBlock = z.strictObject({
  retries: z.number().int().optional(),
  delay_between_retries: z.number().optional(),
  exponential_backoff: z.boolean().optional(),
  output_schema_name: z.string().optional(),
  parser_model_prompt: z.string().optional(),
  parse_response: z.boolean().optional(),
  structured_outputs: z.boolean().optional(),
  use_json_mode: z.boolean().optional(),
  save_response_to_file: z.string().optional(),
  parser_model: dumpedModel.optional(),
});
const streamingBlock = z.strictObject({
  stream: z.boolean().optional(),
  stream_events: z.boolean().optional(),
});

export const agentResponseSchema = agnoObject(
  { model: "AgentResponse", file: "os/routers/agents/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    db_id: z.string().optional().describe("The database its sessions and runs are stored in"),
    description: z.string().optional(),
    role: z.string().optional(),
    is_factory: z.boolean().describe("Built per request by a factory (never, in agno-edge)"),
    model: modelResponseSchema.optional(),
    tools: toolsBlock.optional(),
    sessions: sessionsBlock.optional(),
    knowledge: knowledgeBlock.optional(),
    memory: memoryBlock.optional(),
    reasoning: reasoningBlock.optional(),
    default_tools: defaultToolsBlock.optional(),
    system_message: systemMessageBlock.optional(),
    extra_messages: extraMessagesBlock.optional(),
    response_settings: responseSettingsBlock.optional(),
    introduction: z.string().optional(),
    streaming: streamingBlock.optional(),
    metadata: free.optional(),
    input_schema: free.optional(),
    factory_input_schema: free.optional(),
    is_component: z.boolean().describe("Loaded from the component registry rather than defined in code"),
    current_version: z.number().int().optional(),
    stage: z.string().optional(),
  },
);

/** `POST /agents/{agent_id}/sessions/{session_id}/fork`: the new session and the one it was copied from. */
export const forkSessionResponseSchema = agnoObject(
  { model: "ForkAgentSessionResponse", file: "os/routers/agents/router.py" },
  {
    session_id: z.string().describe("The new session"),
    forked_from_session_id: z.string().describe("The session it copies"),
  },
);

/**
 * `POST /agents/{agent_id}/runs/{run_id}/cancel`: agno answers an empty object; agno-edge says
 * which run and whether it was still running.
 */
export const cancelRunResponseSchema = agnoObject(
  { model: "CancelAgentRunResponse", file: "os/routers/agents/router.py" },
  {},
  {
    run_id: z.string(),
    cancelled: z.boolean(),
  },
);

/** A background run's acceptance (202): agno's `{run_id, session_id, status}`. */
export const acceptedRunResponseSchema = agnoObject(
  { model: "AcceptedRunResponse", file: "os/routers/agents/router.py" },
  {
    run_id: z.string(),
    session_id: z.string(),
    status: z.enum(["PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR"]),
  },
  { job_id: z.string() },
);

/** One continuation boundary of a run, as agno's `os/checkpoints.py` derives it. */
export const runCheckpointSchema = agnoObject(
  { model: "RunCheckpoint", file: "os/checkpoints.py" },
  {
    checkpoint_id: z.string().nullable().describe('Its position in the run\'s list, from "1"'),
    run_id: z.string(),
    session_id: z.string(),
    message_index: z.number().int().describe("The boundary: the messages before it are kept"),
    continue_from: z.number().int().describe("What to send as `continue_from` to continue from here"),
    status: z.string(),
    reason: z.enum(["checkpoint", "end", "snapshot"]),
    created_at: z.number().int().nullable(),
    message_id: z.string().nullable(),
    message_role: z.string().nullable(),
    message_preview: z.string().nullable(),
    is_latest: z.boolean(),
  },
);

/** `GET /agents/{agent_id}/runs/{run_id}/checkpoints`. */
export const runCheckpointsResponseSchema = agnoObject(
  { model: "RunCheckpointsResponse", file: "os/routers/agents/router.py" },
  {
    run_id: z.string(),
    session_id: z.string(),
    checkpoints: z.array(runCheckpointSchema),
  },
);

/** `GET /agents/{agent_id}/runs/{run_id}/checkpoints/{message_index}`: the boundary and the run cut there. */
export const runCheckpointSnapshotSchema = agnoObject(
  { model: "RunCheckpointSnapshot", file: "os/checkpoints.py" },
  {
    checkpoint: runCheckpointSchema,
    snapshot: runOutputSchema,
  },
);
