import type { MetricsBucket } from "../db/ports/metrics-store.js";
import { countedTime, metricsDay } from "./metrics-day.js";
import { REFRESH_GRACE_SECONDS } from "./refresh-grace.js";

/**
 * Where a refresh starts looking: sessions written (a run's write touches its session) at or
 * after this epoch second. The last refresh read everything written before it, so only the
 * days of later writes owe a recount; the grace covers writes in flight while it read. `null`
 * (no bucket yet) means every session.
 */
export function refreshWatermark(latestBucketUpdate: number | null): number | null {
  return latestBucketUpdate === null ? null : latestBucketUpdate - REFRESH_GRACE_SECONDS;
}

/**
 * The days a refresh recomputes (the memory adapter's; the Postgres adapter asks the same in
 * SQL): the days of sessions written since the watermark, and the days whose buckets were
 * computed before the day ended (so they are marked `completed`, as agno marks them). Every other
 * day keeps its buckets untouched, so a refresh costs what changed, not the whole history.
 */
export function daysOwed(
  sessions: Iterable<{ created_at?: number; updated_at?: number | null }>,
  buckets: Iterable<Pick<MetricsBucket, "date" | "updated_at" | "completed">>,
  now: number,
): Set<string> {
  const today = metricsDay(now);
  const owed = new Set<string>();
  let latest: number | null = null;
  for (const b of buckets) {
    latest = Math.max(latest ?? b.updated_at, b.updated_at);
    if (!b.completed && b.date < today) owed.add(b.date);
  }
  const since = refreshWatermark(latest);
  for (const s of sessions) {
    const created = s.created_at ?? 0;
    if (!countedTime(created)) continue;
    if (since === null || (s.updated_at ?? created) >= since) owed.add(metricsDay(created));
  }
  return owed;
}
