import type { Session } from "../session.js";
import type { StateChange } from "../state-changes.js";
import type { UpsertRunOptions } from "./run-store.js";
import type { GetSessionOptions, GetSessionsOptions, Page, RunRecord, RunRow, SessionRecord } from "../types.js";

/** Sessions: their rows, their state, and their runs joined back for a read. */
export interface SessionStore {
  /** writes the session row (and any `runs` given, one row each); returns the row without its runs */
  upsertSession(session: SessionRecord): Promise<Session>;
  /** inserts a new session; ConflictError when the id is taken; returns the row without runs */
  createSession(session: SessionRecord): Promise<Session>;
  /**
   * `createSession`, and the first write of the session's first run (as `upsertRun` with
   * `expectStatus`), in one round trip: ConflictError when the session id is taken (nothing is
   * written); null when the run was not written with it (the session is created: write the run
   * as usual, which says why). Optional: without it a caller makes the two writes.
   */
  createSessionWithRun?(
    session: SessionRecord,
    run: RunRecord,
    opts?: Pick<UpsertRunOptions, "deferFlush">,
  ): Promise<RunRow | null>;
  getSession(sessionId: string, opts?: GetSessionOptions): Promise<Session | null>;
  /** applies a run's changes (`stateChanges`) to the stored session state, atomically with other writers; null when the session is gone */
  updateSessionState(sessionId: string, changes: StateChange[]): Promise<Record<string, unknown> | null>;
  /** `getSession` and `getRun(runId)` in one read: what a run with a chosen id needs before it starts */
  getSessionWithRun(
    sessionId: string,
    runId: string,
    opts?: GetSessionOptions,
  ): Promise<{ session: Session | null; run: RunRow | null }>;
  getSessions(opts?: GetSessionsOptions): Promise<Page<Session>>;
  renameSession(sessionId: string, name: string, opts?: { userId?: string }): Promise<Session>;
  /**
   * Stores a session's summary (agno's SessionSummary dict) in its `summary` column, leaving the
   * rest of the row as it is; NotFoundError when the session is unknown or (with `userId`) another user's.
   */
  setSessionSummary(sessionId: string, summary: Record<string, unknown>, opts?: { userId?: string }): Promise<void>;
  deleteSession(sessionId: string, opts?: { userId?: string }): Promise<void>;
  deleteSessions(sessionIds: string[], opts?: { userId?: string }): Promise<number>;
}
