import { AgnoError } from "./errors.js";
import { ModelProviderError } from "./models/provider-error.js";

/** What a client may see of a failure, whichever way it travels (HTTP body, SSE RunError, WebSocket frame, a job's error, a run's stored error). */
export interface PublicError {
  /** our own words for an AgnoError; for anything else a generic line naming `ref` */
  message: string;
  errorId: string;
  /** the HTTP status the failure answers with */
  status: number;
  /** the AgnoError's class name, or "InternalError" */
  type: string;
  /** what kind of model provider failure it was (rate_limit, auth, …) */
  kind?: string;
  /** set when the details were kept back: the id they were logged under */
  ref?: string;
}

// A provider's message can quote its response (a validation error prints the JSON it could not read).
const MAX_PROVIDER_MESSAGE = 500;

// The same error reaching two paths (an engine that records it, then a transport) is logged once, under one ref.
const mapped = new WeakMap<object, PublicError>();

/**
 * Turns anything thrown into what a client may see. AgnoErrors carry messages we wrote, so they
 * pass; anything else (a driver error quoting its SQL and parameters, a TypeError, a stack) is
 * logged here once with a reference and answered as "internal error (ref …)", so an operator can
 * find the details and a client never sees the statement, its parameters or the run's content.
 *
 * @example
 * const shown = publicError(err, "run r1"); // { message: "internal error (ref 3f9c…)", errorId: "internal_error", status: 500, … }
 */
export function publicError(error: unknown, where?: string): PublicError {
  const known = typeof error === "object" && error !== null ? mapped.get(error) : undefined;
  if (known) return known;
  const shown = toPublic(error, where);
  if (typeof error === "object" && error !== null) mapped.set(error, shown);
  return shown;
}

function toPublic(error: unknown, where: string | undefined): PublicError {
  if (error instanceof ModelProviderError) {
    const message =
      error.message.length > MAX_PROVIDER_MESSAGE ? `${error.message.slice(0, MAX_PROVIDER_MESSAGE)}…` : error.message;
    return { message, errorId: error.errorId, status: error.status, type: error.name, kind: error.kind };
  }
  if (error instanceof AgnoError)
    return { message: error.message, errorId: error.errorId, status: error.status, type: error.name };
  const ref = crypto.randomUUID().replace(/-/g, "").slice(0, 16);
  console.error(`internal error ref ${ref}${where ? ` (${where})` : ""}:`, error);
  return { message: `internal error (ref ${ref})`, errorId: "internal_error", status: 500, type: "InternalError", ref };
}
