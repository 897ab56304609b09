import type { Db } from "../../src/db/port.js";
import type { JobRecord, JobStore } from "../../src/queue/types.js";
import { Dispatcher } from "../../src/queue/dispatcher.js";
import { executeJob, type JobServices } from "../../src/queue/execute-job.js";

/**
 * Runs every job of `db`'s queue to its end, as the JobQueue object would: retries without
 * backoff, and jobs put back to wait (a conversation's later message) once they are due again.
 */
export async function drainQueue(
  db: Db & { jobs: JobStore & { expireExhaustedJobs(): Promise<JobRecord[]> } },
  services: JobServices,
): Promise<void> {
  const dispatcher = new Dispatcher({
    store: db.jobs,
    workerId: "W",
    backoff: () => 0,
    execute: (job, lease) => executeJob(job, lease, services, db, db.jobs),
  });
  for (;;) {
    const claimed = await dispatcher.fill();
    await dispatcher.idle();
    if (claimed > 0) continue;
    if ((await db.jobs.queueStats()).pending === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
