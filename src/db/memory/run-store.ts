import { ConflictError, NotFoundError, StatusConflictError, ValidationError } from "../../errors.js";
import { pageOf, resolvePage, sortOrderOf } from "../pagination.js";
import type { InterruptedRun, InterruptOptions, RunStore, TimedOutReview, UpsertRunOptions } from "../port.js";
import { runTypeOf } from "../session.js";
import type { GetRunsOptions, Page, RunRecord, RunRow } from "../types.js";
import { validateId, validateIds, validateRun } from "../validate.js";
import { approvalsFromPause } from "../approval-rows.js";
import { copy, now, stored, userMatches, type MemoryTables } from "./tables.js";

/** Runs in memory, with the Postgres adapter's rules: run_index per session, owners, compare-and-set, cascades. */
export class MemoryRunStore implements RunStore {
  constructor(
    private readonly t: MemoryTables,
    /** whether the durable queue still holds this run (a PENDING or RUNNING job): the sweep leaves it */
    private readonly heldByJob: (runId: string) => boolean = () => false,
  ) {}

  async upsertRun(input: RunRecord, opts: UpsertRunOptions = {}): Promise<RunRow> {
    const run = validateRun(input);
    return copy(this.t.transaction(() => this.write(run, opts.expectStatus)));
  }

  /** One run, one row; synchronous, so a caller's transaction holds it (a session written with its runs). */
  write(run: RunRecord, expectStatus?: string[]): RunRow {
    const ts = now();
    const session = this.t.sessions.get(run.session_id);
    if (!session) throw new NotFoundError(`session ${run.session_id} not found: upsert the session before its runs`);
    const owner = session.user_id ?? null;
    if (run.user_id && owner && run.user_id !== owner) {
      throw new ConflictError(
        `run ${run.run_id} names user ${run.user_id} but session ${run.session_id} belongs to another user`,
      );
    }
    const existing = this.t.runs.get(run.run_id);
    if (existing && existing.session_id !== run.session_id)
      throw new ConflictError(`run ${run.run_id} already belongs to another session`);
    if (existing && expectStatus && !expectStatus.includes(existing.status as string)) {
      throw new StatusConflictError(
        `run ${run.run_id} is ${existing.status ?? "without status"}, not ${expectStatus.join(" or ")}`,
        existing.status,
      );
    }
    let runIndex = existing?.run_index;
    if (runIndex === undefined) {
      runIndex = 0;
      for (const r of this.t.runs.values())
        if (r.session_id === run.session_id) runIndex = Math.max(runIndex, r.run_index + 1);
    }
    const row: RunRow = {
      run_id: run.run_id,
      session_id: run.session_id,
      run_type: runTypeOf(run),
      agent_id: run.agent_id ?? null,
      team_id: run.team_id ?? null,
      workflow_id: run.workflow_id ?? null,
      user_id: run.user_id ?? owner,
      parent_run_id: run.parent_run_id ?? null,
      status: run.status ?? null,
      run_index: runIndex,
      created_at: existing?.created_at ?? run.created_at ?? ts,
      updated_at: ts,
      run_data: stored(run),
    };
    this.t.sessions.set(session.session_id!, { ...session, updated_at: ts });
    this.t.runs.set(row.run_id, row);
    // What the Postgres trigger does in the same statement (migrations/0008): a pause writes its approvals.
    for (const approval of approvalsFromPause(row))
      if (!this.t.approvals.has(approval.id)) this.t.approvals.set(approval.id, stored(approval));
    return row;
  }

  async getRun(
    runId: string,
    opts: { userId?: string; sessionId?: string; includeShared?: boolean } = {},
  ): Promise<RunRow | null> {
    validateId(runId, "run_id");
    const row = this.t.runs.get(runId);
    if (!row || !userMatches(row.user_id, opts) || (opts.sessionId !== undefined && row.session_id !== opts.sessionId))
      return null;
    return copy(row);
  }

  async getRuns(opts: GetRunsOptions = {}): Promise<Page<RunRow>> {
    const { limit, page, offset } = resolvePage(opts);
    const order = sortOrderOf(opts.sortOrder) === "asc" ? 1 : -1;
    const sortBy = opts.sortBy ?? (opts.sessionId ? "run_index" : "created_at");
    if (!["created_at", "updated_at", "run_index"].includes(sortBy))
      throw new ValidationError(`cannot sort runs by ${String(sortBy)}`, "sort_by");
    const statuses = opts.status === undefined ? [] : Array.isArray(opts.status) ? opts.status : [opts.status];
    const matching = [...this.t.runs.values()]
      .filter((r) => (opts.sessionId ? r.session_id === opts.sessionId : true))
      .filter((r) => userMatches(r.user_id, opts))
      .filter((r) => (opts.agentId ? r.agent_id === opts.agentId : true))
      .filter((r) => (opts.teamId ? r.team_id === opts.teamId : true))
      .filter((r) => (opts.workflowId ? r.workflow_id === opts.workflowId : true))
      .filter((r) => (opts.runType ? r.run_type === opts.runType : true))
      .filter((r) =>
        opts.parentRunId === null
          ? r.parent_run_id === null
          : opts.parentRunId
            ? r.parent_run_id === opts.parentRunId
            : true,
      )
      .filter((r) => (statuses.length > 0 ? statuses.includes(r.status as never) : true))
      .sort(
        (a, b) =>
          compareNullable(a[sortBy as "created_at"], b[sortBy as "created_at"], order) ||
          (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0),
      );
    return pageOf(matching.slice(offset, offset + limit).map(copy), matching.length, { page, limit });
  }

  async deleteRun(runId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.deleteRuns([validateId(runId, "run_id")], opts);
  }

  /** All or nothing: if any id is unknown (or another user's), nothing is deleted. */
  async deleteRuns(runIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(runIds, "run_ids"))];
    const absent = ids.filter((id) => {
      const row = this.t.runs.get(id);
      return !row || (opts.userId !== undefined && row.user_id !== opts.userId);
    });
    if (absent.length > 0) throw new NotFoundError(`run(s) not found: ${absent.join(", ")}`);
    for (const id of ids) this.drop(id);
    return ids.length;
  }

  /** A run's row and, as the foreign key cascades, its event log. */
  drop(runId: string): void {
    this.t.runs.delete(runId);
    this.t.runEvents.delete(runId);
  }

  async heartbeatRun(runId: string): Promise<boolean> {
    validateId(runId, "run_id");
    const row = this.t.runs.get(runId);
    if (row?.status !== "RUNNING") return false;
    this.t.runs.set(runId, { ...row, updated_at: now() });
    return true;
  }

  async interruptStaleRuns(opts: InterruptOptions): Promise<InterruptedRun[]> {
    if (opts.runId !== undefined) validateId(opts.runId, "run_id");
    const t = now();
    const limit = Math.max(1, Math.min(opts.limit ?? 100, 1000));
    const beat = (r: RunRow) => r.updated_at ?? r.created_at;
    const stale = [...this.t.runs.values()]
      .filter(
        (r) =>
          r.status === "RUNNING" &&
          beat(r) < opts.staleBefore &&
          (opts.runId === undefined || r.run_id === opts.runId) &&
          !this.heldByJob(r.run_id),
      )
      .sort((a, b) => beat(a) - beat(b))
      .slice(0, limit);
    const error = { message: opts.message, type: opts.errorType, kind: "interrupted" };
    for (const r of stale) {
      this.t.runs.set(r.run_id, {
        ...r,
        status: "ERROR",
        updated_at: t,
        run_data: { ...r.run_data, status: "ERROR", content: opts.message, error, updated_at: t },
      });
      const log = this.t.runEvents.get(r.run_id) ?? [];
      const agentName = r.run_data.agent_name;
      const event = {
        event: "RunError",
        run_id: r.run_id,
        session_id: r.session_id,
        agent_id: r.agent_id,
        agent_name:
          agentName === undefined || agentName === null
            ? null
            : typeof agentName === "string"
              ? agentName
              : JSON.stringify(agentName),
        created_at: t,
        content: opts.message,
        error_type: opts.errorType,
        error_kind: "interrupted",
      };
      // jsonb_strip_nulls: a run without an agent (a team's) has no agent_id key
      const closing = Object.fromEntries(Object.entries(event).filter(([, v]) => v !== null)) as EventRowEvent;
      this.t.runEvents.set(r.run_id, [...log, { index: (log.at(-1)?.index ?? -1) + 1, event: closing, created_at: t }]);
    }
    return stale.map((r) => ({ run_id: r.run_id, session_id: r.session_id }));
  }

  async listTimedOutReviews(opts: { now: string; limit?: number }): Promise<TimedOutReview[]> {
    if (typeof opts.now !== "string" || Number.isNaN(Date.parse(opts.now)))
      throw new ValidationError("now must be an ISO-8601 time", "now");
    const limit = Math.max(1, Math.min(opts.limit ?? 100, 1000));
    const due: TimedOutReview[] = [];
    for (const r of this.t.runs.values()) {
      if (r.status !== "PAUSED") continue;
      const pending = (r.run_data.step_requirements as Array<{ timeout_at?: unknown }> | undefined)?.at(-1);
      const at = pending?.timeout_at;
      // The same text comparison as the Postgres adapter's index makes.
      if (typeof at === "string" && at <= opts.now)
        due.push({ run_id: r.run_id, session_id: r.session_id, workflow_id: r.workflow_id, timeout_at: at });
    }
    return due.sort((a, b) => (a.timeout_at < b.timeout_at ? -1 : a.timeout_at > b.timeout_at ? 1 : 0)).slice(0, limit);
  }
}

type EventRowEvent = Record<string, unknown> & { event: string };

/** Postgres' order: NULLs last ascending, first descending. */
function compareNullable(a: number | null | undefined, b: number | null | undefined, order: 1 | -1): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return order === 1 ? 1 : -1;
  if (b === null || b === undefined) return order === 1 ? -1 : 1;
  return (a - b) * order;
}
