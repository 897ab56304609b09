import type { ComponentRef } from "../agent/component.js";
import type { Db } from "../db/port.js";
import type { RunRecord } from "../db/types.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import { nowSeconds } from "../time.js";

/**
 * agno's session fork (an agent's or a team's): a new session holding a copy of every run of
 * `sessionId` (each under a new run id, a team's member runs with it), so a conversation can go
 * another way while the original stays as it is. The copy belongs to `userId` when one is given
 * (the caller), else to the source's owner. Lineage: the new session's
 * `session_data.forked_from_session_id` names its immediate source; a run's
 * `forked_from_session_id` names the session it was first made in.
 */
export async function forkSession(
  db: Db,
  ref: Pick<ComponentRef, "type" | "id">,
  sessionId: string,
  read: { userId?: string; includeShared?: boolean },
  userId: string | undefined,
): Promise<{ session_id: string; forked_from_session_id: string }> {
  const source = await db.getSession(sessionId, read);
  const record = source?.record;
  if (!record || record.session_type !== ref.type || record[`${ref.type}_id`] !== ref.id)
    throw new NotFoundError(`session ${sessionId} not found`);
  const runs = source.runs;
  if (runs.length === 0) throw new BadRequestError(`session ${sessionId} has no runs to fork`);
  const newId = crypto.randomUUID();
  const owner = userId ?? record.user_id ?? null;
  const now = nowSeconds();
  const { runs: _runs, ...copied } = structuredClone(record);
  await db.createSession({
    ...copied,
    session_id: newId,
    user_id: owner,
    session_data: { ...copied.session_data, forked_from_session_id: sessionId },
    created_at: now,
    updated_at: now,
  });
  const newRunIds = new Map(runs.map((r) => [r.run_id, crypto.randomUUID()]));
  // One after another: a run's position in the session is the order it is stored in.
  for (const run of runs) {
    const copy: RunRecord = structuredClone(run);
    copy.run_id = newRunIds.get(run.run_id)!;
    copy.session_id = newId;
    copy.user_id = owner;
    if (run.parent_run_id) copy.parent_run_id = newRunIds.get(run.parent_run_id) ?? run.parent_run_id;
    copy.forked_from_session_id ??= sessionId;
    await db.upsertRun(copy);
  }
  return { session_id: newId, forked_from_session_id: sessionId };
}
