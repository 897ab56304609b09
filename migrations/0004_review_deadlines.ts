/**
 * Review deadlines (HumanReview.timeout): a partial index on the PAUSED runs by their pending
 * review's `timeout_at` (the last step requirement's, in `run_data`), so the cron tick finds the
 * runs whose deadline passed by reading the index, not every paused run's JSON. agno keeps the
 * deadline in the run's JSON only, and so does this: the layout of the rows is unchanged.
 */
export const version = "3.0.3";

export const statements = [
  `CREATE INDEX IF NOT EXISTS {runs_idx}_review_deadline ON {runs} (((run_data->'step_requirements'->-1->>'timeout_at'))) WHERE status = 'PAUSED'`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["runs"] as const;
