import type { MetricsBucket } from "../db/ports/metrics-store.js";

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The order buckets are answered in on every adapter: by day, then owner, compared by code point (Postgres's `COLLATE "C"`). */
export function bucketOrder(a: Pick<MetricsBucket, "date" | "user_id">, b: Pick<MetricsBucket, "date" | "user_id">) {
  return byCodePoint(a.date, b.date) || byCodePoint(a.user_id, b.user_id);
}
