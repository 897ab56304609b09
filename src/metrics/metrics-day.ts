/** The UTC day (`YYYY-MM-DD`) an epoch-seconds time falls on: agno buckets metrics by UTC day. */
export function metricsDay(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}
