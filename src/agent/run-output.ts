import type { MessageReferences } from "../knowledge/agent-knowledge.js";
import type { RunStatus } from "../db/types.js";
import type { MediaRecord, Message } from "../models/message.js";
import type { RunMedia } from "./media.js";
import type { TokenUsage } from "../models/model.js";

/** One tool call of a run, in agno's ToolExecution shape. */
export interface ToolExecution {
  tool_call_id: string;
  tool_name: string;
  tool_args: Record<string, unknown>;
  tool_call_error?: boolean;
  result?: string | null;
  stop_after_tool_call?: boolean;
  created_at: number;
  metrics?: { duration: number };
  requires_confirmation?: boolean;
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  requires_user_input?: boolean;
  user_input_schema?: UserInputField[];
  answered?: boolean;
  external_execution_required?: boolean;
  requires_approval?: boolean;
  /** agno's: `required` on a call only an approver may let run */
  approval_type?: "required";
  /** agno's: the approval (`/approvals/{id}`) this call waits on, one per pause */
  approval_id?: string;
  /** on a team run's delegate call: the member run it started (agno's child_run_id) */
  child_run_id?: string;
}

export interface UserInputField {
  name: string;
  field_type: string;
  description?: string | null;
  value?: unknown;
}

/**
 * What a paused run waits for. A person (or the caller) resolves it: confirms or rejects,
 * supplies input, or sends the result of an external execution.
 */
export interface RunRequirement {
  id: string;
  kind: "confirmation" | "user_input" | "external_execution";
  tool_execution: ToolExecution;
  /** only an admin may resolve it */
  requires_admin: boolean;
  created_at: number;
  /** on an approver's requirement: when its approval expires (epoch seconds; the tool's `approvalExpiresIn`) */
  approval_expires_at?: number | null;
  confirmed?: boolean | null;
  confirmation_note?: string | null;
  user_input?: Record<string, unknown> | null;
  external_execution_result?: string | null;
  resolved: boolean;
  /** set when a tool paused from inside its work (CodeMode's run_code): that outer tool's name */
  paused_tool_name?: string;
  /** what that outer tool needs to pick up where it paused; kept on the server, never taken from a client */
  checkpoint?: unknown;
  /** on a team run: the member whose run paused for this (agno's member_agent_id, member_agent_name, member_run_id) */
  member_agent_id?: string;
  member_agent_name?: string | null;
  member_run_id?: string;
}

/** Token and time accounting of a run (SPEC T3); times in seconds. */
export interface RunMetrics extends TokenUsage {
  time_to_first_token?: number;
  duration?: number;
  cost?: number;
  details?: {
    model: Array<
      TokenUsage & { id: string; provider: string; time_to_first_token?: number; duration: number; cost?: number }
    >;
    /** on a team run: each member run's totals, which the run's totals include (its own model calls are `model`) */
    members?: MemberMetrics[];
  };
}

/** One member run's share of its team run's metrics. */
export interface MemberMetrics extends TokenUsage {
  run_id: string;
  agent_id?: string;
  team_id?: string;
  name?: string | null;
  cost?: number;
  duration?: number;
}

/** What the run was given, as agno's RunInput dict: the message, and the media lists when there are any. */
export interface RunInput extends RunMedia {
  input_content: string;
}

/** A run as stored in `agno_runs.run_data` and answered over HTTP: agno's RunOutput dict. */
export interface RunOutput {
  run_id: string;
  /** who ran it (see identityOf): an agent's runs carry agent_id and agent_name, a team's team_id and team_name, … */
  agent_id?: string;
  agent_name?: string;
  team_id?: string;
  team_name?: string;
  workflow_id?: string;
  workflow_name?: string;
  session_id: string;
  user_id?: string | null;
  parent_run_id?: string | null;
  status: RunStatus;
  content?: unknown;
  content_type: string;
  reasoning_content?: string;
  input: RunInput;
  model?: string;
  model_provider?: string;
  messages: Message[];
  tools: ToolExecution[];
  requirements: RunRequirement[];
  metrics: RunMetrics;
  session_state?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  error?: { message: string; type: string; kind?: string };
  /** media the run's tools produced (agno's RunOutput images, audio, videos, files) */
  images?: MediaRecord[];
  audio?: MediaRecord[];
  videos?: MediaRecord[];
  files?: MediaRecord[];
  /** a team run's member runs, as agno's TeamRunOutput holds them (each is also a row of its own) */
  member_responses?: RunOutput[];
  /** what knowledge retrievals found for this run (search_knowledge_base, addKnowledgeToContext), as agno's MessageReferences */
  references?: MessageReferences[];
  /** set when updateMemoryOnRun could not store the run's memories (the run itself succeeded) */
  memory_update_error?: string;
  created_at: number;
  updated_at?: number;
  /** where a continue cut this run's transcript last (a message boundary) */
  last_checkpoint_at_message_index?: number;
  /** lineage of a run made by a continue with fork or regenerate, or by a session fork */
  forked_from_run_id?: string;
  forked_from_message_index?: number;
  forked_from_session_id?: string;
  regenerated_from?: string;
}
