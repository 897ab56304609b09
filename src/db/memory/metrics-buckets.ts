import type { MetricsBucket, MetricsBuckets, MetricsQuery, RefreshOptions } from "../ports/metrics-store.js";
import { bucketOrder } from "../../metrics/bucket-order.js";
import { assembleBuckets } from "../../metrics/assemble-buckets.js";
import { daysOwed } from "../../metrics/days-owed.js";
import { groupSessions } from "../../metrics/group-sessions.js";
import { copy, now as clock, type MemoryTables } from "./tables.js";

const metricsKey = (userId: string, day: string) => `${userId}\u0000${day}\u0000daily`;

/** The metrics buckets in memory (`db.metrics`), with the Postgres adapter's rules. */
export class MemoryMetricsBuckets implements MetricsBuckets {
  constructor(private readonly t: MemoryTables) {}

  async refresh(options: RefreshOptions = {}): Promise<MetricsBucket[]> {
    const now = options.now ?? clock();
    const sessions = [...this.t.sessions.values()];
    const days = daysOwed(sessions, this.t.metrics.values(), now);
    if (days.size === 0) return [];
    const { groups, models } = groupSessions(sessions, this.t.runs.values(), days);
    const written: MetricsBucket[] = [];
    const fresh = assembleBuckets(groups, models, now);
    // a recomputed day's rows are its new buckets only: an owner whose sessions are gone has none
    const kept = new Set(fresh.map((b) => metricsKey(b.user_id, b.date)));
    for (const [key, row] of this.t.metrics) if (days.has(row.date) && !kept.has(key)) this.t.metrics.delete(key);
    for (const bucket of fresh) {
      const key = metricsKey(bucket.user_id, bucket.date);
      const existing = this.t.metrics.get(key);
      // as agno's upsert: the row keeps its id and created_at
      const row = existing ? { ...bucket, id: existing.id, created_at: existing.created_at } : bucket;
      this.t.metrics.set(key, row);
      written.push(copy(row));
    }
    return written;
  }

  async list(query: MetricsQuery = {}): Promise<{ buckets: MetricsBucket[]; updatedAt: number | null }> {
    const owned = [...this.t.metrics.values()].filter((b) => query.userId === undefined || b.user_id === query.userId);
    const buckets = owned
      .filter(
        (b) =>
          (query.startingDate === undefined || b.date >= query.startingDate) &&
          (query.endingDate === undefined || b.date <= query.endingDate),
      )
      .sort(bucketOrder);
    if (buckets.length === 0) return { buckets: [], updatedAt: null };
    return { buckets: copy(buckets), updatedAt: Math.max(...owned.map((b) => b.updated_at)) };
  }
}
