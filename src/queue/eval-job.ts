import type { Component, ComponentSource } from "../agent/component.js";
import { findComponent } from "../agent/component.js";
import type { Db } from "../db/port.js";
import { AgnoError, ConflictError } from "../errors.js";
import { evalComponentRef, type EvalRunInput } from "../evals/eval-run-input.js";
import type { EvalTarget } from "../evals/eval-target.js";
import { evalComponents, prepareEval, runPreparedEval } from "../evals/run-eval-input.js";
import { publicError } from "../public-error.js";
import type { Outcome } from "./executor.js";
import { jobInput, type JobLimits } from "./job-input.js";
import type { EnqueueJobInput, JobRecord } from "./types.js";

/** The `job_type` of an eval run on the durable queue (`POST /eval-runs?background=true`, an eval schedule). */
export const EVAL_JOB_TYPE = "eval_run";

/** What an eval job carries (JSON): the eval run's id (the job's own id too) and the validated EvalRunInput. */
export interface EvalJobPayload {
  eval_run_id: string;
  input: EvalRunInput;
}

/**
 * The job that runs `input` as its owner's eval. The job's id is the eval run's id, so the run is
 * found by either, and a job delivered twice stores one run. `idempotencyKey` (default: the id)
 * makes a repeated enqueue (a schedule's duplicate tick) return the first job.
 */
export function evalJobInput(
  input: EvalRunInput,
  opts: JobLimits & { idempotencyKey?: string; evalRunId?: string },
): EnqueueJobInput {
  const id = opts.evalRunId ?? crypto.randomUUID();
  const ref = evalComponentRef(input);
  const payload: EvalJobPayload = { eval_run_id: id, input };
  return { ...jobInput(EVAL_JOB_TYPE, ref, payload, opts.idempotencyKey ?? `eval:${id}`, opts), id };
}

/** The served agents and teams among `components`, as an eval finds them. */
function servedTargets(components: ComponentSource | readonly Component[]) {
  return evalComponents((ref) =>
    ref.type === "agent" || ref.type === "team"
      ? (findComponent(components, ref) as EvalTarget | undefined)
      : undefined,
  );
}

/**
 * Runs an eval job in the queue's database as the job's user: the row is stored under the job's
 * id, once. A run already stored (a repeat of a delivered job) completes the job at once. A judge
 * that gave no verdict at all (the judge or the component failing every iteration) fails the
 * attempt and leaves no row, so a retry starts clean; input that no longer holds (the component is
 * no longer served) fails it for good.
 */
export async function executeEvalJob(
  job: JobRecord,
  components: ComponentSource | readonly Component[],
  db: Db,
): Promise<Outcome> {
  const { eval_run_id: runId, input } = job.payload as unknown as EvalJobPayload;
  if (await db.evals.get(runId)) return { status: "COMPLETED" };
  try {
    const prepared = prepareEval(input, servedTargets(components), db);
    const outcome = await runPreparedEval(prepared, { db, userId: job.user_id ?? undefined, runId });
    if (outcome.verdicts === 0) {
      await db.evals.delete([runId]);
      return {
        status: "FAILED",
        error: `eval run ${runId}: the judge gave no verdict (${outcome.failures.join("; ")})`,
        retryable: true,
      };
    }
    return { status: "COMPLETED" };
  } catch (error) {
    // Another delivery of the job stored the run meanwhile: it is done.
    if (error instanceof ConflictError && (await db.evals.get(runId))) return { status: "COMPLETED" };
    const bad = error instanceof AgnoError && error.status >= 400 && error.status < 500;
    return {
      status: "FAILED",
      error: `eval run ${runId}: ${publicError(error, `job ${job.id}`).message}`,
      retryable: !bad,
    };
  }
}
