import { sql, type SQL } from "drizzle-orm";
import { NotFoundError, QueueFullError, ValidationError } from "../../errors.js";
import type { EnqueueRunInput, JobRecord } from "../../queue/types.js";
import type { RunRecord, RunRow } from "../types.js";
import type { JobTable } from "./jobs.js";
import type { Exec } from "./schema-state.js";

export interface EnqueueDeps {
  jobs: JobTable;
  sessions: SQL;
  /** serialises enqueuers of one jobs table */
  lockKey: string;
  /** the adapter's run writer, bound to the transaction */
  writeRun: (run: RunRecord) => Promise<RunRow>;
}

/**
 * Inside one transaction: the job, its PENDING run and, if new, its session, or nothing (an
 * idempotent repeat returns the first job; a full queue or another user's session writes nothing).
 */
export async function enqueueRunIn(tx: Exec, input: EnqueueRunInput, deps: EnqueueDeps): Promise<{ job: JobRecord; created: boolean }> {
  // One enqueuer at a time: the depth check and the idempotency lookup hold until commit.
  await tx(sql`SELECT pg_advisory_xact_lock(hashtext(${deps.lockKey}))`);
  if (input.idempotency_key) {
    const existing = await deps.jobs.byIdempotencyKey(tx, input.user_id, input.idempotency_key);
    if (existing) {
      if (existing.request_hash !== (input.request_hash ?? null)) throw new ValidationError("this Idempotency-Key was used with a different request", "Idempotency-Key");
      return { job: existing, created: false };
    }
  }
  const depth = await deps.jobs.depth(tx);
  if (depth >= input.max_depth) throw new QueueFullError(`the background queue is full (${depth} jobs waiting or running)`, 5);
  const ts = Math.floor(Date.now() / 1000);
  const [owner] = await tx(sql`SELECT user_id FROM ${deps.sessions} WHERE session_id = ${input.session_id}`);
  if (owner && ((owner.user_id as string | null) ?? null) !== input.user_id) throw new NotFoundError(`session ${input.session_id} not found`);
  if (!owner) {
    await tx(sql`INSERT INTO ${deps.sessions} (session_id, session_type, agent_id, user_id, session_data, created_at, updated_at)
      VALUES (${input.session_id}, 'agent', ${input.component_id}, ${input.user_id},
        ${JSON.stringify({ session_name: input.session_name, session_state: {} })}::jsonb, ${ts}, ${ts})`);
  }
  await deps.writeRun({
    run_id: input.payload.run_id,
    session_id: input.session_id,
    agent_id: input.component_id,
    user_id: input.user_id,
    status: "PENDING",
    input: { input_content: input.payload.message },
    ...(input.payload.metadata ? { metadata: input.payload.metadata } : {}),
    created_at: ts,
  });
  const job = await deps.jobs.insert(tx, {
    id: crypto.randomUUID(),
    component_type: input.component_type,
    job_type: "run",
    component_id: input.component_id,
    session_id: input.session_id,
    user_id: input.user_id,
    payload: input.payload,
    status: "PENDING",
    max_attempts: input.max_attempts,
    idempotency_key: input.idempotency_key ?? null,
    request_hash: input.request_hash ?? null,
    available_at: ts,
    created_at: ts,
  });
  return { job, created: true };
}
