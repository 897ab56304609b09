import { ownsRun } from "../agent/component.js";
import type { RunRow } from "../db/types.js";
import { ConflictError, NotConfiguredError, NotFoundError, StatusConflictError, ValidationError } from "../errors.js";
import type { TraceScope } from "../tracing/trace-scope.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { record, type RunDriver } from "./run-driver.js";
import type { ErrorRequirement } from "./error-requirement.js";
import { resolveRequirement, type StepRequirement, type StepRequirementResolution } from "./step-requirement.js";
import { workflowStateSaver } from "./workflow-session.js";

export interface WorkflowContinueOptions {
  /** the decision on the step the run waits on: `{ step_id, confirmed, user_input }` */
  stepRequirements: StepRequirementResolution[];
  /** the decision on a step that failed with onError "pause": `{ step_id, decision: "retry" | "skip" }` */
  errorRequirements?: Array<{ step_id: string; decision: "retry" | "skip" }>;
  /** the run must belong to this user */
  userId?: string;
  /** who resolves a step's agent's requirements: admin-only ones need `isAdmin` */
  approver?: { isAdmin: boolean };
  stream?: boolean;
  /** traces the continued run (its span, the steps still to run, the agents' runs inside them) */
  trace?: TraceScope;
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
  if (opts.errorRequirements !== undefined && !Array.isArray(opts.errorRequirements))
    throw new ValidationError("errorRequirements must be a list", "error_requirements");
  const paused = await loadPaused(driver, runId, opts.userId);
  if (paused.failed) {
    resolveError(paused.failed, opts.errorRequirements ?? []);
    return yield* goOn(driver, paused, opts.trace);
  }
  const active = paused.active;
  const resolution = (opts.stepRequirements as StepRequirementResolution[]).find((r) => r?.step_id === active.step_id);
  if (!timedOut(active, Date.now(), resolution)) {
    if (!resolution)
      throw new ValidationError(
        `the run waits on step ${active.step_id} (${active.step_name}): resolve it`,
        "step_requirements",
      );
    resolveRequirement(active, resolution, opts.approver);
  }
  return yield* goOn(driver, paused, opts.trace);
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
  if (paused.failed || !timedOut(paused.active, now)) return null;
  return yield* goOn(driver, paused);
}

interface Paused {
  row: RunRow;
  output: WorkflowRunOutput;
  /** the review the run waits on (the last step requirement) */
  active: StepRequirement;
  /** a step that failed with onError "pause": the run waits on this instead */
  failed?: ErrorRequirement;
  index: number;
}

async function loadPaused(driver: RunDriver, runId: string, userId?: string): Promise<Paused> {
  const db = driver.db;
  if (!db) throw new NotConfiguredError("continuing a workflow run needs the workflow to have a db");
  const row = await db.getRun(runId, userId !== undefined ? { userId } : {});
  if (!row || !ownsRun(driver.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
  if (row.status !== "PAUSED") throw new StatusConflictError(`run ${runId} is ${row.status}, not PAUSED`, row.status);
  const output = row.run_data as unknown as WorkflowRunOutput;
  const failed = output.error_requirements?.at(-1) ?? undefined;
  const active = output.step_requirements?.at(-1);
  const index = output.paused_step_index;
  const block = index !== null && index !== undefined ? driver.steps[index] : undefined;
  if (!(failed ?? active) || !block || (block.name ?? null) !== (output.paused_step_name ?? null))
    throw new ConflictError(`run ${runId} paused at a step this workflow no longer has at that place`);
  return { row, output, active: active!, ...(failed ? { failed } : {}), index: index! };
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
async function* goOn(
  driver: RunDriver,
  paused: Paused,
  trace?: TraceScope,
): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
  const db = driver.db!;
  const { output, active, failed, index } = paused;
  output.status = "RUNNING";
  const frames = output.paused_frames ?? [];
  output.paused_step_index = null;
  output.paused_step_name = null;
  output.paused_frames = null;
  output.pause_kind = null;
  output.error_requirements = null;
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
  const cancel = failed ? null : cancelReason(active);
  if (cancel) {
    const scope = driver.scope(output, new AbortController());
    return yield* driver.cancelled(output, scope, saveState, cancel);
  }
  return yield* driver.drive(
    output,
    saveState,
    undefined,
    { startIndex: index, point: { frames, requirement: failed ?? active } },
    false,
    trace,
  );
}

/** A failing step's decision: "retry" or "skip". */
function resolveError(req: ErrorRequirement, given: Array<{ step_id: string; decision: string }>): void {
  const resolution = given.find((r) => r?.step_id === req.step_id);
  if (!resolution)
    throw new ValidationError(
      `the run waits on failed step ${req.step_id} (${req.step_name}): resolve it with error_requirements`,
      "error_requirements",
    );
  if (resolution.decision !== "retry" && resolution.decision !== "skip")
    throw new ValidationError(`step ${req.step_name ?? req.step_id} needs decision: "retry" or "skip"`, "decision");
  req.decision = resolution.decision;
}

/** Why a decision ends the run (as agno): onReject (or onTimeout) "cancel", or a retry past its max_retries. */
function cancelReason(req: StepRequirement): string | null {
  if (req.confirmed !== false) return null;
  if (req.on_reject === "cancel")
    return `Workflow cancelled: Step '${req.step_name}' ${req.timed_out ? "timed out" : "was rejected"}`;
  if (req.on_reject === "retry" && req.max_retries && req.retry_count >= req.max_retries)
    return `Max retries (${req.max_retries}) reached for step '${req.step_name}'`;
  return null;
}
