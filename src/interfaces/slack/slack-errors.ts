import { AgnoError } from "../../errors.js";

/** A request that does not carry Slack's valid, fresh signature: it did not come from Slack (or was replayed or altered). */
export class SlackSignatureError extends AgnoError {
  override readonly status = 401;
  override readonly errorId = "unauthorized";
}

/** A request body larger than any Slack sends to these routes. */
export class SlackBodyTooLargeError extends AgnoError {
  override readonly status = 413;
  override readonly errorId = "payload_too_large";
}

/**
 * A Web API call Slack refused or could not answer. `retryAfterSeconds` is set from a 429's
 * Retry-After; the message names the method and Slack's error code, never the token.
 */
export class SlackApiError extends Error {
  override readonly name = "SlackApiError";
  constructor(
    readonly method: string,
    readonly code: string,
    readonly httpStatus: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(`Slack ${method} failed: ${code} (HTTP ${httpStatus})`);
  }
}
