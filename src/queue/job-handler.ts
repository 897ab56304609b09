import type { Db } from "../db/port.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { Outcome } from "./executor.js";
import type { JobRecord, Lease } from "./types.js";

/** What a JobHandler's job runs with. */
export interface JobHandlerContext {
  /** the queue's database: the runs and sessions the job's payload names live here */
  db: Db;
  /** the claim the job runs under (fenced by its attempt) */
  lease: Lease;
  /** the deployment's media storage, when it has one */
  media?: MediaStorage;
}

/**
 * A kind of job the durable queue runs besides runs, continues, knowledge ingestions and evals, named
 * by its `job_type`: the queue hands a claimed job of that type to the handler and records the
 * Outcome it returns (retried, put back to wait with `waitSeconds` without using an attempt, or
 * ended), so the queue needs to know nothing of the work. Jobs are delivered at least once: a
 * handler makes a repeat of an attempt that died midway harmless.
 *
 * @example
 * const ping: JobHandler = { jobType: "ping", execute: async () => ({ status: "COMPLETED" }) };
 */
export interface JobHandler {
  /** the `job_type` it runs: not one of the queue's own ("run", "run_continue", "knowledge_ingestion", "eval_run") */
  readonly jobType: string;
  execute(job: JobRecord, ctx: JobHandlerContext): Promise<Outcome>;
}
