import { AgnoError } from "../../errors.js";

/** A webhook delivery whose signature is missing or wrong: it did not come from Meta, or was altered on the way. */
export class WebhookSignatureError extends AgnoError {
  override readonly status = 401;
  override readonly errorId = "unauthorized";
}

/** A webhook delivery larger than the interface reads. */
export class WebhookTooLargeError extends AgnoError {
  override readonly status = 413;
  override readonly errorId = "payload_too_large";
}
