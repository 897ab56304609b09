import { asError } from "../errors.js";
import { publicError } from "../public-error.js";
import { enqueueEach } from "../queue/group-enqueue.js";
import { EVAL_JOB_TYPE, evalJobInput } from "../queue/eval-job.js";
import { runJobInput } from "../queue/run-job-input.js";
import type { EnqueueJobInput, EnqueueOutcome, EnqueueRunInput, JobStore } from "../queue/types.js";
import type { NewScheduleRun, Schedule, ScheduleRun, ScheduleTicks } from "./types.js";
import { SCHEDULE_JOB_KEY_PREFIX } from "./job-end.js";
import { scheduleTarget } from "./validate.js";
import { nowSeconds } from "../time.js";

/** What dispatching needs: the durable queue's storage and its depth limit. */
export interface DispatchDeps {
  /** runs are enqueued in one batch; evals (`/eval-runs` schedules) one by one */
  jobs: Pick<JobStore, "enqueueRuns" | "enqueueJob">;
  /** refuse (the attempt fails, and may retry) when this many jobs wait or run; default 10,000 */
  maxDepth?: number;
  /**
   * refuse when the schedule's owner (no owner: one shared principal) has this many jobs waiting
   * or running: the attempt fails with the cap as its error instead of queueing; unset: no cap
   */
  maxUserJobs?: number;
}

export interface Attempt {
  /** `schedule:<id>:<occurrence epoch>`, or `schedule:<id>:manual:<uuid>` for a trigger */
  occurrenceKey: string;
  attempt: number;
  scheduledFor: number | null;
  /** a retry continues its failed attempt's session */
  sessionId?: string | null;
  now: number;
}

/** The queue's idempotency key: the occurrence for the first attempt, one more suffix per retry. */
const jobKeyOf = (occurrenceKey: string, attempt: number) =>
  attempt === 1 ? occurrenceKey : `${occurrenceKey}#${attempt}`;

/** When a failed attempt's retry falls due, or null when its schedule has none left. */
function retryAt(schedule: Schedule, attempt: number, now: number): number | null {
  return schedule.enabled && attempt <= schedule.max_retries ? now + schedule.retry_delay_seconds : null;
}

/**
 * Enqueues attempts as durable background runs of their schedules' owners, all in one batch
 * (one transaction of a few statements, however many; an eval schedule's job is enqueued on its
 * own), and describes each for `agno_schedule_runs`. The work itself runs in the queue, never
 * here. The idempotency key makes a repeated dispatch (a duplicate tick, a tick that crashed
 * before settling) return the first job. A dispatch that fails (a full queue, a stored payload
 * that no longer validates) is an attempt that failed, recorded with its error, not an exception.
 */
export async function dispatchAttempts(
  deps: DispatchDeps,
  items: Array<{ schedule: Schedule; a: Attempt }>,
): Promise<NewScheduleRun[]> {
  type Planned = { run: EnqueueRunInput } | { job: EnqueueJobInput } | { error: Error };
  const planned = items.map(({ schedule, a }): Planned => {
    try {
      return inputOf(deps, schedule, a);
    } catch (error) {
      return { error: asError(error) };
    }
  });
  const inputs = planned.flatMap((p) => ("run" in p ? [p.run] : []));
  // A batch whose transaction failed as a whole: every attempt failed.
  const outcomes = await enqueueEach(() => deps.jobs, inputs);
  let next = 0;
  const runs: NewScheduleRun[] = [];
  for (const [i, { schedule, a }] of items.entries()) {
    const p = planned[i]!;
    const outcome: EnqueueOutcome = "run" in p ? outcomes[next++]! : "job" in p ? await enqueueOne(deps, p.job) : p;
    runs.push(recordOf(schedule, a, outcome));
  }
  return runs;
}

/** One job that is not a run (an eval), its refusal as the outcome's error. */
async function enqueueOne(deps: DispatchDeps, input: EnqueueJobInput): Promise<EnqueueOutcome> {
  try {
    return await deps.jobs.enqueueJob(input);
  } catch (error) {
    return { error: asError(error) };
  }
}

export async function dispatchAttempt(deps: DispatchDeps, schedule: Schedule, a: Attempt): Promise<NewScheduleRun> {
  return (await dispatchAttempts(deps, [{ schedule, a }]))[0]!;
}

function inputOf(
  deps: DispatchDeps,
  schedule: Schedule,
  a: Attempt,
): { run: EnqueueRunInput } | { job: EnqueueJobInput } {
  const target = scheduleTarget(schedule.endpoint, schedule.payload);
  const limits = {
    userId: schedule.user_id,
    // Retries are the schedule's (max_retries, each recorded); the job itself runs once.
    maxAttempts: 1,
    maxDepth: deps.maxDepth ?? 10_000,
    maxUserDepth: deps.maxUserJobs,
  };
  if (target.kind === "eval")
    return { job: evalJobInput(target.input, { ...limits, idempotencyKey: jobKeyOf(a.occurrenceKey, a.attempt) }) };
  const fields = target.fields;
  return {
    run: runJobInput({
      component: target.ref,
      message: fields.message,
      sessionId: fields.session_id ?? a.sessionId,
      // Nobody follows a scheduled run live: no event log (read it, or its attempt, instead).
      stream: false,
      sessionState: fields.session_state,
      dependencies: fields.dependencies,
      metadata: fields.metadata,
      idempotencyKey: jobKeyOf(a.occurrenceKey, a.attempt),
      ...limits,
    }),
  };
}

function recordOf(schedule: Schedule, a: Attempt, outcome: EnqueueOutcome): NewScheduleRun {
  const base = {
    id: crypto.randomUUID(),
    schedule_id: schedule.id,
    attempt: a.attempt,
    triggered_at: a.now,
    user_id: schedule.user_id,
    input: schedule.payload,
    scheduled_for: a.scheduledFor,
    occurrence_key: a.occurrenceKey,
  };
  if ("job" in outcome) {
    const { job } = outcome;
    return {
      ...base,
      status: "running",
      status_code: 202,
      completed_at: null,
      // An eval's job is its eval run's id: the attempt names the eval run it stores.
      run_id: job.job_type === EVAL_JOB_TYPE ? job.id : job.payload.run_id,
      session_id: job.session_id,
      job_id: job.id,
      error: null,
      next_attempt_at: null,
    };
  }
  // Shown by the schedule's run history: the public form only (publicError logs the rest under its ref).
  const shown = publicError(outcome.error, `schedule ${schedule.id}`);
  return {
    ...base,
    status: "failed",
    status_code: shown.status,
    completed_at: a.now,
    run_id: null,
    session_id: a.sessionId ?? null,
    job_id: null,
    error: shown.message,
    next_attempt_at: retryAt(schedule, a.attempt, a.now),
  };
}

/**
 * `POST /schedules/{id}/trigger` and its SDK twin: one attempt now, outside the cron, with the
 * schedule's retries and timeout. Answers the recorded attempt.
 */
export async function triggerSchedule(
  deps: DispatchDeps & { schedules: Pick<ScheduleTicks, "recordScheduleRuns">; wake?: () => Promise<void> },
  schedule: Schedule,
): Promise<ScheduleRun> {
  const now = nowSeconds();
  const run = await dispatchAttempt(deps, schedule, {
    occurrenceKey: `${SCHEDULE_JOB_KEY_PREFIX}${schedule.id}:manual:${crypto.randomUUID()}`,
    attempt: 1,
    scheduledFor: null,
    now,
  });
  const [recorded] = await deps.schedules.recordScheduleRuns([run], now);
  if (run.job_id) await deps.wake?.();
  return recorded!;
}
