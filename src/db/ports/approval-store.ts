import type { Page } from "../types.js";

/** agno's approval statuses: `pending` until an approver decides or its `expires_at` passes. */
export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired", "cancelled"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * One row of agno's `agno_approvals` (APPROVAL_TABLE_SCHEMA): a run paused on a tool that needs an
 * approver. `run_status` is the run's status as it stands, read with the row.
 */
export interface ApprovalRecord {
  id: string;
  run_id: string;
  session_id: string;
  status: ApprovalStatus;
  /** `agent`, `team` or `workflow`: whose run it is */
  source_type: string;
  /** `required` (the run waits for it) or `audit` (a record of a decision made elsewhere) */
  approval_type: string | null;
  /** what the tool waits for: `confirmation`, `user_input` or `external_execution` */
  pause_type: string | null;
  tool_name: string | null;
  tool_args: Record<string, unknown> | null;
  /** epoch seconds; a pending approval past it reads as `expired` and cannot be resolved */
  expires_at: number | null;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  /** who started the run (not the approver) */
  user_id: string | null;
  schedule_id: string | null;
  schedule_run_id: string | null;
  source_name: string | null;
  /** the run's requirements when it paused */
  requirements: Array<Record<string, unknown>> | null;
  context: Record<string, unknown> | null;
  /** what the approver sent with the decision (its `reason`, input values, an external result) */
  resolution_data: Record<string, unknown> | null;
  resolved_by: string | null;
  resolved_at: number | null;
  created_at: number;
  updated_at: number | null;
  run_status: string | null;
}

/** agno's get_approvals filters (equality on each); `userId` scopes to one requester's rows. */
export interface ApprovalFilter {
  status?: ApprovalStatus;
  sourceType?: string;
  approvalType?: string;
  pauseType?: string;
  agentId?: string;
  teamId?: string;
  workflowId?: string;
  userId?: string;
  scheduleId?: string;
  runId?: string;
}

/** An approver's decision, as `resolveApproval` records it. */
export interface ApprovalDecision {
  status: "approved" | "rejected";
  resolvedBy: string | null;
  resolutionData: Record<string, unknown> | null;
  /** epoch seconds: the decision's time, and the instant the approval must not have expired by */
  now: number;
}

/**
 * Approvals. Rows are created by the write that stores a run as PAUSED (see migrations/0008),
 * never through this port, so a pause and its approval commit together.
 */
export interface ApprovalStore {
  /** one approval; with `userId`, only that requester's */
  getApproval(id: string, opts?: { userId?: string }): Promise<ApprovalRecord | null>;
  /** newest first (agno's order), a page */
  getApprovals(filter: ApprovalFilter & { limit?: number; page?: number }): Promise<Page<ApprovalRecord>>;
  /** pending approvals, of one requester with `userId` */
  countPendingApprovals(opts?: { userId?: string }): Promise<number>;
  /**
   * Records a decision on a pending approval that has not expired by `decision.now`
   * (compare-and-set): null when it is not pending (decided, expired, gone), nothing written.
   */
  resolveApproval(id: string, decision: ApprovalDecision): Promise<ApprovalRecord | null>;
  /**
   * Puts back to pending an approval decided at `resolvedAt` (the decision could not be acted on);
   * false when it was changed since.
   */
  reopenApproval(id: string, resolvedAt: number): Promise<boolean>;
  deleteApproval(id: string): Promise<boolean>;
  /** pending approvals whose `expires_at` is at or before `now` become `expired`; how many did */
  expireApprovals(now: number): Promise<number>;
}
