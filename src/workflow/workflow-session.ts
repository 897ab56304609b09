import type { Db } from "../db/port.js";
import type { RunRow, SessionRecord } from "../db/types.js";
import { stateChanges } from "../db/state-changes.js";
import { NotFoundError, ValidationError } from "../errors.js";
import type { ComponentRef } from "../agent/component.js";

/** A workflow run's session as loaded: its stored state, the run row of a chosen run id, the record to create when it is new. */
export interface LoadedSession {
  state: Record<string, unknown>;
  run: RunRow | null;
  create?: SessionRecord;
}

/**
 * The session `sessionId` of `ref`'s runs: read when it may exist (with the run `runId` when the
 * caller chose one, a queued run), else the record that creates it with its first run.
 */
export async function loadWorkflowSession(
  db: Db | undefined,
  ref: ComponentRef,
  opts: {
    sessionId: string;
    userId: string | null;
    runId?: string;
    newId: boolean;
    name: string;
    defaults: Record<string, unknown>;
  },
): Promise<LoadedSession> {
  if (!db) return { state: {}, run: null };
  const read = { includeRuns: false };
  const { session, run } = opts.runId
    ? await db.getSessionWithRun(opts.sessionId, opts.runId, read)
    : { session: opts.newId ? null : await db.getSession(opts.sessionId, read), run: null };
  if (session) {
    // Another user's session is not there for this run (SPEC U2), as for agents.
    if ((session.record.user_id ?? null) !== opts.userId)
      throw new NotFoundError(`session ${opts.sessionId} not found`);
    if (session.record.session_type !== "workflow" || session.record.workflow_id !== ref.id)
      throw new ValidationError(`session ${opts.sessionId} is not a session of workflow ${ref.id}`, "session_id");
    return { state: (session.record.session_data?.session_state as Record<string, unknown> | undefined) ?? {}, run };
  }
  const create: SessionRecord = {
    session_id: opts.sessionId,
    session_type: "workflow",
    workflow_id: ref.id,
    user_id: opts.userId,
    session_data: { session_name: opts.name.slice(0, 100), session_state: { ...opts.defaults } },
    workflow_data: { workflow_id: ref.id, name: ref.name ?? null },
  };
  return { state: { ...opts.defaults }, run, create };
}

/**
 * Saves the run's session state as the changes it made since it was loaded, applied under the
 * session's lock (db.updateSessionState), as agent runs save theirs: overlapping runs of one
 * session keep each other's writes.
 */
export function workflowStateSaver(
  db: Db | undefined,
  sessionId: string,
  loaded: Record<string, unknown>,
): (state: Record<string, unknown>) => Promise<void> {
  let base = structuredClone(loaded);
  return async (state) => {
    if (!db) return;
    const next = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
    const changes = stateChanges(base, next);
    if (changes.length === 0) return;
    await db.updateSessionState(sessionId, changes);
    base = next;
  };
}
