import { findAnyComponent, type Component, type ComponentRef, type ComponentSource } from "../agent/component.js";
import { recordRunEvents } from "../agent/event-log.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import { AgnoError, errorMessage } from "../errors.js";
import type { ReplyTarget } from "../interfaces/reply-target.js";
import type { RunFollower } from "../interfaces/run-follower.js";
import { publicError } from "../public-error.js";
import type { TraceScope } from "../tracing/trace-scope.js";
import type { Outcome } from "./executor.js";
import { followed, postEnd } from "./follow-run.js";
import type { EnqueueJobInput, JobRecord } from "./types.js";
import { finalOutput } from "./final-output.js";
import { jobInput, type JobLimits } from "./job-input.js";

/** The `job_type` of a queued continue of a paused run (a chat interface's button press). */
export const CONTINUE_JOB_TYPE = "run_continue";

/** What a queued continue carries (JSON): the run, the resolutions, who resolves and where the answer goes. */
export interface ContinueJobPayload {
  run_id: string;
  component: ComponentRef;
  /** as `POST …/continue` takes them: an agent's or team's requirements, a workflow's step requirements */
  resolutions: unknown[];
  /** the resolver may resolve admin-only requirements */
  is_admin: boolean;
  reply?: ReplyTarget;
  /** the W3C trace context of whoever queued it (a webhook's request, an approval): the job's span continues that trace */
  traceparent?: string;
}

/**
 * The job that continues `payload.run_id`, keyed by `actionKey` (the platform's id of the button
 * press, or of the message it is on), so a repeated press or delivery continues it once.
 */
export function continueJobInput(
  payload: ContinueJobPayload,
  opts: JobLimits & { actionKey: string },
): EnqueueJobInput {
  return jobInput(CONTINUE_JOB_TYPE, payload.component, payload, `continue:${payload.run_id}:${opts.actionKey}`, opts);
}

/**
 * Runs a queued continue: the component resumes the paused run with the resolutions (as `POST
 * …/continue` does), its events are stored for `/resume`, and the follower posts how it ended. A
 * run that is no longer paused when the job starts (continued already, cancelled) is not resumed:
 * the follower is shown the run as it stands. A refused resolution (4xx) is final.
 */
export async function executeContinueJob(
  job: JobRecord,
  components: ComponentSource | readonly Component[],
  db: Db,
  follower?: RunFollower,
  trace?: TraceScope,
): Promise<Outcome> {
  const payload = job.payload as unknown as ContinueJobPayload;
  // A stored component continues on its current published version, as agno loads it by id.
  const component = (await findAnyComponent(components, payload.component, db))?.withDb(db);
  if (!component?.resume)
    return {
      status: "FAILED",
      error: `${payload.component.type} ${payload.component.id} is not served by this deployment or cannot continue runs`,
    };
  const userId = job.user_id ?? undefined;
  const row = await db.getRun(payload.run_id, userId !== undefined ? { userId } : {});
  if (!row) return { status: "FAILED", error: `run ${payload.run_id} not found` };
  // A press on a run answered already (or cancelled), or an attempt after one that continued it and died.
  if (String(row.status) !== "PAUSED")
    return (follower && (await postEnd(follower, row.run_data as unknown as RunOutput))) || { status: "COMPLETED" };
  let output: RunOutput;
  try {
    const firstIndex = (await db.lastRunEventIndex(payload.run_id)) + 1;
    const events = component.resume(payload.run_id, {
      resolutions: payload.resolutions,
      isAdmin: payload.is_admin,
      stream: true,
      ...(userId !== undefined ? { userId } : {}),
      ...(trace ? { trace } : {}),
    });
    output = await finalOutput(recordRunEvents(db, followed(events, follower), { runId: payload.run_id, firstIndex }));
  } catch (error) {
    const final = error instanceof AgnoError && error.status >= 400 && error.status < 500;
    return {
      status: "FAILED",
      error: publicError(error, `job ${job.id}`).message ?? errorMessage(error),
      retryable: !final,
    };
  }
  const posted = follower && (await postEnd(follower, output));
  if (posted) return posted;
  return output.status === "ERROR"
    ? {
        status: "FAILED",
        error: typeof output.content === "string" ? output.content : "the run ended without a result",
        retryable: false,
      }
    : { status: output.status === "CANCELLED" ? "CANCELLED" : "COMPLETED" };
}
