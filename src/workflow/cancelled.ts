import { StatusConflictError } from "../errors.js";
import { RunCancelledSignal } from "../agent/cancellation.js";

/** Whether `error` is the run being cancelled (never retried, skipped or recorded as a failed step). */
export function isCancellation(error: unknown, scope: { signal: AbortSignal }): boolean {
  if (error instanceof RunCancelledSignal) return true;
  if (error instanceof StatusConflictError && error.actual === "CANCELLED") return true;
  return scope.signal.aborted;
}
