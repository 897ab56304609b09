import { TOKEN_METRIC_KEYS } from "../db/ports/metrics-store.js";
import { countedTime, metricsDay } from "./metrics-day.js";
import type { ModelGroup, SessionGroup } from "./metrics-groups.js";

/** What grouping reads of a session row. */
export interface MetricsSessionRow {
  session_id: string;
  session_type: string;
  user_id?: string | null;
  created_at?: number;
}

/** What grouping reads of a run row. */
export interface MetricsRunRow {
  session_id: string;
  run_data: Record<string, unknown>;
}

const numberAt = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/**
 * The sessions created on `days` and their runs, grouped per day, owner and session type (and
 * per model): the memory adapter's counterpart of the Postgres adapter's GROUP BY, with the same
 * reading of a run's `metrics`, `model` and `model_provider`.
 */
export function groupSessions(
  sessions: Iterable<MetricsSessionRow>,
  runs: Iterable<MetricsRunRow>,
  days: ReadonlySet<string>,
): { groups: SessionGroup[]; models: ModelGroup[] } {
  const wanted = new Map<string, { day: string; user_id: string; session_type: string }>();
  const groups = new Map<string, SessionGroup>();
  for (const s of sessions) {
    if (!countedTime(s.created_at ?? 0)) continue;
    const day = metricsDay(s.created_at ?? 0);
    if (!days.has(day)) continue;
    const owner = { day, user_id: s.user_id ?? "", session_type: s.session_type };
    wanted.set(s.session_id, owner);
    const key = `${day}\u0000${owner.user_id}\u0000${owner.session_type}`;
    const group = groups.get(key) ?? { ...owner, sessions: 0, runs: 0, tokens: {}, cost: 0 };
    group.sessions += 1;
    groups.set(key, group);
  }
  const models = new Map<string, ModelGroup>();
  for (const r of runs) {
    const owner = wanted.get(r.session_id);
    if (!owner) continue;
    const group = groups.get(`${owner.day}\u0000${owner.user_id}\u0000${owner.session_type}`)!;
    group.runs += 1;
    const metrics = (r.run_data.metrics ?? {}) as Record<string, unknown>;
    for (const key of TOKEN_METRIC_KEYS) group.tokens[key] = (group.tokens[key] ?? 0) + numberAt(metrics[key]);
    const cost = numberAt(metrics.cost);
    group.cost += cost;
    const model = r.run_data.model;
    if (typeof model !== "string" || model === "") continue;
    const provider = typeof r.run_data.model_provider === "string" ? r.run_data.model_provider : "";
    const key = `${owner.day}\u0000${owner.user_id}\u0000${model}\u0000${provider}`;
    const entry = models.get(key) ?? {
      day: owner.day,
      user_id: owner.user_id,
      model_id: model,
      model_provider: provider,
      count: 0,
      cost: 0,
    };
    entry.count += 1;
    entry.cost += cost;
    models.set(key, entry);
  }
  return { groups: [...groups.values()], models: [...models.values()] };
}
