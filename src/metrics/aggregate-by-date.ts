import { TOKEN_METRIC_KEYS, type MetricsBucket } from "../db/ports/metrics-store.js";
import { bucketOrder } from "./bucket-order.js";

const COUNTS = [
  "agent_runs_count",
  "team_runs_count",
  "workflow_runs_count",
  "agent_sessions_count",
  "team_sessions_count",
  "workflow_sessions_count",
  "users_count",
] as const;

/**
 * agno's aggregate_metrics_by_date: every owner's buckets of a day summed into one, named
 * `<day>_daily`, the deployment-wide view (counts, tokens and cost summed, models merged, the
 * earliest `created_at` and the latest `updated_at`).
 */
export function aggregateByDate(buckets: MetricsBucket[]): MetricsBucket[] {
  const days = new Map<string, MetricsBucket>();
  for (const b of buckets) {
    const day = days.get(b.date);
    if (!day) {
      days.set(b.date, {
        ...b,
        id: `${b.date}_${b.aggregation_period}`,
        token_metrics: { ...b.token_metrics },
        model_metrics: b.model_metrics.map((m) => ({ ...m })),
      });
      continue;
    }
    for (const key of COUNTS) day[key] += b[key];
    for (const key of TOKEN_METRIC_KEYS) day.token_metrics[key] += b.token_metrics[key] ?? 0;
    day.token_metrics.cost += b.token_metrics.cost ?? 0;
    for (const m of b.model_metrics) {
      const entry = day.model_metrics.find((e) => e.model_id === m.model_id && e.model_provider === m.model_provider);
      if (entry) {
        entry.count += m.count;
        entry.cost += m.cost;
      } else day.model_metrics.push({ ...m });
    }
    day.completed &&= b.completed;
    day.created_at = Math.min(day.created_at, b.created_at);
    day.updated_at = Math.max(day.updated_at, b.updated_at);
  }
  return [...days.values()].sort(bucketOrder);
}
