import { UpstreamError } from "../upstream-error.js";

/**
 * MiniMax refused (`base_resp.status_code` other than 0, often under HTTP 200), or what it gave
 * cannot be used (a video over the size cap): `retryable` says whether trying again may help.
 */
export class MiniMaxApiError extends UpstreamError {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}
