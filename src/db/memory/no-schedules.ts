import { NotConfiguredError } from "../../errors.js";
import type { ScheduleStore, ScheduleTicks } from "../../scheduler/types.js";

const METHODS = [
  "createSchedule",
  "getSchedule",
  "listSchedules",
  "updateSchedule",
  "deleteSchedule",
  "enableSchedule",
  "disableSchedule",
  "listScheduleRuns",
  "getScheduleRun",
  "claimDueSchedules",
  "settleClaims",
  "reconcileScheduleRuns",
  "settleJobScheduleRuns",
  "expireScheduleRuns",
  "dueScheduleRetries",
  "recordScheduleRuns",
] as const satisfies ReadonlyArray<keyof (ScheduleStore & ScheduleTicks)>;

/**
 * The schedules of a MemoryDb: not kept in memory (cron schedules need the durable queue, which
 * needs Postgres), so every call is a NotConfiguredError that says so, not a silent no-op.
 */
export function noSchedules(): ScheduleStore & ScheduleTicks {
  const refuse = async () => {
    throw new NotConfiguredError(
      "MemoryDb keeps no cron schedules: schedules need a PostgresDb (and its durable queue)",
    );
  };
  return Object.fromEntries(METHODS.map((m) => [m, refuse])) as unknown as ScheduleStore & ScheduleTicks;
}
