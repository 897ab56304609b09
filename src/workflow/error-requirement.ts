/**
 * What a run paused by a failing step (onError "pause") waits for (agno's ErrorRequirement):
 * a person's `decision` to run the step again ("retry") or go on without it ("skip").
 */
export interface ErrorRequirement {
  step_id: string;
  step_name: string | null;
  step_index: number;
  /** its full path of indexes from the workflow's steps down (as a StepRequirement's) */
  step_path: number[];
  error_message: string;
  error_type: string | null;
  retry_count: number;
  /** null until a person decides */
  decision: "retry" | "skip" | null;
}

/** Whether a pause's requirement is a failing step's (it has a `decision`), not a review's. */
export function isErrorRequirement(req: object): req is ErrorRequirement {
  return "decision" in req && "error_message" in req;
}
