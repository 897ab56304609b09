import type { MetricsBucket } from "../db/ports/metrics-store.js";

/**
 * agno's identify_metrics_by_owner: one owner's buckets named `<day>_<user>_<period>`, the same
 * on every backend, instead of the stored row id.
 */
export function ownerBucketIds(buckets: MetricsBucket[], userId: string): MetricsBucket[] {
  return buckets.map((b) => ({ ...b, id: `${b.date}_${userId}_${b.aggregation_period}` }));
}
