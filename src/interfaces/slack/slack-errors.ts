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
