import { pageOf, resolvePage } from "../pagination.js";
import type { ApprovalDecision, ApprovalFilter, ApprovalRecord, ApprovalStore } from "../ports/approval-store.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import { compareIds, copy, stored, type MemoryTables } from "./tables.js";

function matches(a: ApprovalRecord, f: ApprovalFilter): boolean {
  const eq = (value: string | null, wanted: string | undefined) => wanted === undefined || value === wanted;
  return (
    eq(a.status, f.status) &&
    eq(a.source_type, f.sourceType) &&
    eq(a.approval_type, f.approvalType) &&
    eq(a.pause_type, f.pauseType) &&
    eq(a.agent_id, f.agentId) &&
    eq(a.team_id, f.teamId) &&
    eq(a.workflow_id, f.workflowId) &&
    eq(a.user_id, f.userId) &&
    eq(a.schedule_id, f.scheduleId) &&
    eq(a.run_id, f.runId)
  );
}

/** Approvals in memory, as the Postgres adapter keeps them; rows come from paused runs' writes (MemoryRunStore). */
export class MemoryApprovalStore implements ApprovalStore {
  constructor(private readonly t: MemoryTables) {}

  /** A copy of a row with its run's status as it stands. */
  private view(a: ApprovalRecord): ApprovalRecord {
    const run = this.t.runs.get(a.run_id);
    return copy({ ...a, run_status: run?.status ?? a.run_status });
  }

  async getApproval(id: string, opts: { userId?: string } = {}): Promise<ApprovalRecord | null> {
    validateId(id, "approval_id");
    const a = this.t.approvals.get(id);
    return a && (opts.userId === undefined || a.user_id === opts.userId) ? this.view(a) : null;
  }

  async getApprovals(f: ApprovalFilter & { limit?: number; page?: number }): Promise<Page<ApprovalRecord>> {
    const page = resolvePage(f);
    const all = [...this.t.approvals.values()]
      .filter((a) => matches(a, f))
      .sort((a, b) => b.created_at - a.created_at || compareIds(a.id, b.id));
    return pageOf(
      all.slice(page.offset, page.offset + page.limit).map((a) => this.view(a)),
      all.length,
      page,
    );
  }

  async countPendingApprovals(opts: { userId?: string } = {}): Promise<number> {
    return [...this.t.approvals.values()].filter((a) => matches(a, { status: "pending", userId: opts.userId })).length;
  }

  async resolveApproval(id: string, d: ApprovalDecision): Promise<ApprovalRecord | null> {
    validateId(id, "approval_id");
    const a = this.t.approvals.get(id);
    if (!a || a.status !== "pending" || (a.expires_at !== null && a.expires_at <= d.now)) return null;
    const next: ApprovalRecord = stored({
      ...a,
      status: d.status,
      resolved_by: d.resolvedBy,
      resolved_at: d.now,
      resolution_data: d.resolutionData,
      updated_at: d.now,
    });
    this.t.approvals.set(id, next);
    return this.view(next);
  }

  async reopenApproval(id: string, resolvedAt: number): Promise<boolean> {
    validateId(id, "approval_id");
    const a = this.t.approvals.get(id);
    if (!a || (a.status !== "approved" && a.status !== "rejected") || a.resolved_at !== resolvedAt) return false;
    this.t.approvals.set(id, {
      ...a,
      status: "pending",
      resolved_by: null,
      resolved_at: null,
      resolution_data: null,
      updated_at: resolvedAt,
    });
    return true;
  }

  async deleteApproval(id: string): Promise<boolean> {
    validateId(id, "approval_id");
    return this.t.approvals.delete(id);
  }

  async expireApprovals(now: number): Promise<number> {
    let n = 0;
    for (const a of this.t.approvals.values())
      if (a.status === "pending" && a.expires_at !== null && a.expires_at <= now) {
        this.t.approvals.set(a.id, { ...a, status: "expired", updated_at: now });
        n++;
      }
    return n;
  }
}
