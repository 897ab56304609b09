import type { Db } from "../db/port.js";
import { NotFoundError, StatusConflictError } from "../errors.js";
import { ownsRun, type ComponentRef } from "./component.js";

/** Statuses a run can still leave; a cancel request only applies to these. */
export const ACTIVE_STATUSES = ["PENDING", "RUNNING", "PAUSED"];

/**
 * Runs executing in this isolate, so a cancel from the same isolate aborts the model request at
 * once. A cancel from any other isolate or process lands in storage (the run's status) and the
 * run's watcher sees it on its next poll.
 */
const local = new Map<string, AbortController>();

export function registerRun(runId: string, controller: AbortController): () => void {
  local.set(runId, controller);
  return () => {
    if (local.get(runId) === controller) local.delete(runId);
  };
}

/**
 * Aborts a run executing in this isolate; false when none is, or when it runs in another
 * request context that this one may not touch (a Durable Object sharing the isolate with the
 * Worker): that run sees the stored cancel on its next poll instead.
 */
export function abortLocal(runId: string, reason: string): boolean {
  const controller = local.get(runId);
  if (!controller) return false;
  try {
    controller.abort(new RunCancelledSignal(reason));
    return true;
  } catch {
    return false;
  }
}

export class RunCancelledSignal extends Error {
  override readonly name = "RunCancelledSignal";
}

/** Polls the stored status while a run works; aborts it when someone cancelled it elsewhere. */
export function watchForCancel(db: Db, runId: string, controller: AbortController, everyMs: number): () => void {
  let stopped = false;
  const tick = async () => {
    while (!stopped && !controller.signal.aborted) {
      await new Promise((r) => setTimeout(r, everyMs));
      if (stopped) return;
      try {
        const row = await db.getRun(runId);
        if (row?.status === "CANCELLED") controller.abort(new RunCancelledSignal("cancelled"));
      } catch {
        // A failed poll is retried on the next tick; the run's own writes surface real faults.
      }
    }
  };
  void tick();
  return () => {
    stopped = true;
  };
}

/**
 * Cancels a stored run of `ref` from anywhere: the stored status becomes CANCELLED (a run that has
 * not started never will), and the run stops at its next step. False when it had already ended;
 * a run of another component (or user) is not found.
 */
export async function cancelStoredRun(
  db: Db,
  ref: Pick<ComponentRef, "type" | "id">,
  runId: string,
  opts: { userId?: string } = {},
): Promise<boolean> {
  const row = await db.getRun(runId, opts.userId !== undefined ? { userId: opts.userId } : {});
  if (!row || !ownsRun(ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
  if (!ACTIVE_STATUSES.includes(String(row.status))) return false;
  try {
    // Storage first, so the cancel holds whichever isolate runs it; then stop a local run at once.
    await db.upsertRun({ ...row.run_data, status: "CANCELLED" }, { expectStatus: [String(row.status)] });
    abortLocal(runId, "cancelled");
    return true;
  } catch (e) {
    // It moved on meanwhile: try once more from what it is now.
    if (e instanceof StatusConflictError && e.actual && ACTIVE_STATUSES.includes(e.actual))
      return cancelStoredRun(db, ref, runId, opts);
    if (e instanceof StatusConflictError) return false;
    throw e;
  }
}
