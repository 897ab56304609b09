import type { Db } from "../db/port.js";
import { errorMessage } from "../errors.js";

/** How often an executing run marks its row alive, by default (seconds). */
export const DEFAULT_HEARTBEAT_SECONDS = 10;

/** Missed beats after which a RUNNING run counts as dead: one slow write or a busy event loop is not a death. */
export const STALE_AFTER_BEATS = 3;

/** What an interrupted run's `error` and its closing RunError say. */
export const INTERRUPTED = {
  message: "the run was interrupted: the runtime executing it stopped (no heartbeat); run it again",
  errorType: "RunInterrupted",
} as const;

/** Seconds without a heartbeat after which a run beating every `heartbeatSeconds` is stale. */
export function staleAfterSeconds(heartbeatSeconds: number): number {
  return heartbeatSeconds * STALE_AFTER_BEATS;
}

/**
 * The heartbeat of an executing run: every `everyMs` one small UPDATE keeps its row's
 * `updated_at` fresh, so the cron tick (and a re-attaching client) can tell a run that is
 * working from one whose runtime died. It stops by itself once the run is no longer RUNNING
 * (paused, ended, cancelled); the returned function stops it too. A failed beat is not the run's
 * failure: the next one tries again.
 */
export function keepRunAlive(db: Pick<Db, "heartbeatRun">, runId: string, everyMs: number): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const beat = async () => {
    if (stopped) return;
    try {
      if (!(await db.heartbeatRun(runId))) stopped = true;
    } catch (error) {
      console.error(`run ${runId}: heartbeat not stored: ${errorMessage(error)}`);
    }
    if (!stopped) timer = setTimeout(() => void beat(), everyMs);
  };
  timer = setTimeout(() => void beat(), everyMs);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
