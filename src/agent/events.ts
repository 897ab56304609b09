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
  /** set on a member's events as they pass through its team: the team run that started it */
  parent_run_id?: string;
  created_at: number;
}

/** An agent's events (and, renamed with agno's `Team` prefix, a team leader's). */
export type AgentRunEvent =
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

/** A team leader's own events: the agent events under agno's team names (`TeamRunStarted`, `TeamToolCallStarted`, …). */
export type TeamLeaderEvent = AgentRunEvent extends infer E
  ? E extends { event: infer N extends RunEventName }
    ? Omit<E, "event"> & { event: `Team${N}` }
    : never
  : never;

/** What a task of a team in `tasks` mode looks like in its events (agno's TaskData). */
export interface TeamTaskData {
  task_id: string;
  title: string;
  status: string;
  assignee?: string | null;
}

/** The events of a team in `tasks` mode, as its task tools change the task list. */
export type TeamTaskEvent =
  | (Omit<Base<RunEventName>, "event"> &
      TeamTaskData & { event: "TeamTaskCreated"; description: string; dependencies: string[] })
  | (Omit<Base<RunEventName>, "event"> &
      TeamTaskData & { event: "TeamTaskUpdated"; previous_status?: string | null; result?: string | null });

/** Every event a run streams: an agent's, a team's (its members' events pass through as their own). */
export type RunEvent = AgentRunEvent | TeamLeaderEvent | TeamTaskEvent;

/** agno's team event names. */
export type TeamEventName = TeamLeaderEvent["event"] | TeamTaskEvent["event"];

export type EventOf<E extends RunEventName | TeamEventName> = Extract<RunEvent, { event: E }>;
