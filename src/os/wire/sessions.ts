import { z } from "zod";
import { agnoDatetime, agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/**
 * agno's session and run models (`os/schema.py` on `feat/v3.0`), field for field. Their optional
 * fields are `.nullable().optional()`: the routes that answer with `response_model_exclude_none`
 * (the session list, a session, a session's runs) leave a None out, the others (rename, update,
 * one run) send it as null.
 */
const SOURCE = "os/schema.py";

const dict = () => z.record(z.string(), z.unknown());
const maybe = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** `SessionSchema`: one entry of `GET /sessions`. */
export const sessionSchema = agnoObject(
  { model: "SessionSchema", file: SOURCE },
  {
    session_id: z.string(),
    session_name: z.string().describe("The stored name, else agno's derivation: the first user message"),
    session_state: maybe(dict()),
    created_at: maybe(agnoDatetime()),
    updated_at: maybe(agnoDatetime()),
    session_type: maybe(z.string()).describe("agent, team or workflow"),
    user_id: maybe(z.string()),
    agent_id: maybe(z.string()),
    team_id: maybe(z.string()),
    workflow_id: maybe(z.string()),
    session_summary: maybe(dict()),
    metrics: maybe(dict()).describe("session_data.session_metrics"),
    total_tokens: maybe(z.number().int()),
    metadata: maybe(dict()),
  },
);

export const paginatedSessionsSchema = paginated(sessionSchema);

/** `AgentSessionDetailSchema`: an agent session with its chat history. */
export const agentSessionDetailSchema = agnoObject(
  { model: "AgentSessionDetailSchema", file: SOURCE },
  {
    user_id: maybe(z.string()),
    agent_session_id: z.string(),
    session_id: z.string(),
    session_name: z.string(),
    session_summary: maybe(dict()),
    session_state: maybe(dict()),
    agent_id: maybe(z.string()),
    total_tokens: maybe(z.number().int()),
    agent_data: maybe(dict()),
    metrics: maybe(dict()),
    metadata: maybe(dict()),
    chat_history: maybe(z.array(dict())),
    created_at: maybe(agnoDatetime()),
    updated_at: maybe(agnoDatetime()),
  },
);

/** `TeamSessionDetailSchema`. */
export const teamSessionDetailSchema = agnoObject(
  { model: "TeamSessionDetailSchema", file: SOURCE },
  {
    session_id: z.string(),
    session_name: z.string(),
    user_id: maybe(z.string()),
    team_id: maybe(z.string()),
    session_summary: maybe(dict()),
    session_state: maybe(dict()),
    metrics: maybe(dict()),
    team_data: maybe(dict()),
    metadata: maybe(dict()),
    chat_history: maybe(z.array(dict())),
    created_at: maybe(agnoDatetime()),
    updated_at: maybe(agnoDatetime()),
    total_tokens: maybe(z.number().int()),
  },
);

/** `WorkflowSessionDetailSchema`. */
export const workflowSessionDetailSchema = agnoObject(
  { model: "WorkflowSessionDetailSchema", file: SOURCE },
  {
    user_id: maybe(z.string()),
    workflow_id: maybe(z.string()),
    workflow_name: maybe(z.string()),
    session_id: z.string(),
    session_name: z.string(),
    session_data: maybe(dict()),
    session_state: maybe(dict()),
    workflow_data: maybe(dict()),
    metadata: maybe(dict()),
    created_at: maybe(agnoDatetime()),
    updated_at: maybe(agnoDatetime()),
  },
);

/** The session routes' `Union[AgentSessionDetailSchema, TeamSessionDetailSchema, WorkflowSessionDetailSchema]`. */
export const sessionDetailSchema = z
  .union([agentSessionDetailSchema, teamSessionDetailSchema, workflowSessionDetailSchema])
  .meta({
    "x-agno": `libs/agno/agno/${SOURCE}:AgentSessionDetailSchema | TeamSessionDetailSchema | WorkflowSessionDetailSchema`,
  });

/** What agent and team runs share: output, reasoning, media, lineage. */
const runFields = {
  status: maybe(z.string()).describe("PENDING, RUNNING, COMPLETED, PAUSED, CANCELLED, ERROR"),
  run_input: maybe(z.string()).describe("The run's input as text (agno's get_run_input)"),
  content: maybe(z.union([z.string(), dict()])),
  run_response_format: maybe(z.string()).describe("text, or json for structured output"),
  reasoning_content: maybe(z.string()),
  reasoning_steps: maybe(z.array(dict())),
  metrics: maybe(dict()),
  messages: maybe(z.array(dict())),
  tools: maybe(z.array(dict())),
  events: maybe(z.array(dict())),
  created_at: maybe(agnoDatetime()),
  references: maybe(z.array(dict())),
  citations: maybe(dict()),
  reasoning_messages: maybe(z.array(dict())),
  session_state: maybe(dict()),
  images: maybe(z.array(dict())),
  videos: maybe(z.array(dict())),
  audio: maybe(z.array(dict())),
  files: maybe(z.array(dict())),
  response_audio: maybe(dict()),
  input_media: maybe(dict()).describe("The input's images, videos, audios and files"),
  followups: maybe(z.array(z.string())),
  forked_from_run_id: maybe(z.string()),
  forked_from_message_index: maybe(z.number().int()),
  forked_from_session_id: maybe(z.string()),
  regenerated_from: maybe(z.string()),
  last_checkpoint_at_message_index: maybe(z.number().int()),
};

/** `RunSchema`: an agent run as agno lists it. */
export const runSchema = agnoObject(
  { model: "RunSchema", file: SOURCE },
  {
    run_id: z.string(),
    parent_run_id: maybe(z.string()),
    agent_id: maybe(z.string()),
    user_id: maybe(z.string()),
    ...runFields,
  },
);

/** `TeamRunSchema`: a team's own run (its members' runs are `RunSchema`s). */
export const teamRunSchema = agnoObject(
  { model: "TeamRunSchema", file: SOURCE },
  {
    run_id: z.string(),
    parent_run_id: maybe(z.string()),
    team_id: maybe(z.string()),
    ...runFields,
  },
);

/** `WorkflowRunSchema`. */
export const workflowRunSchema = agnoObject(
  { model: "WorkflowRunSchema", file: SOURCE },
  {
    run_id: z.string(),
    run_input: maybe(z.string()),
    events: maybe(z.array(dict())),
    workflow_id: maybe(z.string()),
    user_id: maybe(z.string()),
    content: maybe(z.union([z.string(), dict()])),
    content_type: maybe(z.string()),
    status: maybe(z.string()),
    step_results: maybe(z.array(dict())),
    step_executor_runs: maybe(z.array(dict())),
    step_requirements: maybe(z.array(dict())),
    pause_kind: maybe(z.string()),
    paused_step_name: maybe(z.string()),
    paused_step_index: maybe(z.number().int()),
    metrics: maybe(dict()),
    created_at: maybe(agnoDatetime()),
    reasoning_content: maybe(z.string()),
    reasoning_steps: maybe(z.array(dict())),
    references: maybe(z.array(dict())),
    citations: maybe(dict()),
    reasoning_messages: maybe(z.array(dict())),
    images: maybe(z.array(dict())),
    videos: maybe(z.array(dict())),
    audio: maybe(z.array(dict())),
    files: maybe(z.array(dict())),
    response_audio: maybe(dict()),
  },
);

/** The run routes' `Union[RunSchema, TeamRunSchema, WorkflowRunSchema]`. */
export const anyRunSchema = z.union([runSchema, teamRunSchema, workflowRunSchema]).meta({
  "x-agno": `libs/agno/agno/${SOURCE}:RunSchema | TeamRunSchema | WorkflowRunSchema`,
});
