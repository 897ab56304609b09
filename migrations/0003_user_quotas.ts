/**
 * Per-user quotas and fair share on the durable queue (issue 15): one index on the jobs that are
 * waiting or running, by owner (no owner counts as one shared principal) and due time. An
 * enqueue counts its user's jobs with it, and the claim ranks each due job within its owner's
 * queue with it, so one user's backlog neither fills the queue nor starves everyone else.
 */
export const version = "3.0.2";

export const statements = [
  `CREATE INDEX IF NOT EXISTS {jobs_idx}_user_active ON {jobs} ((COALESCE(user_id, '')), available_at, created_at) WHERE status IN ('PENDING', 'RUNNING')`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["jobs"] as const;
