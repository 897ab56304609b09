import type { Db } from "../db/port.js";
import { errorMessage, StatusConflictError } from "../errors.js";
import type { Workflow } from "./workflow.js";

/**
 * The cron tick's part in HumanReview timeouts (beyond agno, where a timeout applies only when
 * someone continues): every paused run whose review's deadline passed is resolved with its
 * `onTimeout` and goes on to its end (or is cancelled), the runs side by side. A person's
 * continue racing it wins or loses on the run's status (one conditional write), never both.
 * Runs of workflows this deployment does not serve are left for one that does.
 * Returns the ids of the runs it resolved.
 */
export async function resolveTimedOutReviews(
  db: Db,
  workflows: readonly Workflow[],
  now: number,
  limit = 100,
): Promise<string[]> {
  const due = await db.listTimedOutReviews({ now: new Date(now).toISOString(), limit });
  const resolved = await Promise.all(
    due.map(async (r) => {
      const workflow = workflows.find((w) => w.id === r.workflow_id);
      if (!workflow) return null;
      try {
        return (await workflow.withDb(db).timeOutRun(r.run_id, now)) ? r.run_id : null;
      } catch (error) {
        if (error instanceof StatusConflictError) return null;
        console.error(
          `scheduled: workflow run ${r.run_id}: could not apply its review timeout: ${errorMessage(error)}`,
        );
        return null;
      }
    }),
  );
  return resolved.filter((id): id is string => id !== null);
}
