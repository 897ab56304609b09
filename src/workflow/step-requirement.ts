import { applyResolutions, requirementResolution, type RequirementResolution } from "../agent/hitl.js";
import type { RunRequirement } from "../agent/run-output.js";
import { ValidationError } from "../errors.js";
import type { HumanReview, OnReject, OnTimeout, UserInputField } from "./human-review.js";
import type { StepOutput, StepType } from "./step-output.js";

/** What a paused workflow waits for (agno's StepRequirement): a confirmation, input, a route, or a review of an output. */
export interface StepRequirement {
  step_id: string;
  step_name: string | null;
  /** its index in the list it is in */
  step_index: number;
  /** its full path of indexes from the workflow's steps down (agno pauses at the top level only) */
  step_path: number[];
  step_type: StepType;
  requires_confirmation: boolean;
  confirmation_message: string | null;
  /** null until a person decides */
  confirmed: boolean | null;
  on_reject: OnReject;
  requires_user_input: boolean;
  user_input_message: string | null;
  user_input_schema: UserInputField[] | null;
  user_input: Record<string, unknown> | null;
  /** when an unanswered review times out (ISO-8601, as agno's to_dict), null: never */
  timeout_at?: string | null;
  on_timeout?: OnTimeout;
  /** set once the deadline passed and `on_timeout` decided in a person's place */
  timed_out?: boolean;
  /** a step's agent paused for its tools (agno's executor HITL): its unresolved requirements, and its run */
  requires_executor_input?: boolean;
  executor_requirements?: RunRequirement[];
  executor_id?: string;
  executor_name?: string | null;
  executor_run_id?: string;
  executor_type?: string;
  executor_session_id?: string;
  /** a Router's: the person picks which of `available_choices` run */
  requires_route_selection: boolean;
  available_choices: string[] | null;
  allow_multiple_selections: boolean;
  selected_choices: string[] | null;
  /** a review after the block ran (a Step's or Router's output, a Loop's iteration): `step_output` is what is reviewed */
  requires_output_review: boolean;
  output_review_message: string | null;
  step_output: StepOutput | null;
  is_post_execution: boolean;
  /** the reviewer's word on a rejection, given to the step when it runs again */
  rejection_feedback: string | null;
  /** an approval with the reviewer's own version of the output's content */
  edited_output: unknown;
  /** how many times a rejected review ran the block again, and how many it may */
  retry_count: number;
  max_retries: number | null;
}

/** A person's decision on a requirement, as `continueRun` takes it. */
export interface StepRequirementResolution {
  step_id: string;
  confirmed?: boolean;
  user_input?: Record<string, unknown>;
  /** for a step whose agent paused: the agent's requirements resolved, `[{ id, confirmed, … }]` as Agent.continueRun takes them */
  executor_requirements?: RequirementResolution[];
  /** a route selection's answer: names among `available_choices` */
  selected_choices?: string[];
  /** with confirmed false: why (a retry hands it to the step) */
  rejection_feedback?: string;
  /** with confirmed true on an output review: the content to keep instead */
  edited_output?: unknown;
}

export function stepRequirement(
  review: HumanReview,
  block: { stepId: string; name: string | null; index: number; path: number[]; stepType: StepType },
): StepRequirement {
  return {
    step_id: block.stepId,
    step_name: block.name,
    step_index: block.index,
    step_path: block.path,
    step_type: block.stepType,
    requires_confirmation: review.requiresConfirmation,
    confirmation_message: review.confirmationMessage,
    confirmed: null,
    on_reject: review.rejectAction(block.stepType),
    requires_user_input: review.requiresUserInput,
    user_input_message: review.userInputMessage,
    user_input_schema: review.userInputSchema,
    user_input: null,
    timeout_at: review.timeout !== null ? new Date(Date.now() + review.timeout * 1000).toISOString() : null,
    on_timeout: review.onTimeout,
    requires_route_selection: false,
    available_choices: null,
    allow_multiple_selections: false,
    selected_choices: null,
    requires_output_review: false,
    output_review_message: null,
    step_output: null,
    is_post_execution: false,
    rejection_feedback: null,
    edited_output: null,
    retry_count: 0,
    max_retries: review.maxRetries,
  };
}

/**
 * Applies a person's decision to the pending requirement: a confirmation needs `confirmed`; input
 * needs every required field, of its type and among its allowed values (unless rejected).
 */
export function resolveRequirement(
  req: StepRequirement,
  resolution: StepRequirementResolution,
  approver: { isAdmin: boolean } = { isAdmin: false },
): void {
  if (resolution.step_id !== req.step_id)
    throw new ValidationError(
      `the run waits on step ${req.step_id}, not ${String(resolution.step_id)}`,
      "step_requirements",
    );
  if (req.requires_executor_input) return resolveExecutor(req, resolution, approver);
  if (req.requires_route_selection) return resolveSelection(req, resolution.selected_choices);
  if (req.requires_confirmation) {
    if (typeof resolution.confirmed !== "boolean")
      throw new ValidationError(`step ${req.step_name ?? req.step_id} needs confirmed: true or false`, "confirmed");
    req.confirmed = resolution.confirmed;
    if (!resolution.confirmed) {
      const feedback = resolution.rejection_feedback;
      if (feedback !== undefined && feedback !== null && typeof feedback !== "string")
        throw new ValidationError("rejection_feedback must be text", "rejection_feedback");
      req.rejection_feedback = feedback ?? null;
      return;
    }
    if (resolution.edited_output !== undefined && resolution.edited_output !== null) {
      if (!req.requires_output_review)
        throw new ValidationError(`step ${req.step_name ?? req.step_id} has no output to edit`, "edited_output");
      req.edited_output = resolution.edited_output;
    }
  }
  if (req.requires_user_input) {
    const input = resolution.user_input;
    if (typeof input !== "object" || input === null || Array.isArray(input))
      throw new ValidationError(`step ${req.step_name ?? req.step_id} needs user_input`, "user_input");
    for (const field of req.user_input_schema ?? []) checkField(field, input[field.name]);
    req.user_input = input;
    if (!req.requires_confirmation) req.confirmed = true;
  }
}

/** A step's paused agent: its requirements take the resolutions as Agent.continueRun checks them. */
function resolveExecutor(
  req: StepRequirement,
  resolution: StepRequirementResolution,
  approver: { isAdmin: boolean },
): void {
  const given = resolution.executor_requirements;
  if (!Array.isArray(given) || given.length === 0)
    throw new ValidationError(
      `step ${req.step_name ?? req.step_id} waits on its ${req.executor_type ?? "agent"}: send executor_requirements [{ id, confirmed | user_input | external_execution_result }]`,
      "executor_requirements",
    );
  const parsed = given.map((r, i) => {
    const ok = requirementResolution.safeParse(r);
    if (!ok.success)
      throw new ValidationError(
        `executor_requirements[${i}]: ${ok.error.issues[0]?.message}`,
        `executor_requirements.${i}`,
      );
    return ok.data;
  });
  req.executor_requirements = applyResolutions(req.executor_requirements ?? [], parsed, approver);
}

/** A route selection: at least one of the available choices, one only unless several are allowed. */
function resolveSelection(req: StepRequirement, selected: unknown): void {
  const choices = req.available_choices ?? [];
  if (!Array.isArray(selected) || selected.length === 0 || !selected.every((s) => typeof s === "string"))
    throw new ValidationError(
      `router ${req.step_name ?? req.step_id} needs selected_choices: a list of its choices' names`,
      "selected_choices",
    );
  const unknown = selected.find((s) => !choices.includes(s));
  if (unknown !== undefined)
    throw new ValidationError(`${unknown} is not one of ${JSON.stringify(choices)}`, "selected_choices");
  if (selected.length > 1 && !req.allow_multiple_selections)
    throw new ValidationError(`router ${req.step_name ?? req.step_id} takes one choice only`, "selected_choices");
  req.selected_choices = selected;
}

function checkField(field: UserInputField, value: unknown): void {
  const at = `user_input.${field.name}`;
  if (value === undefined || value === null) {
    if (field.required ?? true) throw new ValidationError(`${at} is required`, at);
    return;
  }
  const ok: Record<UserInputField["field_type"], boolean> = {
    str: typeof value === "string",
    int: Number.isInteger(value),
    float: typeof value === "number" && Number.isFinite(value),
    bool: typeof value === "boolean",
    list: Array.isArray(value),
    dict: typeof value === "object" && !Array.isArray(value),
  };
  if (!ok[field.field_type]) throw new ValidationError(`${at} must be of type ${field.field_type}`, at);
  if (field.allowed_values && !field.allowed_values.some((v) => JSON.stringify(v) === JSON.stringify(value)))
    throw new ValidationError(`${at} must be one of ${JSON.stringify(field.allowed_values)}`, at);
}
