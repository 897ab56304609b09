import { AgnoError } from "../errors.js";

/** A toolkit's upstream service failed, answered an error or did not answer in time; the model reads the message. */
export class UpstreamError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "upstream_failed";
}
