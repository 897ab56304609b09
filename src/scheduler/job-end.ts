import { errorMessage } from "../errors.js";
import type { JobRecord, JobStore } from "../queue/types.js";
import { nowSeconds } from "../time.js";
import type { ScheduleTicks } from "./types.js";

/**
 * Every job the scheduler enqueues is keyed by its occurrence (`schedule:<id>:…`), so the queue
 * can tell a schedule's job from any other without a lookup.
 */
export const SCHEDULE_JOB_KEY_PREFIX = "schedule:";

export const isScheduleJob = (job: Pick<JobRecord, "idempotency_key">): boolean =>
  job.idempotency_key?.startsWith(SCHEDULE_JOB_KEY_PREFIX) === true;

type Settle = Pick<ScheduleTicks, "settleJobScheduleRuns">;

async function settle(schedules: Settle, jobIds: string[]): Promise<void> {
  try {
    await schedules.settleJobScheduleRuns(jobIds, nowSeconds());
  } catch (error) {
    // Not lost: the next cron tick settles whatever is still running after its job ended.
    console.error(`schedule runs of job(s) ${jobIds.join(", ")} not settled: ${errorMessage(error)}`);
  }
}

/**
 * The queue's `onJobEnded` hook: the attempt a schedule's job runs gets its final status
 * (success, failed, cancelled, paused) as soon as the job ends, instead of at the next tick.
 * Other jobs cost no statement.
 */
export function settleScheduleRunOnJobEnd(schedules: Settle): (job: JobRecord) => Promise<void> {
  return async (job) => {
    if (isScheduleJob(job)) await settle(schedules, [job.id]);
  };
}

/**
 * The job store with `cancelJob` settling the attempt of a job that was cancelled before it
 * started (the dispatcher never sees such a job end). A running job is only asked to stop: it
 * settles through `onJobEnded` once it has.
 */
export function settlingCancelledScheduleRuns<J extends Pick<JobStore, "cancelJob">>(jobs: J, schedules: Settle): J {
  const cancelJob: JobStore["cancelJob"] = async (id) => {
    const outcome = await jobs.cancelJob(id);
    if (outcome === "cancelled") await settle(schedules, [id]);
    return outcome;
  };
  return new Proxy(jobs, {
    get(target, prop) {
      if (prop === "cancelJob") return cancelJob;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
