import { sql } from "drizzle-orm";
import type { EnqueueRunInput, JobRecord } from "../../queue/types.js";
import { pendingRunOf } from "../enqueue-rules.js";
import {
  componentValues,
  earlierAndDepth,
  earlierJob,
  jobInsert,
  refusal,
  roomFor,
  type EnqueueDeps,
} from "./enqueue.js";
import { toJob } from "./jobs.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

/** What the one-statement enqueue did: a job, a repeat of a key, or "the session exists" (take the transaction path). */
export type NewSessionOutcome = { job: JobRecord; created: boolean } | "session_exists";

/**
 * An enqueue into a session the caller has just named (the server made up its id), as one
 * statement instead of a transaction of four round trips: the session, the job and its PENDING
 * run (run_index 0, as the session is new) are inserted together or not at all. The session's
 * insert carries the checks (no earlier job with the key, room in the queue) and the job's insert
 * depends on it, so a repeat or a full queue writes nothing. If the id is taken after all, nothing
 * is written and the caller takes the transaction path, which knows about existing sessions.
 */
export async function enqueueIntoNewSession(
  exec: Exec,
  input: EnqueueRunInput,
  deps: EnqueueDeps,
): Promise<NewSessionOutcome> {
  const ts = nowSeconds();
  const run = pendingRunOf(input, ts);
  const component = componentValues(input);
  const [row] = await exec(sql`
    WITH ${earlierAndDepth(input, deps)},
    s AS (
      INSERT INTO ${deps.sessions} (session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, created_at, updated_at)
      SELECT ${input.session_id}, ${component.type}, ${component.ids}, ${input.user_id},
        ${pgJson({ session_name: input.session_name, session_state: {} })}::jsonb, ${ts}, ${ts}
      WHERE ${roomFor(input)}
      ON CONFLICT (session_id) DO NOTHING
      RETURNING session_id),
    job AS (
      ${jobInsert(input, deps, ts, sql`s.session_id`)}
      FROM s
      ON CONFLICT DO NOTHING
      RETURNING ${deps.jobs.cols()}),
    run AS (
      INSERT INTO ${deps.runs} (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
      SELECT ${run.run_id}, ${run.session_id}, ${component.type}, ${component.ids}, ${input.user_id}, NULL, 'PENDING', 0,
        ${pgJson(run)}::jsonb, ${ts}, ${ts}
      FROM job RETURNING run_id)
    SELECT (SELECT row_to_json(job) FROM job) AS created, (SELECT row_to_json(earlier) FROM earlier) AS earlier,
      (SELECT n FROM depth) AS depth, (SELECT n FROM user_depth) AS user_depth, EXISTS (SELECT 1 FROM s) AS session_written`);
  if (row?.created) return { job: toJob(row.created as Record<string, unknown>), created: true };
  if (row?.session_written) {
    // A request with the same key committed its job between this statement's snapshot and its
    // insert: this one's session is empty and this request's own; it goes, and the repeat is answered.
    await exec(
      sql`DELETE FROM ${deps.sessions} WHERE session_id = ${input.session_id} AND NOT EXISTS (SELECT 1 FROM ${deps.runs} WHERE session_id = ${input.session_id})`,
    );
  }
  const earlier = await earlierJob(exec, row, input, deps);
  if (earlier) return { job: earlier, created: false };
  if (
    Number(row?.depth ?? 0) >= input.max_depth ||
    (input.max_user_depth !== undefined && Number(row?.user_depth ?? 0) >= input.max_user_depth)
  )
    throw refusal(input, row);
  return "session_exists";
}
