/** The UTC day (`YYYY-MM-DD`) an epoch-seconds time falls on: agno buckets metrics by UTC day. */
export function metricsDay(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** The last second of the year 9999: a session created later (or before 1970) has no day a bucket can name, and is not counted. */
export const LAST_COUNTED_SECOND = 253_402_300_799;

/** Whether a session's `created_at` falls on a day a bucket can name. */
export const countedTime = (epochSeconds: number): boolean =>
  Number.isFinite(epochSeconds) && epochSeconds >= 0 && epochSeconds <= LAST_COUNTED_SECOND;
