import type { Component, ComponentSource } from "../agent/component.js";
import type { Db } from "../db/port.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { MediaStorage } from "../offload/media-storage.js";
import { executeRunJob, type Outcome } from "./executor.js";
import { executeKnowledgeJob, KNOWLEDGE_JOB_TYPE } from "./knowledge-job.js";
import type { JobRecord, JobStore, Lease } from "./types.js";

/** What the queue's jobs run with: the components for runs, the knowledge bases (and the upload storage) for ingestions. */
export interface JobServices {
  components: ComponentSource | readonly Component[];
  knowledge?: readonly Knowledge[];
  media?: MediaStorage;
}

/** Runs one claimed job by its `job_type`: a component's run, or a knowledge ingestion. */
export function executeJob(
  job: JobRecord,
  lease: Lease,
  services: JobServices,
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
): Promise<Outcome> {
  if (job.job_type === KNOWLEDGE_JOB_TYPE)
    return executeKnowledgeJob(job, services.knowledge ?? [], db, services.media);
  return executeRunJob(job, lease, services.components, db, jobs);
}
