import { sql, type SQL } from "drizzle-orm";
import { pgJson } from "../../json-limits.js";
import { pageOf, resolvePage } from "../pagination.js";
import type { ApprovalDecision, ApprovalFilter, ApprovalRecord, ApprovalStatus } from "../ports/approval-store.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";

const COLUMNS = [
  "id",
  "run_id",
  "session_id",
  "status",
  "source_type",
  "approval_type",
  "pause_type",
  "tool_name",
  "tool_args",
  "expires_at",
  "agent_id",
  "team_id",
  "workflow_id",
  "user_id",
  "schedule_id",
  "schedule_run_id",
  "source_name",
  "requirements",
  "context",
  "resolution_data",
  "resolved_by",
  "resolved_at",
  "created_at",
  "updated_at",
];
/** The columns of `a`, and the run's status as it stands (agno's run_status, read at response time). */
const SELECTED = sql.raw(`${COLUMNS.map((c) => `a.${c}`).join(", ")}, COALESCE(r.status, a.run_status) AS run_status`);

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const int = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toApproval(row: Record<string, unknown>): ApprovalRecord {
  return {
    id: String(row.id),
    run_id: String(row.run_id),
    session_id: String(row.session_id),
    status: String(row.status) as ApprovalStatus,
    source_type: String(row.source_type),
    approval_type: text(row.approval_type),
    pause_type: text(row.pause_type),
    tool_name: text(row.tool_name),
    tool_args: (row.tool_args as Record<string, unknown> | null) ?? null,
    expires_at: int(row.expires_at),
    agent_id: text(row.agent_id),
    team_id: text(row.team_id),
    workflow_id: text(row.workflow_id),
    user_id: text(row.user_id),
    schedule_id: text(row.schedule_id),
    schedule_run_id: text(row.schedule_run_id),
    source_name: text(row.source_name),
    requirements: (row.requirements as Array<Record<string, unknown>> | null) ?? null,
    context: (row.context as Record<string, unknown> | null) ?? null,
    resolution_data: (row.resolution_data as Record<string, unknown> | null) ?? null,
    resolved_by: text(row.resolved_by),
    resolved_at: int(row.resolved_at),
    created_at: Number(row.created_at),
    updated_at: int(row.updated_at),
    run_status: text(row.run_status),
  };
}

function where(f: ApprovalFilter): SQL {
  const parts: SQL[] = [sql`TRUE`];
  const eq = (column: string, value: string | undefined) => {
    if (value !== undefined) parts.push(sql`${sql.raw(`a.${column}`)} = ${value}`);
  };
  eq("status", f.status);
  eq("source_type", f.sourceType);
  eq("approval_type", f.approvalType);
  eq("pause_type", f.pauseType);
  eq("agent_id", f.agentId);
  eq("team_id", f.teamId);
  eq("workflow_id", f.workflowId);
  eq("user_id", f.userId);
  eq("schedule_id", f.scheduleId);
  eq("run_id", f.runId);
  return sql.join(parts, sql` AND `);
}

/** `agno_approvals` reads and decisions; its rows are inserted by the runs table's trigger (migrations/0008). */
export class ApprovalTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
    private readonly runs: SQL,
  ) {}

  /** `SELECT` of approvals with their run's status, from `source` (the table, or a CTE of changed rows). */
  private select(source: SQL): SQL {
    return sql`SELECT ${SELECTED} FROM ${source} AS a LEFT JOIN ${this.runs} AS r ON r.run_id = a.run_id`;
  }

  async get(id: string, opts: { userId?: string } = {}): Promise<ApprovalRecord | null> {
    validateId(id, "approval_id");
    const [row] = await this.exec(
      sql`${this.select(this.table)} WHERE a.id = ${id}${opts.userId !== undefined ? sql` AND a.user_id = ${opts.userId}` : sql``}`,
    );
    return row ? toApproval(row) : null;
  }

  async list(f: ApprovalFilter & { limit?: number; page?: number }): Promise<Page<ApprovalRecord>> {
    const page = resolvePage(f);
    const rows = await this.exec(sql`
      SELECT ${SELECTED}, COUNT(*) OVER () AS total_count FROM ${this.table} AS a LEFT JOIN ${this.runs} AS r ON r.run_id = a.run_id
      WHERE ${where(f)} ORDER BY a.created_at DESC, a.id LIMIT ${page.limit} OFFSET ${page.offset}`);
    let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
    if (rows.length === 0 && page.offset > 0) {
      const [row] = await this.exec(sql`SELECT COUNT(*) AS n FROM ${this.table} AS a WHERE ${where(f)}`);
      total = Number(row?.n ?? 0);
    }
    return pageOf(rows.map(toApproval), total, page);
  }

  async countPending(opts: { userId?: string }): Promise<number> {
    const [row] = await this.exec(
      sql`SELECT COUNT(*) AS n FROM ${this.table} AS a WHERE ${where({ status: "pending", userId: opts.userId })}`,
    );
    return Number(row?.n ?? 0);
  }

  async resolve(id: string, d: ApprovalDecision): Promise<ApprovalRecord | null> {
    validateId(id, "approval_id");
    const [row] = await this.exec(sql`
      WITH a AS (UPDATE ${this.table} SET status = ${d.status}, resolved_by = ${d.resolvedBy}, resolved_at = ${d.now},
          resolution_data = ${d.resolutionData === null ? null : pgJson(d.resolutionData)}::jsonb, updated_at = ${d.now}
        WHERE id = ${id} AND status = 'pending' AND (expires_at IS NULL OR expires_at > ${d.now})
        RETURNING *)
      ${this.select(sql`a`)}`);
    return row ? toApproval(row) : null;
  }

  async reopen(id: string, resolvedAt: number): Promise<boolean> {
    validateId(id, "approval_id");
    const rows = await this.exec(sql`
      UPDATE ${this.table} SET status = 'pending', resolved_by = NULL, resolved_at = NULL, resolution_data = NULL, updated_at = ${resolvedAt}
      WHERE id = ${id} AND status IN ('approved', 'rejected') AND resolved_at = ${resolvedAt} RETURNING id`);
    return rows.length > 0;
  }

  async delete(id: string): Promise<boolean> {
    validateId(id, "approval_id");
    return (await this.exec(sql`DELETE FROM ${this.table} WHERE id = ${id} RETURNING id`)).length > 0;
  }

  async expire(now: number): Promise<number> {
    const rows = await this.exec(sql`
      UPDATE ${this.table} SET status = 'expired', updated_at = ${now}
      WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ${now} RETURNING id`);
    return rows.length;
  }
}
