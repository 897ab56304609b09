import type { Component, ComponentSource } from "../agent/component.js";
import type { Db } from "../db/port.js";
import { isChatInterface } from "../interfaces/chat-interface.js";
import type { OSInterface } from "../interfaces/os-interface.js";
import type { ReplyTarget } from "../interfaces/reply-target.js";
import type { RunFollower } from "../interfaces/run-follower.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { MediaStorage } from "../offload/media-storage.js";
import { CONTINUE_JOB_TYPE, executeContinueJob, type ContinueJobPayload } from "./continue-job.js";
import { executeRunJob, type Outcome } from "./executor.js";
import { EVAL_JOB_TYPE, executeEvalJob } from "./eval-job.js";
import { executeKnowledgeJob, KNOWLEDGE_JOB_TYPE } from "./knowledge-job.js";
import type { JobHandler } from "./job-handler.js";
import type { JobRecord, JobStore, Lease } from "./types.js";
import type { Tracer } from "../tracing/tracer.js";
import { parseTraceparent } from "../tracing/traceparent.js";
import type { TraceScope } from "../tracing/trace-scope.js";
import { errorMessage } from "../errors.js";

/** What the queue's jobs run with: the components for runs, the knowledge bases (and the upload storage) for ingestions. */
export interface JobServices {
  components: ComponentSource | readonly Component[];
  knowledge?: readonly Knowledge[];
  media?: MediaStorage;
  /** the interfaces: the chat interfaces among them answer the runs they queued */
  interfaces?: readonly OSInterface[];
  /** the other kinds of job, each run by the handler of its `job_type` (the agents' toolkits bring theirs: `jobHandlersOf`) */
  handlers?: readonly JobHandler[];
  /**
   * traces each job (a CONSUMER span continuing the `traceparent` its payload carries, with the
   * run inside it); the caller flushes it as jobs end
   */
  tracer?: Tracer;
}

/**
 * Runs one claimed job by its `job_type`: a component's run, a queued continue, a knowledge
 * ingestion, an eval run, or a kind a handler in `services.handlers` runs.
 */
export async function executeJob(
  job: JobRecord,
  lease: Lease,
  services: JobServices,
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
): Promise<Outcome> {
  const tracer = services.tracer;
  if (!tracer) return executeUntraced(job, lease, services, db, jobs);
  const span = tracer.startSpan(`process ${job.job_type} job`, {
    parent: parseTraceparent(job.payload.traceparent),
    kind: "CONSUMER",
    attributes: {
      "messaging.operation.type": "process",
      "agno.job.id": job.id,
      "agno.job.type": job.job_type,
      "agno.job.attempt": job.attempt,
      "agno.run.id": job.payload.run_id,
      "session.id": job.session_id,
      "user.id": job.user_id,
    },
  });
  try {
    const outcome = await executeUntraced(job, lease, services, db, jobs, { tracer, parent: span.context });
    span.set("agno.job.outcome", outcome.status);
    if (outcome.status === "FAILED") span.fail(outcome.error ?? "failed");
    else span.setStatus("OK");
    return outcome;
  } catch (error) {
    span.fail(errorMessage(error));
    throw error;
  } finally {
    span.end();
  }
}

function executeUntraced(
  job: JobRecord,
  lease: Lease,
  services: JobServices,
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
  trace?: TraceScope,
): Promise<Outcome> {
  if (job.job_type === KNOWLEDGE_JOB_TYPE)
    return executeKnowledgeJob(job, services.knowledge ?? [], db, services.media);
  if (job.job_type === EVAL_JOB_TYPE) return executeEvalJob(job, services.components, db);
  if (job.job_type === CONTINUE_JOB_TYPE) {
    const reply = (job.payload as unknown as ContinueJobPayload).reply;
    return executeContinueJob(job, services.components, db, followerFor(reply, services, db), trace);
  }
  const handler = job.job_type === "run" ? undefined : services.handlers?.find((h) => h.jobType === job.job_type);
  if (handler) return handler.execute(job, { db, lease, ...(services.media ? { media: services.media } : {}) });
  // A handler's job in a deployment that no longer has that handler: it carries no run to run.
  if (job.job_type !== "run" && !job.payload.run_id)
    return Promise.resolve({
      status: "FAILED",
      error: `no handler for job type ${job.job_type} in this deployment`,
      retryable: false,
    });
  return executeRunJob(job, lease, services.components, db, jobs, followerFor(job.payload.reply, services, db), trace);
}

/**
 * The follower of a run an interface queued: the interface with the target's prefix. A target
 * whose interface this deployment no longer serves gets none: the run still runs and is stored.
 */
function followerFor(target: ReplyTarget | undefined, services: JobServices, db: Db): RunFollower | undefined {
  if (!target) return undefined;
  const iface = services.interfaces?.filter(isChatInterface).find((i) => i.prefix === target.interface);
  if (!iface) {
    console.error(`no chat interface at ${target.interface} answers this run: it runs unanswered`);
    return undefined;
  }
  return iface.follow(target, { db, ...(services.media ? { media: services.media } : {}) });
}
