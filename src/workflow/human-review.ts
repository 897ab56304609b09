import { ValidationError } from "../errors.js";
import type { StepOutput, StepType } from "./step-output.js";

/**
 * What a rejected review does (agno's OnReject): skip the block, cancel the run, (a Condition)
 * run its else branch, or run it again (a reviewed output: with the reviewer's feedback; a
 * Loop: one more iteration; a Router: the person picks the route again).
 */
export type OnReject = "skip" | "cancel" | "else" | "retry";

/** What a step that fails does (agno's OnError): fail the run, go on without it, or pause for a person to retry or skip it. */
export type OnError = "fail" | "skip" | "pause";

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
  /** pause after the step (or Router) ran, with its output, for a person to approve, edit or reject (a function: only when it answers true for the output) */
  requiresOutputReview?: boolean | ((output: StepOutput) => boolean);
  outputReviewMessage?: string;
  /** a Loop pauses after each iteration but the last: approve ends the loop with its output, reject with onReject "retry" runs one more */
  requiresIterationReview?: boolean;
  iterationReviewMessage?: string;
  /** a Router with requiresUserInput: the person may pick more than one of its choices */
  allowMultipleSelections?: boolean;
  /** what a Step that fails (after its own retries), or a step inside a Condition, does; unset: as before (a Step fails the run, a Condition records it) */
  onError?: OnError;
  /** how many times a rejected review with onReject "retry" runs again before the run is cancelled (default 3) */
  maxRetries?: number;
}

const FIELD_TYPES = new Set(["str", "int", "float", "bool", "list", "dict"]);

/**
 * A person's review of a workflow block (agno 3.0's HumanReview): the run pauses (PAUSED, with a
 * step requirement) before the block runs, and `Workflow.continueRun` goes on with the decision.
 * Supported: confirmation (Step, Steps, Loop, Condition, Router), user input (Step; on a Router
 * the person picks the route), output review (Step, Router: the pause comes after it ran),
 * iteration review (Loop) and onError (Step, Condition), at any depth, inside a Parallel too, each
 * with an optional timeout that the cron tick enforces.
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
  readonly requiresOutputReview: boolean | ((output: StepOutput) => boolean);
  readonly outputReviewMessage: string | null;
  readonly requiresIterationReview: boolean;
  readonly iterationReviewMessage: string | null;
  readonly allowMultipleSelections: boolean;
  readonly onError?: OnError;
  readonly maxRetries: number;

  constructor(opts: HumanReviewOptions) {
    if (opts.onReject !== undefined && !["skip", "cancel", "else", "retry"].includes(opts.onReject))
      throw new ValidationError(
        'humanReview.onReject must be "skip", "cancel", "else" or "retry"',
        "humanReview.onReject",
      );
    if (opts.onError !== undefined && !["fail", "skip", "pause"].includes(opts.onError))
      throw new ValidationError('humanReview.onError must be "fail", "skip" or "pause"', "humanReview.onError");
    const review = opts.requiresOutputReview as unknown;
    if (review !== undefined && typeof review !== "boolean" && typeof review !== "function")
      throw new ValidationError(
        "humanReview.requiresOutputReview must be true, false or a function of the output",
        "humanReview.requiresOutputReview",
      );
    if (review && opts.requiresIterationReview)
      throw new ValidationError(
        "requiresOutputReview and requiresIterationReview cannot both be set (output review is for a Step or a Router, iteration review for a Loop)",
        "humanReview.requiresIterationReview",
      );
    const maxRetries = opts.maxRetries ?? 3;
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new ValidationError("humanReview.maxRetries must be a whole number >= 0", "humanReview.maxRetries");
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
    this.requiresOutputReview = opts.requiresOutputReview ?? false;
    this.outputReviewMessage = opts.outputReviewMessage ?? null;
    this.requiresIterationReview = opts.requiresIterationReview ?? false;
    this.iterationReviewMessage = opts.iterationReviewMessage ?? null;
    this.allowMultipleSelections = opts.allowMultipleSelections ?? false;
    this.onError = opts.onError;
    this.maxRetries = maxRetries;
  }

  /** Whether the block pauses before it runs. */
  get pauses(): boolean {
    return this.requiresConfirmation || this.requiresUserInput;
  }

  /** Whether `output` (the block just ran) pauses the run for a person to review it. */
  reviewsOutput(output: StepOutput): boolean {
    const review = this.requiresOutputReview;
    if (typeof review !== "function") return review;
    try {
      return review(output) === true;
    } catch {
      // As agno: a predicate that throws asks for no review.
      return false;
    }
  }

  /** Refuses what `stepType` cannot do (as agno's validate_human_review_for_*). */
  checkFor(stepType: StepType): void {
    if (this.requiresUserInput && stepType !== "Step" && stepType !== "Router")
      throw new ValidationError(`requiresUserInput is not supported on ${stepType}`, "humanReview.requiresUserInput");
    if (this.requiresOutputReview && stepType !== "Step" && stepType !== "Router")
      throw new ValidationError(
        `requiresOutputReview is not supported on ${stepType}`,
        "humanReview.requiresOutputReview",
      );
    if (this.requiresIterationReview && stepType !== "Loop")
      throw new ValidationError(
        `requiresIterationReview is not supported on ${stepType}`,
        "humanReview.requiresIterationReview",
      );
    if (this.allowMultipleSelections && stepType !== "Router")
      throw new ValidationError(
        `allowMultipleSelections is not supported on ${stepType}`,
        "humanReview.allowMultipleSelections",
      );
    if (this.onError !== undefined && stepType !== "Step" && stepType !== "Condition")
      throw new ValidationError(`onError is not supported on ${stepType} yet`, "humanReview.onError");
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
