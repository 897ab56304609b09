import { sessionColumns } from "../session-columns.js";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { pageOf, resolvePage, sortOrderOf } from "../pagination.js";
import type { SessionStore } from "../port.js";
import { NON_HISTORY_STATUSES, Session } from "../session.js";
import { applyStateChanges, type StateChange } from "../state-changes.js";
import type { GetSessionOptions, GetSessionsOptions, Page, RunRow, SessionRecord } from "../types.js";
import { validateId, validateIds, validateSession } from "../validate.js";
import type { MemoryRunStore } from "./run-store.js";
import { copy, now, stored, userMatches, type MemoryTables } from "./tables.js";

type SessionRow = Omit<SessionRecord, "runs">;

/** Sessions in memory, with the Postgres adapter's rules: owners and types that never change, all-or-nothing writes and deletes. */
export class MemorySessionStore implements SessionStore {
  constructor(
    private readonly t: MemoryTables,
    private readonly runs: MemoryRunStore,
  ) {}

  async upsertSession(input: SessionRecord): Promise<Session> {
    return this.write(input, "upsert");
  }

  async createSession(input: SessionRecord): Promise<Session> {
    return this.write(input, "create");
  }

  private async write(input: SessionRecord, mode: "upsert" | "create"): Promise<Session> {
    const session = validateSession(input);
    const ts = now();
    const row: SessionRow = sessionColumns(session, ts, stored);
    const written = this.t.transaction(() => {
      const existing = this.t.sessions.get(row.session_id);
      if (existing && mode === "create") throw new ConflictError(`session ${row.session_id} already exists`);
      // A session never changes owner or type through an upsert.
      if (existing && (existing.user_id !== row.user_id || existing.session_type !== row.session_type)) {
        throw new ConflictError(`session ${row.session_id} exists with another owner or session_type`);
      }
      const next = existing ? { ...row, created_at: existing.created_at } : row;
      this.t.sessions.set(row.session_id, next);
      for (const run of session.runs ?? []) this.runs.write({ ...run, session_id: row.session_id });
      return this.t.sessions.get(row.session_id)!;
    });
    // The stored row, without its runs, as the Postgres adapter answers.
    return new Session(copy(written));
  }

  /** Applies a run's changes to the stored state; nothing runs between the read and the write, which is this adapter's lock. */
  async updateSessionState(sessionId: string, changes: StateChange[]): Promise<Record<string, unknown> | null> {
    validateId(sessionId, "session_id");
    const row = this.t.sessions.get(sessionId);
    if (!row) return null;
    const current = row.session_data?.session_state;
    const state = stored(
      applyStateChanges(
        typeof current === "object" && current !== null && !Array.isArray(current)
          ? (current as Record<string, unknown>)
          : {},
        changes,
      ),
    );
    this.t.sessions.set(sessionId, {
      ...row,
      session_data: { ...(row.session_data ?? {}), session_state: state },
      updated_at: now(),
    });
    return copy(state);
  }

  private checkSessionRead(sessionId: string, opts: GetSessionOptions): void {
    validateId(sessionId, "session_id");
    if (opts.runsLimit !== undefined && (!Number.isInteger(opts.runsLimit) || opts.runsLimit < 0)) {
      throw new ValidationError("runsLimit must be a whole number of at least 0", "runs_limit");
    }
  }

  async getSession(sessionId: string, opts: GetSessionOptions = {}): Promise<Session | null> {
    this.checkSessionRead(sessionId, opts);
    return this.read(sessionId, opts);
  }

  private read(sessionId: string, opts: GetSessionOptions): Session | null {
    const row = this.t.sessions.get(sessionId);
    if (!row || !userMatches(row.user_id, opts)) return null;
    const record: SessionRecord = copy(row);
    if (opts.includeRuns !== false)
      record.runs = this.sessionRuns(sessionId, opts.runsLimit).map((r) => copy(r.run_data));
    return new Session(record);
  }

  /** A session's runs in run order; with `limit`, agno's `runs_limit`: the last N top-level runs that can feed history. */
  private sessionRuns(sessionId: string, limit?: number): RunRow[] {
    let runs = [...this.t.runs.values()].filter((r) => r.session_id === sessionId).sort(runOrder);
    if (limit === undefined) return runs;
    if (limit === 0) return [];
    runs = runs
      .filter((r) => r.parent_run_id === null && !NON_HISTORY_STATUSES.includes(r.status as string))
      .slice(-limit);
    return runs;
  }

  async getSessionWithRun(
    sessionId: string,
    runId: string,
    opts: GetSessionOptions = {},
  ): Promise<{ session: Session | null; run: RunRow | null }> {
    this.checkSessionRead(sessionId, opts);
    validateId(runId, "run_id");
    return { session: this.read(sessionId, opts), run: await this.runs.getRun(runId) };
  }

  async getSessions(opts: GetSessionsOptions = {}): Promise<Page<Session>> {
    const { limit, page, offset } = resolvePage(opts);
    const order = sortOrderOf(opts.sortOrder) === "asc" ? 1 : -1;
    const sortBy = opts.sortBy ?? "created_at";
    if (sortBy !== "created_at" && sortBy !== "updated_at")
      throw new ValidationError(`cannot sort sessions by ${String(sortBy)}`, "sort_by");
    const name = opts.sessionName?.toLowerCase();
    const matching = [...this.t.sessions.values()]
      .filter((s) => (opts.sessionType ? s.session_type === opts.sessionType : true))
      .filter((s) => userMatches(s.user_id, opts))
      .filter((s) => (opts.componentId ? [s.agent_id, s.team_id, s.workflow_id].includes(opts.componentId) : true))
      .filter((s) => {
        if (!name) return true;
        const stored = s.session_data?.session_name;
        return (
          stored !== undefined &&
          stored !== null &&
          (typeof stored === "string" ? stored : JSON.stringify(stored)).toLowerCase().includes(name)
        );
      })
      .sort(
        (a, b) =>
          ((a[sortBy] ?? 0) - (b[sortBy] ?? 0)) * order ||
          (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0),
      );
    const data = matching.slice(offset, offset + limit).map((row) => {
      const record: SessionRecord = copy(row);
      if (opts.includeRuns) record.runs = this.sessionRuns(row.session_id).map((r) => copy(r.run_data));
      return new Session(record);
    });
    return pageOf(data, matching.length, { page, limit });
  }

  async renameSession(sessionId: string, name: string, opts: { userId?: string } = {}): Promise<Session> {
    validateId(sessionId, "session_id");
    if (typeof name !== "string" || name.trim() === "" || name.length > 255) {
      throw new ValidationError("session_name must be a non-empty string of at most 255 characters", "session_name");
    }
    const row = this.t.sessions.get(sessionId);
    if (!row || (opts.userId !== undefined && row.user_id !== opts.userId))
      throw new NotFoundError(`session ${sessionId} not found`);
    this.t.sessions.set(sessionId, {
      ...row,
      session_data: { ...(row.session_data ?? {}), session_name: stored(name) },
      updated_at: now(),
    });
    return (await this.getSession(sessionId))!;
  }

  async setSessionSummary(
    sessionId: string,
    summary: Record<string, unknown>,
    opts: { userId?: string } = {},
  ): Promise<void> {
    validateId(sessionId, "session_id");
    const row = this.t.sessions.get(sessionId);
    if (!row || (opts.userId !== undefined && row.user_id !== opts.userId))
      throw new NotFoundError(`session ${sessionId} not found`);
    this.t.sessions.set(sessionId, { ...row, summary: stored(summary), updated_at: now() });
  }

  async deleteSession(sessionId: string, opts: { userId?: string } = {}): Promise<void> {
    await this.deleteSessions([validateId(sessionId, "session_id")], opts);
  }

  /** All or nothing: if any id is unknown (or another user's), nothing is deleted; a session's runs go with it. */
  async deleteSessions(sessionIds: string[], opts: { userId?: string } = {}): Promise<number> {
    const ids = [...new Set(validateIds(sessionIds, "session_ids"))];
    const absent = ids.filter((id) => {
      const row = this.t.sessions.get(id);
      return !row || (opts.userId !== undefined && row.user_id !== opts.userId);
    });
    if (absent.length > 0) throw new NotFoundError(`session(s) not found: ${absent.join(", ")}`);
    const gone = new Set(ids);
    for (const id of ids) this.t.sessions.delete(id);
    for (const run of [...this.t.runs.values()]) if (gone.has(run.session_id)) this.runs.drop(run.run_id);
    return ids.length;
  }
}

/** Run order within a session, as the Postgres adapter joins runs back. */
function runOrder(a: RunRow, b: RunRow): number {
  return (
    a.run_index - b.run_index || a.created_at - b.created_at || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0)
  );
}
