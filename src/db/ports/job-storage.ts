import type { JobRecord, JobStore } from "../../queue/types.js";

/**
 * The durable queue's jobs, reached as `db.jobs` (the store itself is the queue's port). Not part
 * of every `Db`: a deployment without a durable queue needs none.
 */
export interface JobStorage {
  readonly jobs: JobStore & { expireExhaustedJobs(): Promise<JobRecord[]> };
}
