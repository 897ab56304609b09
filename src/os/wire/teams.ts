import { z } from "zod";
import { RUN_STATUSES } from "../../db/types.js";
import { agentResponseSchema, modelResponseSchema, runCheckpointSchema } from "./agents.js";
import { agnoObject } from "./agno-object.js";
import { runInputSchema, runOutputDict, runOutputSchema } from "./run-output.js";

/*
 * The team routes' answers, as agno 3.0 writes them (libs/agno/agno/os/routers/teams/). The
 * listing and detail are `TeamResponse` with `response_model_exclude_none`; a run answer is
 * `TeamRunOutput.to_dict()`, which leaves out every None.
 */

const free = z.record(z.string(), z.unknown());

/** agno's TeamResponse (`os/routers/teams/schema.py`): a team, its members as AgentResponse or TeamResponse. */
export const teamResponseSchema: z.ZodType = agnoObject(
  { model: "TeamResponse", file: "os/routers/teams/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    db_id: z.string().optional().describe("The database its sessions and runs are stored in"),
    description: z.string().optional(),
    role: z.string().optional(),
    mode: z.string().optional().describe("coordinate, route, broadcast or tasks"),
    model: modelResponseSchema.optional().describe("The leader's model"),
    tools: free.optional(),
    sessions: free.optional(),
    knowledge: free.optional(),
    memory: free.optional(),
    reasoning: free.optional(),
    default_tools: free.optional(),
    system_message: free.optional(),
    response_settings: free.optional(),
    introduction: z.string().optional(),
    streaming: free.optional(),
    members: z.array(z.union([agentResponseSchema, z.lazy(() => teamResponseSchema)])).optional(),
    metadata: free.optional(),
    input_schema: free.optional(),
    is_factory: z.boolean().describe("Built per request by a factory (never, in agno-edge)"),
    factory_input_schema: free.optional(),
    is_component: z.boolean().describe("Loaded from the component registry rather than defined in code"),
    current_version: z.number().int().optional(),
    stage: z.string().optional(),
  },
);

const message = free;
const mediaList = z.array(free);

/**
 * agno's TeamRunOutput as `to_dict()` writes it (`run/team.py`): a team's own run, its member runs
 * (agents' RunOutput, nested teams' TeamRunOutput) in `member_responses`.
 */
export const teamRunOutputSchema: z.ZodType = agnoObject(
  { model: "TeamRunOutput", file: "run/team.py" },
  {
    run_id: z.string(),
    team_id: z.string().optional(),
    team_name: z.string().optional(),
    session_id: z.string().optional(),
    parent_run_id: z.string().optional(),
    user_id: z.string().optional(),
    input: runInputSchema.optional(),
    content: z.unknown().optional(),
    content_type: z.string(),
    messages: z.array(message).optional(),
    metrics: free.optional(),
    model: z.string().optional(),
    model_provider: z.string().optional(),
    member_responses: z.array(z.union([runOutputSchema, z.lazy(() => teamRunOutputSchema)])),
    tools: z.array(free).optional(),
    images: mediaList.optional(),
    videos: mediaList.optional(),
    audio: mediaList.optional(),
    files: mediaList.optional(),
    response_audio: free.optional(),
    reasoning_content: z.string().optional(),
    citations: free.optional(),
    followups: z.array(z.string()).optional(),
    model_provider_data: free.optional(),
    metadata: free.optional(),
    session_state: free.optional(),
    references: z.array(free).optional(),
    additional_input: z.array(message).optional(),
    reasoning_steps: z.array(free).optional(),
    reasoning_messages: z.array(message).optional(),
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

/** Whether a stored run dict is a team's own run (a nested team among members), not an agent's. */
const isTeamRun = (run: Record<string, unknown>) => typeof run.team_id === "string" && !run.agent_id;

/**
 * A team run as agno's `TeamRunOutput.to_dict()` writes it: no None at any level of its own
 * fields, each member run written by its own kind's `to_dict()`.
 */
export function teamRunOutputDict(run: object): Record<string, unknown> {
  const out = runOutputDict(run);
  const members = Array.isArray(out.member_responses) ? (out.member_responses as Record<string, unknown>[]) : [];
  out.member_responses = members.map((m) => (isTeamRun(m) ? teamRunOutputDict(m) : runOutputDict(m)));
  return out;
}

/** `GET /teams/{team_id}/runs/{run_id}/checkpoints/{message_index}`: the boundary and the team run cut there. */
export const teamRunCheckpointSnapshotSchema = agnoObject(
  { model: "TeamRunCheckpointSnapshot", file: "os/checkpoints.py" },
  {
    checkpoint: runCheckpointSchema,
    snapshot: teamRunOutputSchema,
  },
);
