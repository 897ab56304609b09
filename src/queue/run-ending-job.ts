import type { RunEndHook } from "../agent/component.js";
import type { JobStore, Lease } from "./types.js";

/**
 * The hook a queued run makes its last write with (COMPLETED or PAUSED, from RUNNING): the same
 * statement also marks the job COMPLETED, fenced by the lease as `finishJob` is: one round trip
 * fewer per job, and no moment where the run is over while its job still looks RUNNING.
 * `jobEnded` says whether it did (false for a stale lease: the run's write landed, as it would
 * have alone, and the job is the new lease's).
 */
export function runEndingJob(
  jobs: Pick<JobStore, "completeWithRun">,
  lease: Lease,
): { onFinalWrite: RunEndHook; jobEnded: () => boolean } {
  let ended = false;
  const onFinalWrite: RunEndHook = async (run, expectStatus) => {
    const written = await jobs.completeWithRun(lease, run, expectStatus);
    if (!written) return null;
    ended = written.jobEnded;
    return written.row;
  };
  return { onFinalWrite, jobEnded: () => ended };
}
