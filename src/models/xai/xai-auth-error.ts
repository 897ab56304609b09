import { AgnoError } from "../../errors.js";

/** SuperGrok sign-in failed or is missing (agno's ModelAuthenticationError for xAI): the user must sign in (again). */
export class XaiAuthError extends AgnoError {
  override readonly status = 400;
  override readonly errorId = "model_authentication_error";

  constructor(
    message: string,
    readonly reason?: "no_token" | "invalid_grant",
  ) {
    super(message);
  }
}
