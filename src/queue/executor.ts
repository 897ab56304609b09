import { findAnyComponent, findStoredComponent, type Component, type ComponentSource } from "../agent/component.js";
import { recordRunEvents } from "../agent/event-log.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import type { RunFollower } from "../interfaces/run-follower.js";
import { followed, postEnd } from "./follow-run.js";
import { AgnoError } from "../errors.js";
import { nowSeconds } from "../time.js";
import { publicError } from "../public-error.js";
import { runEndingJob } from "./run-ending-job.js";
import { jobComponent } from "./run-job-input.js";
import type { JobRecord, JobStore, Lease } from "./types.js";
import { finalOutput } from "./final-output.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/** How an attempt ended, for the dispatcher to record (and maybe retry). */
export interface Outcome {
  status: "COMPLETED" | "FAILED" | "CANCELLED";
  error?: string;
  /** a failure another attempt might not repeat (a model error); a bad job is not retried */
  retryable?: boolean;
  /** the job's end is already stored (with the run's last write): nothing left for the dispatcher to record */
  recorded?: boolean;
  /** the job could not start yet: put it back for this many seconds, without using up an attempt */
  waitSeconds?: number;
}

/** A previous attempt's run that died or failed: it starts over, in the same row. */
const RESTARTABLE = new Set(["RUNNING", "ERROR"]);

/**
 * Runs a queued run of a component to its end, storing its events for anyone following it (unless
 * it was submitted with stream=false). How it ended is the status of the output the component
 * returns, whatever its last event was called. A later attempt first looks at what an earlier one
 * left: a run that already ended (its worker died after the run, before the job was marked) is not
 * run again. A `follower` (a chat interface answering the run) sees its events and its end; the
 * job then ends only once the answer is posted, so a crash in between posts it on the next attempt.
 */
export async function executeRunJob(
  job: JobRecord,
  lease: Lease,
  components: ComponentSource | readonly Component[],
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
  follower?: RunFollower,
  trace?: TraceScope,
): Promise<Outcome> {
  if (!follower) return runJob(job, lease, components, db, jobs, undefined, trace);
  try {
    return await runJob(job, lease, components, db, jobs, follower, trace);
  } catch (error) {
    // A run that could not even start (bad media, its database down) is still answered, once:
    // by the last attempt, or at once when no attempt would do better.
    const final = (error instanceof AgnoError && error.status < 500) || job.attempt >= job.max_attempts;
    if (!final) throw error;
    const message = publicError(error, `job ${job.id}`).message;
    return (await postEnd(follower, failedRun(job, message))) ?? { status: "FAILED", error: message, retryable: false };
  }
}

/** What a follower is shown of a run that failed before it had an output of its own. */
function failedRun(job: JobRecord, message: string): RunOutput {
  return {
    run_id: job.payload.run_id,
    session_id: job.session_id ?? "",
    user_id: job.user_id,
    status: "ERROR",
    content: message,
  } as RunOutput;
}

async function runJob(
  job: JobRecord,
  lease: Lease,
  components: ComponentSource | readonly Component[],
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
  follower?: RunFollower,
  trace?: TraceScope,
): Promise<Outcome> {
  const ref = jobComponent(job);
  // A stored component's run names the config version its request resolved: that one is built.
  const version = job.payload.component_version;
  const served =
    version === undefined
      ? await findAnyComponent(components, ref, db)
      : await findStoredComponent(components, ref, version, db);
  if (!served)
    return {
      status: "FAILED",
      error:
        version === undefined
          ? `${ref.type} ${ref.id} is not served by this deployment`
          : `${ref.type} ${ref.id} v${version} is not stored in this deployment`,
    };
  const runId = job.payload.run_id;
  const ending = runEndingJob(jobs, lease);
  const component = served.withDb(db);
  // A first attempt's run can only be PENDING, or CANCELLED by a race, which the component handles.
  if (job.attempt > 1) {
    const row = await db.getRun(runId);
    if (!row) return { status: "FAILED", error: `run ${runId} is gone` };
    const status = String(row.status);
    if (ENDED.has(status) && follower) {
      // The run ended under an earlier attempt that died before its answer was posted (or posting failed).
      const posted = await postEnd(follower, row.run_data as unknown as RunOutput);
      if (posted) return posted;
    }
    if (status === "CANCELLED") return { status: "CANCELLED" };
    if (status === "COMPLETED" || status === "PAUSED") return { status: "COMPLETED" };
    if (RESTARTABLE.has(status)) {
      await db.upsertRun({ ...row.run_data, status: "PENDING" }, { expectStatus: [status] });
    } else if (status !== "PENDING") {
      return { status: "FAILED", error: `run ${runId} is ${status}` };
    }
  }
  if (follower && job.session_id) {
    // A conversation's messages are answered in the order they came: a platform's users expect
    // it, and a run must see the runs before it in its history.
    const earlier = await earlierUnfinishedRun(db, job.session_id, runId);
    if (earlier)
      return { status: "FAILED", error: `waits for run ${earlier} of its conversation`, waitSeconds: WAIT_SECONDS };
  }
  const stream = job.payload.stream !== false;
  const run = component.execute({
    message: job.payload.message,
    runId,
    sessionId: job.session_id ?? undefined,
    userId: job.user_id ?? undefined,
    sessionState: job.payload.session_state,
    dependencies: job.payload.dependencies,
    metadata: job.payload.metadata,
    media: job.payload.media ?? (await follower?.media?.()),
    // Nobody follows a stream=false run: no events to store, and its model calls need not stream either.
    stream,
    // A followed run's job ends after the answer is posted, not with the run's last write.
    ...(follower ? {} : { onFinalWrite: ending.onFinalWrite }),
    ...(trace ? { trace } : {}),
  });
  let output: RunOutput;
  if (!stream) {
    output = await finalOutput(run);
  } else {
    const firstIndex = job.attempt > 1 ? (await db.lastRunEventIndex(runId)) + 1 : 0;
    // The log of a retried run already starts with the first attempt's started event; agno has no
    // retry event, so the run keeps one in total and the retry's events follow on.
    const events = firstIndex > 0 ? withoutRunStarted(run, runId) : run;
    output = await finalOutput(recordRunEvents(db, followed(events, follower), { runId, firstIndex }));
  }
  // A failure another attempt will retry is not posted; the last attempt's is.
  if (follower && (output.status !== "ERROR" || job.attempt >= job.max_attempts)) {
    const posted = await postEnd(follower, output);
    if (posted) return posted;
  }
  switch (output.status) {
    case "COMPLETED":
    case "PAUSED":
      return { status: "COMPLETED", recorded: ending.jobEnded() };
    case "CANCELLED":
      return { status: "CANCELLED" };
    default:
      return {
        status: "FAILED",
        error: typeof output.content === "string" ? output.content : "the run ended without a result",
        retryable: true,
      };
  }
}

/** How long a message waits before it looks again whether the one before it is answered. */
const WAIT_SECONDS = 1;
/** An earlier run older than this no longer holds the next one back (its job died for good). */
const STALE_EARLIER_SECONDS = 600;

/** A run of the session before `runId` that is still waiting or running, if any. */
async function earlierUnfinishedRun(db: Db, sessionId: string, runId: string): Promise<string | undefined> {
  const mine = await db.getRun(runId);
  if (!mine) return undefined;
  const { data } = await db.getRuns({
    sessionId,
    status: ["PENDING", "RUNNING"],
    sortBy: "run_index",
    limit: 20,
    page: 1,
  });
  const cutoff = nowSeconds() - STALE_EARLIER_SECONDS;
  return data.find(
    (r) => r.run_id !== runId && Number(r.run_index) < Number(mine.run_index) && Number(r.created_at) > cutoff,
  )?.run_id;
}

/** How a run can have ended for good: a later attempt finding one of these posts it rather than running it (an ERROR runs again). */
const ENDED = new Set(["COMPLETED", "PAUSED", "CANCELLED"]);

/** The events that open a run's log, an agent's, a team's or a workflow's. */
const STARTED = new Set(["RunStarted", "TeamRunStarted", "WorkflowStarted"]);

/** The run's events but its own started event (its members' and steps' runs keep theirs). */
async function* withoutRunStarted(
  events: AsyncGenerator<RunEvent, RunOutput>,
  runId: string,
): AsyncGenerator<RunEvent, RunOutput> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    const event = next.value as { event: string; run_id?: string };
    if (!(STARTED.has(event.event) && event.run_id === runId)) yield next.value;
  }
}
