import { sql } from "drizzle-orm";
import { asError, NotFoundError } from "../../errors.js";
import type { EnqueueOutcome, EnqueueRunInput } from "../../queue/types.js";
import { idList } from "./id-list.js";
import { jobComponentColumns, keyReused, pendingRunOf, queueFull, userQueueFull } from "../enqueue-rules.js";
import type { EnqueueDeps } from "./enqueue.js";
import { toJob } from "./jobs.js";
import { LEGACY_RUN_COUNT } from "./run-writer.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";

/**
 * Many enqueues in one transaction of a few statements, whatever their number (the scheduler
 * dispatches thousands in one cron tick): one upsert of their sessions, one insert of their jobs
 * and runs, and, only when some were not inserted, one read of the keys they repeat and one
 * delete of the sessions made for nothing. Each input succeeds or fails on its own, with the same
 * outcomes `enqueueRun` gives one (a repeat returns the first job; another owner's session, a
 * reused key with another body, a full queue or a user at their cap is an error that writes
 * nothing for it). A user's inputs are taken in order up to their cap, so one user's many inputs
 * (a tick of their schedules) fill their share only, and the rest of the batch is not refused for them.
 */
export async function enqueueRuns(
  transaction: <T>(fn: (tx: Exec) => Promise<T>) => Promise<T>,
  inputs: EnqueueRunInput[],
  deps: EnqueueDeps,
): Promise<EnqueueOutcome[]> {
  if (inputs.length === 0) return [];
  return transaction((tx) => enqueueIn(tx, inputs, deps));
}

async function enqueueIn(tx: Exec, inputs: EnqueueRunInput[], deps: EnqueueDeps): Promise<EnqueueOutcome[]> {
  const ts = nowSeconds();
  const out: Array<EnqueueOutcome | undefined> = new Array(inputs.length);
  // One upsert row per session (a statement may not touch a row twice); the first input's user
  // claims a new session, and the upsert keeps only sessions owned by that user. Sorted, so
  // concurrent batches lock sessions in one order.
  const firstOf = new Map<string, EnqueueRunInput>();
  for (const input of inputs) if (!firstOf.has(input.session_id)) firstOf.set(input.session_id, input);
  const sessions = [...firstOf.values()]
    .sort((a, b) => (a.session_id < b.session_id ? -1 : 1))
    .map((i) => {
      const { type, agent_id, team_id, workflow_id } = jobComponentColumns(i);
      return {
        session_id: i.session_id,
        type,
        agent_id,
        team_id,
        workflow_id,
        user_id: i.user_id,
        session_name: i.session_name,
      };
    });
  const kept = await tx(sql`
    INSERT INTO ${deps.sessions} AS s (session_id, session_type, agent_id, team_id, workflow_id, user_id, session_data, created_at, updated_at)
    SELECT x.session_id, x.type, x.agent_id, x.team_id, x.workflow_id, x.user_id,
      jsonb_build_object('session_name', x.session_name, 'session_state', '{}'::jsonb), ${ts}, ${ts}
    FROM jsonb_to_recordset(${pgJson(sessions)}::jsonb)
      AS x(session_id varchar, type varchar, agent_id varchar, team_id varchar, workflow_id varchar, user_id varchar, session_name varchar)
    ON CONFLICT (session_id) DO UPDATE SET updated_at = EXCLUDED.updated_at WHERE s.user_id IS NOT DISTINCT FROM EXCLUDED.user_id
    RETURNING s.session_id, s.user_id, (xmax = 0) AS inserted,
      ${deps.legacy ? LEGACY_RUN_COUNT : sql`0`} AS legacy_count`);
  const owned = new Map(
    kept.map((r) => [
      String(r.session_id),
      { user: (r.user_id as string | null) ?? null, inserted: r.inserted === true, legacy: Number(r.legacy_count) },
    ]),
  );

  const rows: Record<string, unknown>[] = [];
  inputs.forEach((input, ord) => {
    const session = owned.get(input.session_id);
    if (!session || session.user !== input.user_id) {
      out[ord] = { error: new NotFoundError(`session ${input.session_id} not found`) };
      return;
    }
    let run;
    try {
      run = pendingRunOf(input, ts);
    } catch (error) {
      out[ord] = { error: asError(error) };
      return;
    }
    rows.push({
      ord,
      // The run's id, as a single enqueue's (jobInsert).
      id: input.payload.run_id,
      component_type: input.component_type,
      component_id: input.component_id,
      session_id: input.session_id,
      user_id: input.user_id,
      payload: input.payload,
      max_attempts: input.max_attempts,
      idempotency_key: input.idempotency_key ?? null,
      request_hash: input.request_hash ?? null,
      max_depth: input.max_depth,
      max_user_depth: input.max_user_depth ?? null,
      run_id: run.run_id,
      ...jobComponentColumns(input),
      run_data: run,
      legacy: session.legacy,
    });
  });

  const created =
    rows.length === 0
      ? []
      : await tx(sql`
    WITH x AS (
      SELECT * FROM jsonb_to_recordset(${pgJson(rows)}::jsonb) AS x(ord int, id varchar, component_type varchar, component_id varchar,
        session_id varchar, user_id varchar, payload jsonb, max_attempts int, idempotency_key varchar, request_hash varchar, max_depth int,
        max_user_depth int, run_id varchar, type varchar, agent_id varchar, team_id varchar, workflow_id varchar, run_data jsonb, legacy bigint)),
    depth AS (SELECT COUNT(*) AS n FROM ${deps.jobs.table} WHERE status IN ('PENDING', 'RUNNING')),
    user_depth AS (
      SELECT COALESCE(user_id, '') AS u, COUNT(*) AS n FROM ${deps.jobs.table}
      WHERE status IN ('PENDING', 'RUNNING') AND COALESCE(user_id, '') IN (SELECT COALESCE(x.user_id, '') FROM x WHERE x.max_user_depth IS NOT NULL)
      GROUP BY 1),
    unkeyed AS (
      SELECT x.*, ROW_NUMBER() OVER (PARTITION BY COALESCE(x.user_id, '') ORDER BY x.ord) AS upos FROM x
      WHERE x.idempotency_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM ${deps.jobs.table} j WHERE COALESCE(j.user_id, '') = COALESCE(x.user_id, '') AND j.idempotency_key = x.idempotency_key)),
    -- Within their user's cap; only these take places in the queue.
    fresh AS (
      SELECT k.*, ROW_NUMBER() OVER (ORDER BY k.ord) AS pos FROM unkeyed k
      WHERE k.max_user_depth IS NULL OR COALESCE((SELECT n FROM user_depth WHERE u = COALESCE(k.user_id, '')), 0) + k.upos <= k.max_user_depth),
    job AS (
      INSERT INTO ${deps.jobs.table} (id, component_type, job_type, component_id, session_id, user_id, payload, status, attempt, max_attempts,
        idempotency_key, request_hash, available_at, created_at, updated_at)
      SELECT f.id, f.component_type, 'run', f.component_id, f.session_id, f.user_id, f.payload, 'PENDING', 0, f.max_attempts,
        f.idempotency_key, f.request_hash, ${ts}, ${ts}, ${ts}
      FROM fresh f WHERE (SELECT n FROM depth) + f.pos <= f.max_depth
      ORDER BY f.ord
      ON CONFLICT DO NOTHING
      RETURNING ${deps.jobs.cols()}),
    run AS (
      INSERT INTO ${deps.runs} (run_id, session_id, run_type, agent_id, team_id, workflow_id, user_id, parent_run_id, status, run_index, run_data, created_at, updated_at)
      SELECT f.run_id, f.session_id, f.type, f.agent_id, f.team_id, f.workflow_id, f.user_id, NULL, 'PENDING',
        GREATEST(COALESCE((SELECT MAX(r.run_index) + 1 FROM ${deps.runs} r WHERE r.session_id = f.session_id), 0), f.legacy)
          + ROW_NUMBER() OVER (PARTITION BY f.session_id ORDER BY f.ord) - 1,
        f.run_data, ${ts}, ${ts}
      FROM fresh f JOIN job ON job.id = f.id
      RETURNING run_id)
    SELECT x.ord, CASE WHEN job.id IS NULL THEN NULL ELSE row_to_json(job) END AS job, (SELECT n FROM depth) AS depth,
      (x.id IN (SELECT u.id FROM unkeyed u) AND x.id NOT IN (SELECT f.id FROM fresh f)) AS over_user_cap
    FROM x LEFT JOIN job ON job.id = x.id`);

  const missed: Array<{ ord: number; depth: number; overUserCap: boolean }> = [];
  for (const row of created) {
    const ord = Number(row.ord);
    if (row.job) out[ord] = { job: toJob(row.job as Record<string, unknown>), created: true };
    else missed.push({ ord, depth: Number(row.depth), overUserCap: row.over_user_cap === true });
  }
  if (missed.length > 0) await settleMissed(tx, inputs, missed, out, deps);
  // Sessions this batch made for inputs that got no job go again: a repeat or a refusal writes nothing.
  const used = new Set(
    inputs
      .filter((_, ord) => (out[ord] as { created?: boolean } | undefined)?.created)
      .map((input) => input.session_id),
  );
  const orphans = [...owned].filter(([id, s]) => s.inserted && !used.has(id)).map(([id]) => id);
  if (orphans.length > 0) await tx(sql`DELETE FROM ${deps.sessions} WHERE session_id IN (${idList(orphans)})`);
  return out.map((o) => o ?? { error: new Error("not enqueued") });
}

/** Inputs that inserted nothing: repeats of a key (same body: the first job; another: 422), else a user at their cap or a full queue. */
async function settleMissed(
  tx: Exec,
  inputs: EnqueueRunInput[],
  missed: Array<{ ord: number; depth: number; overUserCap: boolean }>,
  out: Array<EnqueueOutcome | undefined>,
  deps: EnqueueDeps,
) {
  const keyed = missed.filter((m) => inputs[m.ord]!.idempotency_key);
  const earlier =
    keyed.length === 0
      ? []
      : await tx(sql`
    SELECT ${deps.jobs.cols()} FROM ${deps.jobs.table}
    WHERE (COALESCE(user_id, ''), idempotency_key) IN (${sql.join(
      keyed.map((m) => sql`(${inputs[m.ord]!.user_id ?? ""}, ${inputs[m.ord]!.idempotency_key!})`),
      sql`, `,
    )})`);
  const byKey = new Map(
    earlier.map((row) => {
      const job = toJob(row);
      return [`${job.user_id ?? ""}\u0000${job.idempotency_key}`, job];
    }),
  );
  for (const { ord, depth, overUserCap } of missed) {
    const input = inputs[ord]!;
    const job = input.idempotency_key ? byKey.get(`${input.user_id ?? ""}\u0000${input.idempotency_key}`) : undefined;
    if (!job)
      out[ord] = {
        error:
          overUserCap && input.max_user_depth !== undefined
            ? userQueueFull(input.user_id, input.max_user_depth)
            : queueFull(depth),
      };
    else if (job.request_hash !== (input.request_hash ?? null)) out[ord] = { error: keyReused() };
    else out[ord] = { job, created: false };
  }
}
