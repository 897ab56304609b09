import { sql, type SQL } from "drizzle-orm";
import { NotFoundError, type QueueFullError } from "../../errors.js";
import type { EnqueueRunInput, JobRecord } from "../../queue/types.js";
import { jobComponentColumns, keyReused, pendingRunOf, queueFull, userQueueFull } from "../enqueue-rules.js";
import { toJob, type JobTable } from "./jobs.js";
import { LEGACY_RUN_COUNT } from "./run-writer.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

export interface EnqueueDeps {
  jobs: JobTable;
  sessions: SQL;
  runs: SQL;
  /** the database still holds agno 2.x run blobs: run_index counts them too */
  legacy: boolean;
}

/** Thrown inside the transaction to roll back a repeat's session write; carries the first job. */
class Repeat extends Error {
  constructor(readonly job: JobRecord) {
    super("idempotent repeat");
  }
}

/**
 * The job, its PENDING run and, if new, its session, in one transaction of two statements and
 * no lock beyond the session's row, so enqueuers of different sessions never wait on each other
 * (a global lock capped a deployment at one enqueue per transaction, whatever Workers scale to).
 * Idempotency comes from the unique index on (user, key); the depth limit is checked in the same
 * statement as the insert, so concurrent enqueues may overshoot it by at most their number.
 * A repeat, a full queue or another user's session writes nothing.
 */
export async function enqueueRun(
  transaction: <T>(fn: (tx: Exec) => Promise<T>) => Promise<T>,
  input: EnqueueRunInput,
  deps: EnqueueDeps,
): Promise<{ job: JobRecord; created: boolean }> {
  try {
    return await transaction(async (tx) => ({ job: await enqueueIn(tx, input, deps), created: true }));
  } catch (error) {
    if (error instanceof Repeat) return { job: error.job, created: false };
    throw error;
  }
}

/**
 * `earlier` (the job an Idempotency-Key already names), `depth` (jobs waiting or running) and
 * `user_depth` (those of the input's user, counted only when it has a cap), as CTEs.
 */
export function earlierAndDepth(input: EnqueueRunInput, deps: EnqueueDeps): SQL {
  const key = input.idempotency_key ?? null;
  return sql`earlier AS (
      SELECT ${deps.jobs.cols()} FROM ${deps.jobs.table}
      WHERE ${key === null ? sql`false` : sql`COALESCE(user_id, '') = ${input.user_id ?? ""} AND idempotency_key = ${key}`}),
    depth AS (SELECT COUNT(*) AS n FROM ${deps.jobs.table} WHERE status IN ('PENDING', 'RUNNING')),
    user_depth AS (${input.max_user_depth === undefined ? sql`SELECT 0 AS n` : sql`SELECT COUNT(*) AS n FROM ${deps.jobs.table} WHERE status IN ('PENDING', 'RUNNING') AND COALESCE(user_id, '') = ${input.user_id ?? ""}`})`;
}

/** The checks `earlierAndDepth` makes room for: no earlier job of the key, room in the queue and in the user's share. */
export function roomFor(input: EnqueueRunInput): SQL {
  const user =
    input.max_user_depth === undefined ? sql`` : sql` AND (SELECT n FROM user_depth) < ${input.max_user_depth}`;
  return sql`NOT EXISTS (SELECT 1 FROM earlier) AND (SELECT n FROM depth) < ${input.max_depth}${user}`;
}

/** Why an enqueue that inserted nothing and repeats no key was refused: the queue is full, or its user's share is. */
export function refusal(input: EnqueueRunInput, row: Record<string, unknown> | undefined): QueueFullError {
  if (Number(row?.depth ?? 0) >= input.max_depth || input.max_user_depth === undefined) return queueFull(row?.depth);
  return userQueueFull(input.user_id, input.max_user_depth);
}

/**
 * The job's INSERT … SELECT with `sessionId` as its session; the caller adds FROM or WHERE. The
 * job's id is its run's id, as agno's is, so the run id a client holds names the job too.
 */
export function jobInsert(input: EnqueueRunInput, deps: EnqueueDeps, ts: number, sessionId: SQL): SQL {
  return sql`INSERT INTO ${deps.jobs.table} (id, component_type, job_type, component_id, session_id, user_id, payload, status, attempt, max_attempts,
        idempotency_key, request_hash, available_at, created_at, updated_at)
      SELECT ${input.payload.run_id}, ${input.component_type}, 'run', ${input.component_id}, ${sessionId}, ${input.user_id},
        ${pgJson(input.payload)}::jsonb, 'PENDING', 0, ${input.max_attempts}, ${input.idempotency_key ?? null}, ${input.request_hash ?? null}, ${ts}, ${ts}, ${ts}`;
}

/**
 * The component columns of a queued run's rows, as SQL: `type` for `run_type` and `session_type`,
 * then agent_id, team_id, workflow_id (the job's component in its type's column, the others NULL).
 */
export function componentValues(input: EnqueueRunInput): { type: SQL; ids: SQL } {
  const c = jobComponentColumns(input);
  return { type: sql`${c.type}`, ids: sql`${c.agent_id}, ${c.team_id}, ${c.workflow_id}` };
}

async function enqueueIn(tx: Exec, input: EnqueueRunInput, deps: EnqueueDeps): Promise<JobRecord> {
  const ts = nowSeconds();
  // Creates the session or, if it is this user's, bumps it: that locks its row, so runs written
  // into it one after another each see the last one's run_index. Another owner: no row back.
  const run = pendingRunOf(input, ts);
  const component = componentValues(input);
  const [session] = await tx(sql`
    INSERT INTO ${deps.sessions} AS s (session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, created_at, updated_at)
    VALUES (${input.session_id}, ${component.type}, ${component.ids}, ${input.user_id},
      ${pgJson({ session_name: input.session_name, session_state: {} })}::jsonb, ${ts}, ${ts})
    ON CONFLICT (session_id) DO UPDATE SET updated_at = EXCLUDED.updated_at WHERE s.user_id IS NOT DISTINCT FROM EXCLUDED.user_id
    RETURNING ${deps.legacy ? LEGACY_RUN_COUNT : sql`0`} AS legacy_count`);
  if (!session) throw new NotFoundError(`session ${input.session_id} not found`);
  const [row] = await tx(sql`
    WITH ${earlierAndDepth(input, deps)},
    job AS (
      ${jobInsert(input, deps, ts, sql`${input.session_id}`)}
      WHERE ${roomFor(input)}
      ON CONFLICT DO NOTHING
      RETURNING ${deps.jobs.cols()}),
    run AS (
      INSERT INTO ${deps.runs} (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
      SELECT ${run.run_id}, ${run.session_id}, ${component.type}, ${component.ids}, ${input.user_id}, NULL, 'PENDING',
        (SELECT GREATEST(COALESCE(MAX(run_index) + 1, 0), ${Number(session.legacy_count)}) FROM ${deps.runs} WHERE session_id = ${run.session_id}),
        ${pgJson(run)}::jsonb, ${ts}, ${ts}
      FROM job RETURNING run_id)
    SELECT (SELECT row_to_json(job) FROM job) AS created, (SELECT row_to_json(earlier) FROM earlier) AS earlier,
      (SELECT n FROM depth) AS depth`);
  if (row?.created) return toJob(row.created as Record<string, unknown>);
  // Nothing inserted: the key was used before, or the queue (or the user's share of it) is full.
  const earlier = await earlierJob(tx, row, input, deps);
  if (earlier) throw new Repeat(earlier);
  throw refusal(input, row);
}

/**
 * For an enqueue statement that inserted no job (`row` holds its `earlier` CTE): the first job of
 * its Idempotency-Key, seen by the statement or committed by a racing request meanwhile, when
 * this is the same request (another body is a 422); null when the key names no job.
 */
export async function earlierJob(
  exec: Exec,
  row: Record<string, unknown> | undefined,
  input: EnqueueRunInput,
  deps: EnqueueDeps,
): Promise<JobRecord | null> {
  const key = input.idempotency_key ?? null;
  const earlier = row?.earlier
    ? toJob(row.earlier as Record<string, unknown>)
    : key
      ? await deps.jobs.byIdempotencyKey(exec, input.user_id, key)
      : null;
  if (earlier && earlier.request_hash !== (input.request_hash ?? null)) throw keyReused();
  return earlier;
}
