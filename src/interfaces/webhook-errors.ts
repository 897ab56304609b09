import { AgnoError } from "../errors.js";

/**
 * A webhook request that does not prove it came from the platform (a missing or wrong
 * signature or secret token, a stale timestamp, a body altered after signing). 401 on every
 * platform (agno answers 403): the request lacks valid credentials, it is not a known caller
 * without the right.
 */
export class WebhookAuthError extends AgnoError {
  override readonly status = 401;
  override readonly errorId = "unauthorized";
}

/** A webhook body larger than any the platform sends to that route. */
export class WebhookTooLargeError extends AgnoError {
  override readonly status = 413;
  override readonly errorId = "payload_too_large";
}
