import { ownsRun } from "../agent/component.js";
import type { RunRow } from "../db/types.js";
import { ConflictError, NotConfiguredError, NotFoundError, StatusConflictError, ValidationError } from "../errors.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { record, type RunDriver } from "./run-driver.js";
import { resolveRequirement, type StepRequirement, type StepRequirementResolution } from "./step-requirement.js";
import { workflowStateSaver } from "./workflow-session.js";

export interface WorkflowContinueOptions {
  /** the decision on the step the run waits on: `{ step_id, confirmed, user_input }` */
  stepRequirements: StepRequirementResolution[];
  /** the run must belong to this user */
  userId?: string;
  /** who resolves a step's agent's requirements: admin-only ones need `isAdmin` */
  approver?: { isAdmin: boolean };
  stream?: boolean;
}

/**
 * Resumes a run paused by a HumanReview, from any process (everything is read from storage):
 * the decision is checked against the requirement it waits on, the run goes back to RUNNING
 * (only one continue wins), and the steps go on from the paused one, down its path. Past the
 * review's deadline the person's decision no longer counts: its `on_timeout` applies, as agno's.
 */
export async function* continueWorkflowRun(
  driver: RunDriver,
  runId: string,
  opts: WorkflowContinueOptions,
): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
  if (!Array.isArray(opts.stepRequirements))
    throw new ValidationError("stepRequirements must be a list", "step_requirements");
  const paused = await loadPaused(driver, runId, opts.userId);
  const { active } = paused;
  const resolution = (opts.stepRequirements as StepRequirementResolution[]).find((r) => r?.step_id === active.step_id);
  if (!timedOut(active, Date.now(), resolution)) {
    if (!resolution)
      throw new ValidationError(
        `the run waits on step ${active.step_id} (${active.step_name}): resolve it`,
        "step_requirements",
      );
    resolveRequirement(active, resolution, opts.approver);
  }
  return yield* goOn(driver, paused);
}

/**
 * Resolves a paused run whose review's deadline passed with its `on_timeout`, with nobody
 * asking (the cron tick): cancel, skip the block, or go on as approved. Null when the run is
 * not (or no longer) such a run; a StatusConflictError when a person's continue won the race.
 */
export async function* timeOutWorkflowRun(
  driver: RunDriver,
  runId: string,
  now = Date.now(),
): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput | null> {
  let paused: Paused;
  try {
    paused = await loadPaused(driver, runId);
  } catch (error) {
    if (error instanceof StatusConflictError || error instanceof NotFoundError) return null;
    throw error;
  }
  if (!timedOut(paused.active, now)) return null;
  return yield* goOn(driver, paused);
}

interface Paused {
  row: RunRow;
  output: WorkflowRunOutput;
  active: StepRequirement;
  index: number;
}

async function loadPaused(driver: RunDriver, runId: string, userId?: string): Promise<Paused> {
  const db = driver.db;
  if (!db) throw new NotConfiguredError("continuing a workflow run needs the workflow to have a db");
  const row = await db.getRun(runId, userId !== undefined ? { userId } : {});
  if (!row || !ownsRun(driver.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
  if (row.status !== "PAUSED") throw new StatusConflictError(`run ${runId} is ${row.status}, not PAUSED`, row.status);
  const output = row.run_data as unknown as WorkflowRunOutput;
  const active = output.step_requirements?.at(-1);
  const index = output.paused_step_index;
  const block = index !== null && index !== undefined ? driver.steps[index] : undefined;
  if (!active || !block || (block.name ?? null) !== (output.paused_step_name ?? null))
    throw new ConflictError(`run ${runId} paused at a step this workflow no longer has at that place`);
  return { row, output, active, index: index! };
}

/**
 * Whether `req`'s deadline passed at `now`; if so its `on_timeout` is applied to it (agno's
 * check_timeout): approve confirms (with the late input, when it is valid), skip and cancel reject.
 */
function timedOut(req: StepRequirement, now: number, late?: StepRequirementResolution): boolean {
  if (!req.timeout_at || now < Date.parse(req.timeout_at)) return false;
  const action = req.on_timeout ?? "cancel";
  if (action === "approve") {
    if (req.requires_user_input && late?.user_input) resolveRequirement(req, { ...late, confirmed: true });
    req.confirmed = true;
  } else {
    req.confirmed = false;
    req.on_reject = action;
  }
  req.timed_out = true;
  return true;
}

/** The decided run goes back to RUNNING (only one resolver wins) and on from the paused step. */
async function* goOn(driver: RunDriver, paused: Paused): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
  const db = driver.db!;
  const { output, active, index } = paused;
  output.status = "RUNNING";
  const frames = output.paused_frames ?? [];
  output.paused_step_index = null;
  output.paused_step_name = null;
  output.paused_frames = null;
  output.pause_kind = null;
  // Only one continue goes on: the others (a person, the tick) find the run no longer PAUSED.
  await db.upsertRun(record(output), { expectStatus: ["PAUSED"] });
  const session = await db.getSession(output.session_id, { includeRuns: false });
  const state = {
    ...((session?.record.session_data?.session_state as Record<string, unknown> | undefined) ??
      output.session_state ??
      {}),
  };
  output.session_state = state;
  const saveState = workflowStateSaver(db, output.session_id, state);
  if (active.confirmed === false && active.on_reject === "cancel") {
    const scope = driver.scope(output, new AbortController());
    const why = active.timed_out ? "timed out" : "was rejected";
    return yield* driver.cancelled(output, scope, saveState, `Workflow cancelled: Step '${active.step_name}' ${why}`);
  }
  return yield* driver.drive(output, saveState, undefined, {
    startIndex: index,
    point: { frames, requirement: active },
  });
}
