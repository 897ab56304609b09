import { AgnoError } from "../errors.js";

/** An eval could not judge: its judge answered out of shape, or it was given nothing to evaluate (agno's EvalError). */
export class EvalError extends AgnoError {
  override readonly errorId: string = "eval_error";
}
