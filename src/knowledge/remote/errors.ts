import { AgnoError } from "../../errors.js";

/** The URL is not one this server fetches: not http(s), credentials in it, or a private, loopback, link-local or metadata address. */
export class UnsafeUrlError extends AgnoError {
  override readonly status = 400;
  override readonly errorId = "unsafe_url";
}

/** The remote content is larger than the cap (from its Content-Length, or once the cap is read). */
export class RemoteContentTooLargeError extends AgnoError {
  override readonly status = 413;
  override readonly errorId = "payload_too_large";
}

/** The remote server answered with an error, too many redirects, or not within the timeout. */
export class RemoteFetchError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "remote_fetch_failed";
}
