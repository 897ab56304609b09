import { ownsRun } from "../agent/component.js";
import { ConflictError, NotConfiguredError, NotFoundError, StatusConflictError, ValidationError } from "../errors.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { WorkflowRunOutput } from "./run-output.js";
import { record, type RunDriver } from "./run-driver.js";
import { resolveRequirement, type StepRequirementResolution } from "./step-requirement.js";
import { workflowStateSaver } from "./workflow-session.js";

export interface WorkflowContinueOptions {
  /** the decision on the step the run waits on: `{ step_id, confirmed, user_input }` */
  stepRequirements: StepRequirementResolution[];
  /** the run must belong to this user */
  userId?: string;
  stream?: boolean;
}

/**
 * Resumes a run paused by a HumanReview, from any process (everything is read from storage):
 * the decision is checked against the requirement it waits on, the run goes back to RUNNING
 * (only one continue wins), and the steps go on from the paused one, down its path.
 */
export async function* continueWorkflowRun(
  driver: RunDriver,
  runId: string,
  opts: WorkflowContinueOptions,
): AsyncGenerator<WorkflowStreamEvent, WorkflowRunOutput> {
  const db = driver.db;
  if (!db) throw new NotConfiguredError("continuing a workflow run needs the workflow to have a db");
  if (!Array.isArray(opts.stepRequirements))
    throw new ValidationError("stepRequirements must be a list", "step_requirements");
  const row = await db.getRun(runId, opts.userId !== undefined ? { userId: opts.userId } : {});
  if (!row || !ownsRun(driver.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
  if (row.status !== "PAUSED") throw new StatusConflictError(`run ${runId} is ${row.status}, not PAUSED`, row.status);
  const output = row.run_data as unknown as WorkflowRunOutput;
  const active = output.step_requirements?.at(-1);
  const index = output.paused_step_index;
  const block = index !== null && index !== undefined ? driver.steps[index] : undefined;
  if (!active || !block || (block.name ?? null) !== (output.paused_step_name ?? null))
    throw new ConflictError(`run ${runId} paused at a step this workflow no longer has at that place`);
  const resolution = (opts.stepRequirements as StepRequirementResolution[]).find((r) => r?.step_id === active.step_id);
  if (!resolution)
    throw new ValidationError(
      `the run waits on step ${active.step_id} (${active.step_name}): resolve it`,
      "step_requirements",
    );
  resolveRequirement(active, resolution);
  output.status = "RUNNING";
  const frames = output.paused_frames ?? [];
  output.paused_step_index = null;
  output.paused_step_name = null;
  output.paused_frames = null;
  output.pause_kind = null;
  // Only one continue goes on: the others find the run no longer PAUSED.
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
    return yield* driver.cancelled(
      output,
      scope,
      saveState,
      `Workflow cancelled: Step '${active.step_name}' was rejected`,
    );
  }
  return yield* driver.drive(output, saveState, undefined, {
    startIndex: index!,
    point: { frames, requirement: active },
  });
}
