import type { ComponentRef } from "../agent/component.js";
import { jobInput } from "./job-input.js";
import type { JobStore } from "./types.js";

/** What a tool asks the durable queue to run later: a job of a type some JobHandler runs. */
export interface ToolJob {
  jobType: string;
  /** JSON the handler reads; never a secret (queue listings show payloads) */
  payload: Record<string, unknown>;
  /** a repeat of the key (for the same user) returns the first job instead of a second */
  idempotencyKey: string;
}

export interface EnqueuedJob {
  jobId: string;
  /** false: a job with this key already existed */
  created: boolean;
}

/** The queue's limits a job enqueued from a run carries: the deployment's, as for its background runs. */
export interface JobQueueLimits {
  maxAttempts: number;
  maxDepth: number;
  /** jobs one user may have waiting or running */
  maxUserDepth?: number;
}

/** How a run's tools reach the durable queue (ToolContext.enqueueJob is this, bound to the run). */
export interface JobEnqueuer {
  enqueue(job: ToolJob, owner: { userId: string | null; component: ComponentRef }): Promise<EnqueuedJob>;
}

/**
 * Enqueues into `jobs` under `limits`; the job belongs to the run's user and component (as
 * `/queue/jobs` lists it). Nobody is woken: the queue finds a new due job at its next poll, which
 * for work that polls a remote service for minutes costs nothing, and needs no handle on the
 * dispatcher from inside a run.
 */
export function jobEnqueuer(jobs: Pick<JobStore, "enqueueJob">, limits: JobQueueLimits): JobEnqueuer {
  return {
    async enqueue(job, owner) {
      const input = jobInput(
        job.jobType,
        { type: owner.component.type, id: owner.component.id },
        job.payload,
        job.idempotencyKey,
        { userId: owner.userId, ...limits },
      );
      const { job: record, created } = await jobs.enqueueJob(input);
      return { jobId: record.id, created };
    },
  };
}
