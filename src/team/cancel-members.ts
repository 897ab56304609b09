import type { Db } from "../db/port.js";
import { StatusConflictError } from "../errors.js";

/**
 * Cancels the member runs of a cancelled team run that nobody else will stop: those waiting on a
 * person (a running member is stopped by its team run's cancel, wherever that runs). Sub-team
 * runs pass it on to their own members.
 */
export async function cancelWaitingMembers(db: Db, teamRunId: string, depth = 0): Promise<void> {
  if (depth > 16) return;
  const page = await db.getRuns({ parentRunId: teamRunId, status: "PAUSED", limit: 100 });
  for (const row of page.data) {
    try {
      await db.upsertRun({ ...row.run_data, status: "CANCELLED" }, { expectStatus: ["PAUSED"] });
    } catch (error) {
      // It moved on meanwhile (a continue took it): that continue meets the team's cancel.
      if (!(error instanceof StatusConflictError)) throw error;
    }
    if (row.run_type === "team") await cancelWaitingMembers(db, row.run_id, depth + 1);
  }
}
