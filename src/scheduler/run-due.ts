import { ValidationError } from "../errors.js";
import type { JobStore } from "../queue/types.js";
import { nextOccurrence } from "./cron.js";
import { dispatchAttempts, type DispatchDeps } from "./dispatch.js";
import { SCHEDULE_JOB_KEY_PREFIX } from "./job-end.js";
import type { NewScheduleRun, Schedule, ScheduleAdvance, ScheduleTicks } from "./types.js";
import { nowSeconds } from "../time.js";

export interface SchedulerOptions {
  /** tells the queue there is work (the JobQueue Durable Object's `wake`) */
  wake?: () => Promise<void>;
  /** queue depth at which dispatches fail (and retry); default 10,000 */
  maxDepth?: number;
  /** jobs a schedule's owner may have waiting or running; an occurrence past it is a failed attempt, not a job (unset: no cap) */
  maxUserJobs?: number;
  /** schedules claimed per statement (default 1,000) */
  batchSize?: number;
  /** how long a claim holds its schedules before a later tick may take them over (default 300 s) */
  lockSeconds?: number;
  /** the wall clock, epoch seconds (tests move it) */
  now?: () => number;
}

/** What one tick did. */
export interface TickReport {
  claimed: number;
  dispatched: number;
  failed: number;
  advanced: number;
  disabled: number;
  reconciled: number;
  timedOut: number;
  retried: number;
}

/** The database side of a tick: schedules and the durable queue of the same database. */
export interface SchedulerDb {
  schedules: ScheduleTicks;
  jobs: Pick<JobStore, "enqueueRuns" | "enqueueJob" | "cancelJob">;
}

/** Where a claimed schedule goes after this occurrence; a cron that no longer computes disables it. */
function advanceOf(s: Schedule, dueBy: number): { advance: ScheduleAdvance; dispatch: boolean } {
  const claimed = s.next_run_at!;
  try {
    // After the later of the tick and the occurrence: missed minutes coalesce into this one run.
    const next = nextOccurrence(s.cron_expr, s.timezone, Math.max(dueBy, claimed));
    const disabled_reason =
      next === null ? `cron_expr ${JSON.stringify(s.cron_expr)} has no occurrence after this one` : null;
    return { advance: { id: s.id, claimed, next, disabled_reason }, dispatch: true };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // An expression or timezone that no longer parses says nothing trustworthy about this run either.
    return {
      advance: {
        id: s.id,
        claimed,
        next: null,
        disabled_reason: `cron_expr can no longer be computed: ${error.message}`,
      },
      dispatch: false,
    };
  }
}

/**
 * One cron tick (SPEC SC1), for `scheduled()` with the controller's `scheduledTime` (ms):
 * settles attempts whose jobs ended, times out the overdue ones (cancelling their runs), sends
 * due retries, then claims every schedule due by `scheduledTime` and dispatches one occurrence
 * each to the durable queue. Each claim is one statement that locks the rows; their enqueues
 * are one batch (a transaction of 4 to 6 statements); the advance of their next_run_at and the
 * attempts' records are one more. The work runs in the queue, never here. Round trips: 4 when
 * nothing is due, else about 8 per `batchSize` schedules.
 *
 * @example
 * async scheduled(controller, env) { await runDueSchedules(db, { wake: () => queue.wake() }, controller.scheduledTime) }
 */
export async function runDueSchedules(
  db: SchedulerDb,
  opts: SchedulerOptions,
  scheduledTime: number,
): Promise<TickReport> {
  const clock = opts.now ?? nowSeconds;
  const batchSize = opts.batchSize ?? 1000;
  const deps: DispatchDeps = { jobs: db.jobs, maxDepth: opts.maxDepth, maxUserJobs: opts.maxUserJobs };
  const workerId = `cron:${crypto.randomUUID().slice(0, 8)}`;
  const dueBy = Math.floor(scheduledTime / 1000);
  const report: TickReport = {
    claimed: 0,
    dispatched: 0,
    failed: 0,
    advanced: 0,
    disabled: 0,
    reconciled: 0,
    timedOut: 0,
    retried: 0,
  };
  const count = (runs: NewScheduleRun[]) => {
    for (const r of runs)
      if (r.job_id) report.dispatched++;
      else report.failed++;
  };

  report.reconciled = await db.schedules.reconcileScheduleRuns(clock());
  const overdue = await db.schedules.expireScheduleRuns(clock());
  report.timedOut = overdue.length;
  for (const jobId of overdue)
    await db.jobs
      .cancelJob(jobId)
      .catch((e: unknown) => console.error(`schedule timeout: job ${jobId} not cancelled: ${String(e)}`));

  const retries = await db.schedules.dueScheduleRetries(clock(), batchSize);
  if (retries.length > 0) {
    const now = clock();
    const runs = await dispatchAttempts(
      deps,
      retries.map(({ parent, schedule }) => ({
        schedule,
        a: {
          occurrenceKey: parent.occurrence_key,
          attempt: parent.attempt + 1,
          scheduledFor: parent.scheduled_for,
          sessionId: parent.session_id,
          now,
        },
      })),
    );
    await db.schedules.recordScheduleRuns(
      runs,
      now,
      retries.map((r) => r.parent.id),
    );
    report.retried = runs.length;
    count(runs);
  }

  for (;;) {
    const now = clock();
    const claimed = await db.schedules.claimDueSchedules({
      workerId,
      dueBy,
      now,
      limit: batchSize,
      lockSeconds: opts.lockSeconds ?? 300,
    });
    if (claimed.length === 0) break;
    report.claimed += claimed.length;
    const plans = claimed.map((s) => ({ s, ...advanceOf(s, dueBy) }));
    const runs = await dispatchAttempts(
      deps,
      plans
        .filter((p) => p.dispatch)
        .map(({ s }) => ({
          schedule: s,
          a: {
            occurrenceKey: `${SCHEDULE_JOB_KEY_PREFIX}${s.id}:${s.next_run_at}`,
            attempt: 1,
            scheduledFor: s.next_run_at,
            now,
          },
        })),
    );
    const settled = await db.schedules.settleClaims(
      workerId,
      plans.map((p) => p.advance),
      runs,
      clock(),
    );
    report.advanced += settled.advanced;
    report.disabled += plans.filter((p) => p.advance.next === null).length;
    count(runs);
    if (claimed.length < batchSize) break;
  }
  if (report.dispatched > 0) await opts.wake?.();
  return report;
}
