/** agno's token counters of a metrics bucket, summed over the bucket's runs. */
export const TOKEN_METRIC_KEYS = [
  "input_tokens",
  "output_tokens",
  "total_tokens",
  "audio_total_tokens",
  "audio_input_tokens",
  "audio_output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
] as const;

export type TokenMetricKey = (typeof TOKEN_METRIC_KEYS)[number];

/** How many of a bucket's runs used one model, and what they cost where the provider said. */
export interface ModelMetric {
  model_id: string;
  model_provider: string;
  count: number;
  /** the summed `metrics.cost` of those runs (0 when no run reported one) */
  cost: number;
}

/**
 * One stored row of `agno_metrics`: one owner's activity on one day (UTC), counted over the
 * sessions created that day and every run of those sessions, as agno buckets it. The owner is
 * `''` for sessions without a user.
 */
export interface MetricsBucket {
  id: string;
  user_id: string;
  /** the day, `YYYY-MM-DD` */
  date: string;
  aggregation_period: "daily";
  agent_runs_count: number;
  team_runs_count: number;
  workflow_runs_count: number;
  agent_sessions_count: number;
  team_sessions_count: number;
  workflow_sessions_count: number;
  /** 1 for an owner's bucket, 0 for the unowned one, so summing buckets counts distinct users */
  users_count: number;
  token_metrics: Record<TokenMetricKey, number> & { cost: number };
  model_metrics: ModelMetric[];
  /** the bucket was computed after its day ended */
  completed: boolean;
  /** epoch seconds */
  created_at: number;
  updated_at: number;
}

export interface MetricsQuery {
  /** first day, `YYYY-MM-DD`, inclusive */
  startingDate?: string;
  /** last day, `YYYY-MM-DD`, inclusive */
  endingDate?: string;
  /** one owner's buckets only (`''`: the unowned bucket); absent: every owner's */
  userId?: string;
}

export interface RefreshOptions {
  /** epoch seconds the refresh counts as now (default: the clock) */
  now?: number;
}

/** The metrics buckets, reached as `db.metrics`. */
export interface MetricsBuckets {
  /**
   * Recomputes the days that owe it (a session of that day written since its buckets were, a
   * day with sessions and no buckets, a day whose buckets were computed before it ended) from
   * the sessions and runs tables, and answers the buckets it wrote; the other days are left as
   * they are.
   */
  refresh(options?: RefreshOptions): Promise<MetricsBucket[]>;
  /** the stored buckets of a date range, by day, with the latest `updated_at` of the owner's (or every) bucket */
  list(query?: MetricsQuery): Promise<{ buckets: MetricsBucket[]; updatedAt: number | null }>;
}

/** Metrics storage (src/db/ports). */
export interface MetricsStore {
  readonly metrics: MetricsBuckets;
}
