import { NotConfiguredError, NotFoundError } from "../errors.js";
import { userCaps, type QueueConfig } from "../os/background.js";
import type { RequestServices } from "../os/context.js";
import { continueJobInput } from "../queue/continue-job.js";
import type { JobRecord } from "../queue/types.js";
import type { ChatInterface } from "./chat-interface.js";
import type { ReplyTarget } from "./reply-target.js";

/** A button press (or reply) that resolves what a paused run waits on. */
export interface InterfaceAnswer {
  runId: string;
  /** the platform user who pressed, as `user_id` */
  userId: string;
  /** as `POST …/continue` takes them (an agent's or team's requirements, a workflow's step requirements) */
  resolutions: unknown[];
  /** the platform's identity of the press: a redelivery continues nothing twice */
  actionKey: string;
  /** the presser is one of the interface's configured admins: they may answer any run, admin-only requirements too */
  isAdmin: boolean;
  reply: ReplyTarget;
  /** the webhook request's trace context, when it is traced: the continued run's trace continues it */
  traceparent?: string;
}

/**
 * Queues the continue of a paused run a button press resolves, after checking who pressed: only
 * the user who started the run, or an admin the interface names, may answer it (anyone else:
 * NotFoundError, as another user's run reads everywhere). The job resumes the run as
 * `POST …/continue` does and the interface posts how it ended.
 */
export async function enqueueInterfaceContinue(
  services: Pick<RequestServices, "dbs" | "jobs" | "queue">,
  queue: QueueConfig | undefined,
  iface: ChatInterface,
  answer: InterfaceAnswer,
): Promise<{ job: JobRecord; created: boolean }> {
  const db = services.dbs[0];
  if (!db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  const { jobs, queue: dispatcher } = services;
  if (!queue?.durable || !jobs || !dispatcher)
    throw new NotConfiguredError("this host has no job queue binding (JOB_QUEUE)");
  const row = await db.getRun(answer.runId, answer.isAdmin ? {} : { userId: answer.userId });
  const ref = iface.component.ref;
  if (!row || row.run_data[`${ref.type}_id`] !== ref.id) throw new NotFoundError(`run ${answer.runId} not found`);
  const { job, created } = await jobs.enqueueJob(
    continueJobInput(
      {
        run_id: answer.runId,
        component: { type: ref.type, id: ref.id },
        resolutions: answer.resolutions,
        is_admin: answer.isAdmin,
        reply: answer.reply,
        ...(answer.traceparent ? { traceparent: answer.traceparent } : {}),
      },
      {
        // The run's owner: the continue is theirs whoever of them (or an admin) pressed.
        userId: row.user_id ?? null,
        actionKey: answer.actionKey,
        maxAttempts: queue.maxAttempts ?? 3,
        maxDepth: queue.maxDepth ?? 10_000,
        maxUserDepth: userCaps(queue).maxJobsPerUser,
      },
    ),
  );
  if (created) await dispatcher.wake();
  return { job, created };
}
