/**
 * Per-user quotas on the durable queue (issue 15): one index on the jobs that are waiting or
 * running, by owner (no owner counts as one shared principal) and due time. Every enqueue counts
 * its user's jobs (the per-user cap) through it instead of reading every active job's row, and
 * the claim's ranking of due jobs by owner and due time can read it in that order.
 */
export const version = "3.0.2";

export const statements = [
  `CREATE INDEX IF NOT EXISTS {jobs_idx}_user_active ON {jobs} ((COALESCE(user_id, '')), available_at, created_at) WHERE status IN ('PENDING', 'RUNNING')`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["jobs"] as const;
