import { z } from "zod";
import { RUN_STATUSES } from "../../db/types.js";
import { agentResponseSchema } from "./agents.js";
import { agnoObject } from "./agno-object.js";
import { teamResponseSchema, teamRunOutputDict } from "./teams.js";
import { runOutputDict } from "./run-output.js";

/*
 * The workflow routes' answers, as agno 3.0 writes them (libs/agno/agno/os/routers/workflows/).
 * The listing and detail are `WorkflowResponse` with `response_model_exclude_none`; a run answer
 * is `WorkflowRunOutput.to_dict()`, which leaves out every None (and empty step lists).
 */

const free = z.record(z.string(), z.unknown());

/**
 * One step as agno's `Workflow.to_dict_for_steps` describes it, agents and teams expanded to their
 * responses and None pruned (`WorkflowResponse._resolve_agents_and_teams_recursively`).
 */
export const workflowStepSchema: z.ZodType = z
  .strictObject({
    name: z.string(),
    description: z.string().optional(),
    type: z.string().describe("Step, Steps, Loop, Parallel, Condition or Router"),
    agent: agentResponseSchema.optional(),
    team: teamResponseSchema.optional(),
    steps: z.array(z.lazy(() => workflowStepSchema)).optional(),
    else_steps: z.array(z.lazy(() => workflowStepSchema)).optional(),
  })
  .meta({ id: "WorkflowStep", "x-agno": "libs/agno/agno/workflow/workflow.py:Workflow.to_dict_for_steps" });

/** agno's WorkflowResponse (`os/routers/workflows/schema.py`). */
export const workflowResponseSchema = agnoObject(
  { model: "WorkflowResponse", file: "os/routers/workflows/schema.py" },
  {
    id: z.string().optional(),
    name: z.string().optional(),
    db_id: z.string().optional().describe("The database its sessions and runs are stored in"),
    description: z.string().optional(),
    input_schema: free.optional(),
    steps: z.array(workflowStepSchema).optional(),
    agent: agentResponseSchema.optional(),
    team: teamResponseSchema.optional(),
    metadata: free.optional(),
    workflow_agent: z.boolean(),
    is_factory: z.boolean().describe("Built per request by a factory (never, in agno-edge)"),
    factory_input_schema: free.optional(),
    is_component: z.boolean().describe("Loaded from the component registry rather than defined in code"),
    current_version: z.number().int().optional(),
    stage: z.string().optional(),
  },
);

/** agno's WorkflowRunOutput as `to_dict()` writes it (`run/workflow.py`). */
export const workflowRunOutputSchema = agnoObject(
  { model: "WorkflowRunOutput", file: "run/workflow.py" },
  {
    input: z.unknown().optional(),
    content: z.unknown().optional(),
    content_type: z.string(),
    workflow_id: z.string().optional(),
    workflow_name: z.string().optional(),
    run_id: z.string().optional(),
    session_id: z.string().optional(),
    user_id: z.string().optional(),
    parent_run_id: z.string().optional(),
    workflow_step_id: z.string().optional(),
    images: z.array(free).optional(),
    videos: z.array(free).optional(),
    audio: z.array(free).optional(),
    files: z.array(free).optional(),
    response_audio: free.optional(),
    step_results: z.array(free).optional().describe("Each step's StepOutput, nested lists flattened"),
    step_executor_runs: z.array(free).optional().describe("The agent and team runs the steps made"),
    workflow_agent_run: free.optional(),
    events: z.array(free).optional(),
    metrics: free.optional(),
    metadata: free.optional(),
    created_at: z.number().int().describe("Unix seconds"),
    status: z.enum(RUN_STATUSES),
    queue_attempt: z.number().int().optional(),
    step_requirements: z.array(free).optional().describe("The reviews the run paused for, the last one active"),
    error_requirements: z.array(free).optional(),
    paused_step_index: z.number().int().optional(),
    paused_step_name: z.string().optional(),
    pause_kind: z.string().optional(),
  },
  {
    updated_at: z.number().int().optional(),
    error: z.looseObject({ message: z.string(), type: z.string() }).optional(),
  },
);

/** Fields a stored workflow run keeps for itself (to continue), which agno's WorkflowRunOutput has not. */
const KEPT_TO_ITSELF = new Set(["session_state", "additional_data", "paused_frames", "checkpoint"]);

/**
 * A workflow run as agno's `WorkflowRunOutput.to_dict()` writes it: no None, no empty step
 * lists, the executor runs written by their own kind's `to_dict()`.
 */
export function workflowRunOutputDict(run: object): Record<string, unknown> {
  const out: Record<string, unknown> = {
    content_type: "str",
    ...Object.fromEntries(
      Object.entries(run).filter(([k, v]) => v !== null && v !== undefined && !KEPT_TO_ITSELF.has(k)),
    ),
  };
  for (const key of ["step_results", "step_executor_runs"])
    if (Array.isArray(out[key]) && (out[key] as unknown[]).length === 0) delete out[key];
  if (Array.isArray(out.step_executor_runs))
    out.step_executor_runs = (out.step_executor_runs as Record<string, unknown>[]).map((r) =>
      typeof r.team_id === "string" && !r.agent_id ? teamRunOutputDict(r) : runOutputDict(r),
    );
  return out;
}
