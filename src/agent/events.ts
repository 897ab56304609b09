import type { RunOutput, RunRequirement, ToolExecution } from "./run-output.js";

/** agno's agent event names; the SSE `event:` line carries the same name. */
export type RunEventName =
  | "RunStarted"
  | "RunContent"
  | "ToolCallStarted"
  | "ToolCallCompleted"
  | "ToolCallError"
  | "ModelRequestStarted"
  | "ModelRequestCompleted"
  | "RunPaused"
  | "RunContinued"
  | "RunCompleted"
  | "RunError"
  | "RunCancelled";

interface Base<E extends RunEventName> {
  event: E;
  run_id: string;
  session_id: string;
  /** the component's identity (identityOf): agent_id and agent_name for an agent's run, team_id and team_name for a team's, … */
  agent_id?: string;
  agent_name?: string;
  team_id?: string;
  team_name?: string;
  workflow_id?: string;
  workflow_name?: string;
  created_at: number;
}

export type RunEvent =
  | (Base<"RunStarted"> & { model: string; model_provider: string })
  | (Base<"RunContent"> & { content?: string; reasoning_content?: string; content_type: string })
  | (Base<"ToolCallStarted"> & { tool: ToolExecution })
  | (Base<"ToolCallCompleted"> & { tool: ToolExecution; content?: string | null })
  | (Base<"ToolCallError"> & { tool: ToolExecution; error: string })
  | (Base<"ModelRequestStarted"> & { model: string; model_provider: string })
  | (Base<"ModelRequestCompleted"> & {
      model: string;
      model_provider: string;
      input_tokens: number;
      output_tokens: number;
      time_to_first_token?: number;
    })
  | (Base<"RunPaused"> & { tools: ToolExecution[]; requirements: RunRequirement[] })
  | Base<"RunContinued">
  | (Base<"RunCompleted"> & Pick<RunOutput, "content" | "content_type" | "metrics"> & { reasoning_content?: string })
  | (Base<"RunError"> & { content: string; error_type: string; error_id?: string; error_kind?: string })
  | (Base<"RunCancelled"> & { reason: string });

export type EventOf<E extends RunEventName> = Extract<RunEvent, { event: E }>;
