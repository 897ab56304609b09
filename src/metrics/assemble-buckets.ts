import { TOKEN_METRIC_KEYS, type MetricsBucket } from "../db/ports/metrics-store.js";
import { bucketOrder } from "./bucket-order.js";
import type { ModelGroup, SessionGroup } from "./metrics-groups.js";

type Counter = "agent" | "team" | "workflow";
const COUNTED: readonly string[] = ["agent", "team", "workflow"];

const emptyBucket = (day: string, userId: string, now: number, completed: boolean): MetricsBucket => ({
  id: crypto.randomUUID(),
  user_id: userId,
  date: day,
  aggregation_period: "daily",
  agent_runs_count: 0,
  team_runs_count: 0,
  workflow_runs_count: 0,
  agent_sessions_count: 0,
  team_sessions_count: 0,
  workflow_sessions_count: 0,
  // one distinct user per owned bucket and none for the unowned one, so a sum over buckets counts users
  users_count: userId === "" ? 0 : 1,
  token_metrics: {
    ...Object.fromEntries(TOKEN_METRIC_KEYS.map((k) => [k, 0])),
    cost: 0,
  } as MetricsBucket["token_metrics"],
  model_metrics: [],
  completed,
  created_at: now,
  updated_at: now,
});

/**
 * agno's calculate_date_metrics: one bucket per owner and day from the grouped sessions and
 * runs. A bucket is `completed` when its day ended before `now`, so agno reading the same table
 * knows which days are final.
 */
export function assembleBuckets(groups: SessionGroup[], models: ModelGroup[], now: number): MetricsBucket[] {
  const today = new Date(now * 1000).toISOString().slice(0, 10);
  const buckets = new Map<string, MetricsBucket>();
  const bucketOf = (day: string, userId: string) => {
    const key = `${day}\u0000${userId}`;
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = emptyBucket(day, userId, now, day < today)));
    return bucket;
  };
  for (const g of groups) {
    const bucket = bucketOf(g.day, g.user_id);
    if (COUNTED.includes(g.session_type)) {
      const type = g.session_type as Counter;
      bucket[`${type}_sessions_count`] += g.sessions;
      bucket[`${type}_runs_count`] += g.runs;
    }
    for (const key of TOKEN_METRIC_KEYS) bucket.token_metrics[key] += g.tokens[key] ?? 0;
    bucket.token_metrics.cost += g.cost;
  }
  for (const m of models) {
    const bucket = bucketOf(m.day, m.user_id);
    const entry = bucket.model_metrics.find((e) => e.model_id === m.model_id && e.model_provider === m.model_provider);
    if (entry) {
      entry.count += m.count;
      entry.cost += m.cost;
    } else
      bucket.model_metrics.push({
        model_id: m.model_id,
        model_provider: m.model_provider,
        count: m.count,
        cost: m.cost,
      });
  }
  for (const bucket of buckets.values())
    bucket.model_metrics.sort(
      (a, b) => b.count - a.count || (a.model_id < b.model_id ? -1 : a.model_id > b.model_id ? 1 : 0),
    );
  return [...buckets.values()].sort(bucketOrder);
}
