import type { ScheduleStore, ScheduleTicks } from "../../scheduler/types.js";

/** Cron schedules, reached as `db.schedules` (the store itself is the scheduler's port). */
export interface ScheduleStorage {
  /** cron schedules (SPEC SC1-SC2), each call scoped to its caller's user, and the cron tick's statements */
  readonly schedules: ScheduleStore & ScheduleTicks;
}
