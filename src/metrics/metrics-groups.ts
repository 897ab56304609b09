import type { TokenMetricKey } from "../db/ports/metrics-store.js";

/**
 * One owner's sessions of one type created on one day, with their runs' counts and summed
 * tokens: what both adapters compute from the sessions and runs tables (Postgres in SQL, memory
 * by `groupSessions`) before `assembleBuckets` turns them into buckets.
 */
export interface SessionGroup {
  day: string;
  /** `''` for sessions without a user */
  user_id: string;
  session_type: string;
  sessions: number;
  runs: number;
  tokens: Partial<Record<TokenMetricKey, number>>;
  cost: number;
}

/** How many runs of one owner's sessions of one day used one model. */
export interface ModelGroup {
  day: string;
  user_id: string;
  model_id: string;
  model_provider: string;
  count: number;
  cost: number;
}
