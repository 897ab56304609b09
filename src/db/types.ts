/**
 * Storage records. They keep agno's snake_case keys because they are agno's wire and table
 * format: a run's `run_data` is the run dict that AgentOS clients read, and a database written
 * by agno 3.0 reads back unchanged.
 */
export type RunType = "agent" | "team" | "workflow";
export type SessionType = RunType;
/** REGENERATED is written by agno 2.6.19+ for a run replaced by a regeneration. */
export const RUN_STATUSES = ["PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR", "REGENERATED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A run as stored: agno's run dict. The columns of `agno_runs` are derived from these keys. */
export interface RunRecord {
  run_id: string;
  session_id: string;
  agent_id?: string | null;
  team_id?: string | null;
  workflow_id?: string | null;
  user_id?: string | null;
  parent_run_id?: string | null;
  status?: RunStatus | string | null;
  created_at?: number | null;
  updated_at?: number | null;
  messages?: MessageRecord[];
  [key: string]: unknown;
}

export interface MessageRecord {
  role: string;
  content?: unknown;
  from_history?: boolean;
  [key: string]: unknown;
}

/** A run row: the indexed columns next to the full run dict. */
export interface RunRow {
  run_id: string;
  session_id: string;
  run_type: RunType;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  parent_run_id: string | null;
  status: string | null;
  run_index: number;
  created_at: number;
  updated_at: number | null;
  run_data: RunRecord;
}

/** A session row of `agno_sessions`; `runs` is filled only by reads that join the runs back. */
export interface SessionRecord {
  session_id: string;
  session_type: SessionType;
  agent_id?: string | null;
  team_id?: string | null;
  workflow_id?: string | null;
  user_id?: string | null;
  session_data?: Record<string, unknown> | null;
  agent_data?: Record<string, unknown> | null;
  team_data?: Record<string, unknown> | null;
  workflow_data?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  summary?: Record<string, unknown> | null;
  created_at?: number;
  updated_at?: number | null;
  runs?: RunRecord[];
}

export type SortOrder = "asc" | "desc";

export interface PageOptions {
  /** page size; at most `MAX_PAGE_LIMIT`, defaults to `DEFAULT_PAGE_LIMIT` */
  limit?: number;
  /** 1-based page; needs `limit` */
  page?: number;
  sortOrder?: SortOrder;
}

export interface GetRunsOptions extends PageOptions {
  sessionId?: string;
  userId?: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  parentRunId?: string | null;
  runType?: RunType;
  /** with userId: also rows that belong to no user (shared rows, SPEC U2) */
  includeShared?: boolean;
  status?: RunStatus | RunStatus[];
  sortBy?: "created_at" | "updated_at" | "run_index";
}

export interface GetSessionsOptions extends PageOptions {
  sessionType?: SessionType;
  userId?: string;
  componentId?: string;
  sessionName?: string;
  /** with userId: also sessions that belong to no user (shared, SPEC U2) */
  includeShared?: boolean;
  sortBy?: "created_at" | "updated_at";
  /** join each session's runs (default false: listing sessions never loads runs) */
  includeRuns?: boolean;
}

export interface GetSessionOptions {
  /**
   * only the last N top-level runs that can feed history are joined back (agno 3.0's
   * `runs_limit`: member runs and PAUSED/CANCELLED/ERROR/REGENERATED runs are left out)
   */
  runsLimit?: number;
  /** false skips the runs entirely */
  includeRuns?: boolean;
  /** when set, a session of another user reads as absent */
  userId?: string;
  /** with userId: a session that belongs to no user reads too (shared, SPEC U2) */
  includeShared?: boolean;
}

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  total_count: number;
  total_pages: number;
}

export type SchemaState = "current" | "migration_required";

/** A fact about a user that agents carry across sessions (agno's UserMemory), a row of `agno_memories`. */
export interface MemoryRecord {
  memory_id: string;
  user_id: string;
  memory: string;
  topics?: string[] | null;
  input?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  created_at?: number;
  updated_at?: number | null;
}
