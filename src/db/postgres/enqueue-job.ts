import { sql } from "drizzle-orm";
import type { EnqueueJobInput, JobRecord } from "../../queue/types.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";
import { toJob, type JobTable } from "./jobs.js";
import type { Exec } from "./schema-state.js";
import { earlierAndDepth, earlierJob, refusal, roomFor, type EnqueueDeps } from "./enqueue.js";

/**
 * A job that runs no component (a knowledge ingestion), in one statement: inserted unless its
 * Idempotency-Key (per user) names an earlier job, which is returned instead, or the queue or
 * the user's share of it is full (QueueFullError / QuotaExceededError). No run, no session.
 */
export async function enqueueJob(
  exec: Exec,
  input: EnqueueJobInput,
  jobs: JobTable,
): Promise<{ job: JobRecord; created: boolean }> {
  const ts = nowSeconds();
  const deps = { jobs } as EnqueueDeps;
  const keyed = { ...input, request_hash: undefined } as never;
  const [row] = await exec(sql`
    WITH ${earlierAndDepth(keyed, deps)},
    job AS (
      INSERT INTO ${jobs.table} (id, component_type, job_type, component_id, session_id, user_id, payload, status, attempt, max_attempts,
        idempotency_key, request_hash, available_at, created_at, updated_at)
      SELECT ${input.id}, ${input.component_type}, ${input.job_type}, ${input.component_id}, NULL, ${input.user_id},
        ${pgJson(input.payload)}::jsonb, 'PENDING', 0, ${input.max_attempts}, ${input.idempotency_key ?? null}, NULL, ${ts}, ${ts}, ${ts}
      WHERE ${roomFor(keyed)}
      ON CONFLICT DO NOTHING
      RETURNING ${jobs.cols()})
    SELECT (SELECT row_to_json(job) FROM job) AS created, (SELECT row_to_json(earlier) FROM earlier) AS earlier,
      (SELECT n FROM depth) AS depth`);
  if (row?.created) return { job: toJob(row.created as Record<string, unknown>), created: true };
  const earlier = await earlierJob(exec, row, keyed, deps);
  if (earlier) return { job: earlier, created: false };
  throw refusal(keyed, row);
}
