import { ValidationError } from "../errors.js";
import type { StepType } from "./step-output.js";

/** What a rejected review does (agno's OnReject): skip the block, cancel the run, or (a Condition) run its else branch. */
export type OnReject = "skip" | "cancel" | "else";

/** What a review left unanswered past its `timeout` does (agno's OnTimeout): cancel the run, skip the block, or go on as confirmed. */
export type OnTimeout = "cancel" | "skip" | "approve";

/** A field a person fills in when a step asks for input (agno's UserInputField). */
export interface UserInputField {
  name: string;
  field_type: "str" | "int" | "float" | "bool" | "list" | "dict";
  description?: string | null;
  /** default true */
  required?: boolean;
  allowed_values?: unknown[] | null;
}

export interface HumanReviewOptions {
  /** pause before the block runs until a person confirms or rejects it */
  requiresConfirmation?: boolean;
  confirmationMessage?: string;
  /** pause before the step runs until a person fills in `userInputSchema` (Step only) */
  requiresUserInput?: boolean;
  userInputMessage?: string;
  userInputSchema?: UserInputField[];
  /** what a rejection does (default "skip"; a Condition's default is "else") */
  onReject?: OnReject;
  /** seconds a person has to answer; past it, `onTimeout` applies (on a late continue, or by the cron tick) */
  timeout?: number;
  /** what an unanswered review does past its timeout (default "cancel") */
  onTimeout?: OnTimeout;
  /** agno 3.0 fields this runtime does not do yet: setting one is refused, never ignored */
  requiresOutputReview?: boolean;
  outputReviewMessage?: string;
  requiresIterationReview?: boolean;
  iterationReviewMessage?: string;
  allowMultipleSelections?: boolean;
  onError?: string;
  maxRetries?: number;
}

const NOT_YET = [
  "requiresOutputReview",
  "requiresIterationReview",
  "allowMultipleSelections",
  "onError",
  "maxRetries",
] as const;
const FIELD_TYPES = new Set(["str", "int", "float", "bool", "list", "dict"]);

/**
 * A person's review of a workflow block (agno 3.0's HumanReview): the run pauses (PAUSED, with a
 * step requirement) before the block runs, and `Workflow.continueRun` goes on with the decision.
 * Supported: confirmation (on Step, Steps, Loop, Condition, Router) and user input (on Step), at
 * any depth but inside a Parallel; the rest of agno's fields are refused with a ValidationError.
 */
export class HumanReview {
  readonly requiresConfirmation: boolean;
  readonly confirmationMessage: string | null;
  readonly requiresUserInput: boolean;
  readonly userInputMessage: string | null;
  readonly userInputSchema: UserInputField[] | null;
  readonly onReject?: OnReject;
  readonly timeout: number | null;
  readonly onTimeout: OnTimeout;

  constructor(opts: HumanReviewOptions) {
    for (const field of NOT_YET)
      if (opts[field] !== undefined && opts[field] !== false)
        throw new ValidationError(`humanReview.${field} is not supported yet`, `humanReview.${field}`);
    if (opts.onReject !== undefined && !["skip", "cancel", "else"].includes(opts.onReject))
      throw new ValidationError('humanReview.onReject must be "skip", "cancel" or "else"', "humanReview.onReject");
    for (const [i, f] of (opts.userInputSchema ?? []).entries())
      if (typeof f?.name !== "string" || !FIELD_TYPES.has(f.field_type))
        throw new ValidationError(
          `humanReview.userInputSchema[${i}] needs a name and a field_type (str, int, float, bool, list, dict)`,
          `humanReview.userInputSchema.${i}`,
        );
    checkTimeout(opts);
    this.requiresConfirmation = opts.requiresConfirmation ?? false;
    this.confirmationMessage = opts.confirmationMessage ?? null;
    this.requiresUserInput = opts.requiresUserInput ?? false;
    this.userInputMessage = opts.userInputMessage ?? null;
    this.userInputSchema = opts.userInputSchema ?? null;
    this.onReject = opts.onReject;
    this.timeout = opts.timeout ?? null;
    this.onTimeout = opts.onTimeout ?? "cancel";
  }

  /** Whether the block pauses before it runs. */
  get pauses(): boolean {
    return this.requiresConfirmation || this.requiresUserInput;
  }

  /** Refuses what `stepType` cannot do (as agno's validate_human_review_for_*). */
  checkFor(stepType: StepType): void {
    if (this.requiresUserInput && stepType !== "Step")
      throw new ValidationError(`requiresUserInput is not supported on ${stepType}`, "humanReview.requiresUserInput");
    if (this.onReject === "else" && stepType !== "Condition")
      throw new ValidationError('onReject "else" is for a Condition only', "humanReview.onReject");
  }

  /** What a rejection does on a block of `stepType`. */
  rejectAction(stepType: StepType): OnReject {
    return this.onReject ?? (stepType === "Condition" ? "else" : "skip");
  }
}

function checkTimeout(opts: HumanReviewOptions): void {
  if (opts.timeout !== undefined && !(typeof opts.timeout === "number" && opts.timeout > 0 && opts.timeout < 2 ** 31))
    throw new ValidationError("humanReview.timeout must be a number of seconds > 0", "humanReview.timeout");
  if (opts.onTimeout !== undefined && !["cancel", "skip", "approve"].includes(opts.onTimeout))
    throw new ValidationError('humanReview.onTimeout must be "cancel", "skip" or "approve"', "humanReview.onTimeout");
  // Approving on a person's behalf cannot make up the input they were to give.
  if (
    opts.onTimeout === "approve" &&
    opts.requiresUserInput &&
    (opts.userInputSchema ?? []).some((f) => f?.required ?? true)
  )
    throw new ValidationError(
      'humanReview.onTimeout "approve" cannot fill required user input: make the fields optional, or skip or cancel',
      "humanReview.onTimeout",
    );
}
