import type { Db, UpsertRunOptions } from "../db/port.js";
import type { RunRecord, RunRow } from "../db/types.js";
import type { JobStore, Lease } from "./types.js";

/** Run statuses that end a queued run's attempt as a COMPLETED job (a paused run waits for people, not the queue). */
const COMPLETES_JOB = new Set(["COMPLETED", "PAUSED"]);

/**
 * The Db a queued run writes through. Its write that marks the run COMPLETED or PAUSED (the
 * attempt's last, made only from RUNNING) also marks the job COMPLETED in the same statement,
 * fenced by the lease as `finishJob` is: one round trip fewer per job, and no moment where the
 * run is over while its job still looks RUNNING. Every other call goes to `db` unchanged.
 */
export function runEndingJob(
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
  lease: Lease,
  runId: string,
): { db: Db; jobEnded: () => boolean } {
  let ended = false;
  const upsertRun = async (run: RunRecord, opts: UpsertRunOptions = {}): Promise<RunRow> => {
    if (run.run_id === runId && opts.expectStatus && COMPLETES_JOB.has(String(run.status))) {
      const written = await jobs.completeWithRun(lease, run, opts.expectStatus);
      if (written) {
        // jobEnded is false for a stale lease: the run's write landed (as it would have alone), the job is the new lease's.
        ended = written.jobEnded;
        return written.row;
      }
    }
    // Not this run's last write, or it was not in an expected status: the plain path names why.
    return db.upsertRun(run, opts);
  };
  // A Proxy, not a copy or a prototype child: every other call runs on `db` itself, so whatever
  // it caches on itself (its schema check, its job store) stays shared with the dispatcher's.
  const wrapped = new Proxy(db, {
    get: (target, prop) => {
      if (prop === "upsertRun") return upsertRun;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: wrapped, jobEnded: () => ended };
}
