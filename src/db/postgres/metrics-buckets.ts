import { sql, type SQL } from "drizzle-orm";
import { bucketOrder } from "../../metrics/bucket-order.js";
import {
  TOKEN_METRIC_KEYS,
  type MetricsBucket,
  type MetricsBuckets,
  type MetricsQuery,
  type RefreshOptions,
} from "../ports/metrics-store.js";
import { assembleBuckets } from "../../metrics/assemble-buckets.js";
import { refreshWatermark } from "../../metrics/days-owed.js";
import { LAST_COUNTED_SECOND, metricsDay } from "../../metrics/metrics-day.js";
import type { ModelGroup, SessionGroup } from "../../metrics/metrics-groups.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";
import { num } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";

/** What the metrics table borrows from its PostgresDb. */
export interface MetricsDeps {
  exec: Exec;
  transaction: <T>(fn: (tx: Exec) => Promise<T>) => Promise<T>;
  /** resolves once the database holds the current layout */
  ready: () => Promise<void>;
  metrics: SQL;
  /** the metrics table's qualified name: the key of the lock one refresh at a time holds */
  metricsName: string;
  sessions: SQL;
  runs: SQL;
}

const COUNTS = [
  "agent_runs_count",
  "team_runs_count",
  "workflow_runs_count",
  "agent_sessions_count",
  "team_sessions_count",
  "workflow_sessions_count",
  "users_count",
] as const;

const COLUMNS = sql.raw(
  `id, user_id, to_char(date, 'YYYY-MM-DD') AS date, aggregation_period, ${COUNTS.join(", ")}, token_metrics, model_metrics, completed, created_at, updated_at`,
);

/** The UTC day of a session row's `created_at`, as text. */
const SESSION_DAY = sql.raw(`to_char((to_timestamp(created_at) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`);

/** A number a run's `metrics` holds under `key`, 0 when it holds none (or not a number). */
const runMetric = (key: string) =>
  sql.raw(
    `CASE WHEN jsonb_typeof(r.run_data->'metrics'->'${key}') = 'number' THEN (r.run_data->'metrics'->>'${key}')::float8 ELSE 0 END`,
  );

/** One bucket as it leaves Postgres. */
function toBucket(row: Record<string, unknown>): MetricsBucket {
  const bucket = {
    id: String(row.id),
    user_id: String(row.user_id),
    date: String(row.date),
    aggregation_period: "daily",
    token_metrics: row.token_metrics as MetricsBucket["token_metrics"],
    model_metrics: Array.isArray(row.model_metrics) ? (row.model_metrics as MetricsBucket["model_metrics"]) : [],
    completed: row.completed === true,
    created_at: num(row.created_at),
    updated_at: num(row.updated_at ?? row.created_at),
  } as MetricsBucket;
  for (const key of COUNTS) bucket[key] = num(row[key]);
  return bucket;
}

/**
 * The metrics buckets on Postgres (`db.metrics`, `agno_metrics`): the days owed and their
 * sessions' and runs' counts and token sums are computed in SQL over `agno_sessions` and
 * `agno_runs`; `assembleBuckets` shapes them and one statement upserts them on agno's
 * (user_id, date, aggregation_period) key.
 */
export class PostgresMetricsBuckets implements MetricsBuckets {
  constructor(private readonly d: MetricsDeps) {}

  async refresh(options: RefreshOptions = {}): Promise<MetricsBucket[]> {
    const now = options.now ?? nowSeconds();
    const today = metricsDay(now);
    const { metrics, sessions, runs } = this.d;
    await this.d.ready();
    return this.d.transaction(async (tx) => {
      // one refresh at a time: a second one waits and then finds nothing left owing
      await tx(sql`SELECT pg_advisory_xact_lock(hashtext(${`agno-edge metrics ${this.d.metricsName}`}))`);
      const [latest] = await tx(sql`SELECT MAX(updated_at) AS at FROM ${metrics}`);
      const since = refreshWatermark(latest?.at === null || latest?.at === undefined ? null : num(latest.at));
      const touched = since === null ? sql`TRUE` : sql`COALESCE(updated_at, created_at) >= ${since}`;
      const owed = await tx(sql`
        SELECT DISTINCT ${SESSION_DAY} AS day FROM ${sessions}
        WHERE ${touched} AND created_at BETWEEN 0 AND ${LAST_COUNTED_SECOND}
        UNION SELECT to_char(date, 'YYYY-MM-DD') FROM ${metrics} WHERE NOT completed AND date < ${today}::date`);
      const days = owed.map((r) => String(r.day));
      if (days.length === 0) return [];
      const dayList = sql.join(
        days.map((day) => sql`${day}::date`),
        sql`, `,
      );
      // each day as a range of created_at, so the created_at index finds its sessions
      const onOwedDays = sql.join(
        days.map((day) => {
          const start = Date.parse(`${day}T00:00:00Z`) / 1000;
          return sql`(created_at >= ${start} AND created_at < ${start + 86_400})`;
        }),
        sql` OR `,
      );
      const owedSessions = sql`(SELECT session_id, session_type, COALESCE(user_id, '') AS owner, ${SESSION_DAY} AS day
        FROM ${sessions} WHERE ${onOwedDays})`;
      const tokenSums = sql.join(
        TOKEN_METRIC_KEYS.map((key) => sql`SUM(${runMetric(key)}) AS ${sql.raw(key)}`),
        sql`, `,
      );
      const groupRows = await tx(sql`
        SELECT s.day, s.owner, s.session_type, COUNT(DISTINCT s.session_id) AS sessions, COUNT(r.run_id) AS runs,
          ${tokenSums}, SUM(${runMetric("cost")}) AS cost
        FROM ${owedSessions} s LEFT JOIN ${runs} r ON r.session_id = s.session_id
        GROUP BY s.day, s.owner, s.session_type`);
      const modelRows = await tx(sql`
        SELECT s.day, s.owner, r.run_data->>'model' AS model, COALESCE(r.run_data->>'model_provider', '') AS provider,
          COUNT(*) AS n, SUM(${runMetric("cost")}) AS cost
        FROM ${owedSessions} s JOIN ${runs} r ON r.session_id = s.session_id
        WHERE jsonb_typeof(r.run_data->'model') = 'string' AND r.run_data->>'model' <> ''
        GROUP BY 1, 2, 3, 4`);
      const groups: SessionGroup[] = groupRows.map((g) => ({
        day: String(g.day),
        user_id: String(g.owner),
        session_type: String(g.session_type),
        sessions: num(g.sessions),
        runs: num(g.runs),
        tokens: Object.fromEntries(TOKEN_METRIC_KEYS.map((key) => [key, num(g[key] ?? 0)])),
        cost: num(g.cost ?? 0),
      }));
      const models: ModelGroup[] = modelRows.map((m) => ({
        day: String(m.day),
        user_id: String(m.owner),
        model_id: String(m.model),
        model_provider: String(m.provider),
        count: num(m.n),
        cost: num(m.cost ?? 0),
      }));
      const buckets = assembleBuckets(groups, models, now);
      // a recomputed day's rows are its new buckets only: an owner whose sessions are gone has none
      const keep = buckets.map((b) => sql`(${b.user_id}, ${b.date}::date)`);
      await tx(sql`DELETE FROM ${metrics} WHERE date IN (${dayList})
        ${keep.length > 0 ? sql`AND (user_id, date) NOT IN (${sql.join(keep, sql`, `)})` : sql``}`);
      if (buckets.length === 0) return [];
      const values = buckets.map(
        (b) =>
          sql`(${b.id}, ${b.user_id}, ${b.date}::date, 'daily', ${sql.join(
            COUNTS.map((key) => sql`${b[key]}`),
            sql`, `,
          )}, ${pgJson(b.token_metrics)}::jsonb, ${pgJson(b.model_metrics)}::jsonb, ${b.completed}, ${b.created_at}, ${b.updated_at})`,
      );
      const rows = await tx(sql`
        INSERT INTO ${metrics} (id, user_id, date, aggregation_period, ${sql.raw(COUNTS.join(", "))}, token_metrics, model_metrics, completed, created_at, updated_at)
        VALUES ${sql.join(values, sql`, `)}
        ON CONFLICT (user_id, date, aggregation_period) DO UPDATE SET
          ${sql.raw(COUNTS.map((key) => `${key} = EXCLUDED.${key}`).join(", "))},
          token_metrics = EXCLUDED.token_metrics, model_metrics = EXCLUDED.model_metrics,
          completed = EXCLUDED.completed, updated_at = EXCLUDED.updated_at
        RETURNING ${COLUMNS}`);
      return rows.map(toBucket).sort(bucketOrder);
    });
  }

  async list(query: MetricsQuery = {}): Promise<{ buckets: MetricsBucket[]; updatedAt: number | null }> {
    const owner = query.userId === undefined ? sql`TRUE` : sql`user_id = ${query.userId}`;
    const range: SQL[] = [owner];
    if (query.startingDate !== undefined) range.push(sql`date >= ${query.startingDate}::date`);
    if (query.endingDate !== undefined) range.push(sql`date <= ${query.endingDate}::date`);
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT ${COLUMNS} FROM ${this.d.metrics}
      WHERE ${sql.join(range, sql` AND `)} ORDER BY date, user_id COLLATE "C"`);
    if (rows.length === 0) return { buckets: [], updatedAt: null };
    // the latest update of the owner's buckets, whatever the range (as agno answers it)
    const [latest] = await this.d.exec(sql`SELECT MAX(updated_at) AS at FROM ${this.d.metrics} WHERE ${owner}`);
    return { buckets: rows.map(toBucket), updatedAt: num(latest!.at) };
  }
}

rethrowUnavailable(PostgresMetricsBuckets);
