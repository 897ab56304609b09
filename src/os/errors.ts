import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AgnoError } from "../errors.js";
import { publicError } from "../public-error.js";

export interface ErrorBody {
  detail: string;
  error_id: string;
  error_type: string;
}

/**
 * The one JSON error shape AgentOS answers with, agno's (`_error_body` in its `os/app.py`):
 * `detail`, and the error's `error_id` with its `error_type` beside it, as agno sends the two
 * together. agno's types mostly repeat the id, so the id stands in when no type is given.
 */
export function errorResponse(
  c: Context,
  status: number,
  detail: string,
  errorId: string,
  errorType?: string,
): Response {
  const body: ErrorBody = { detail, error_id: errorId, error_type: errorType ?? errorId };
  return c.json(body, status as ContentfulStatusCode);
}

/**
 * Maps anything thrown by a route to a JSON answer. Typed errors carry their own status; an
 * unknown error is a 500 whose detail is a reference to the log entry holding it (publicError).
 */
export function onError(err: Error, c: Context): Response {
  if (err instanceof AgnoError && err.retryAfterSeconds !== undefined)
    c.header("retry-after", String(err.retryAfterSeconds));
  if (err instanceof HTTPException) {
    const status = err.status;
    // Hono's body validators: a body that does not parse is bad input like any other.
    if (status === 400 && /^Malformed JSON/.test(err.message))
      return errorResponse(c, 422, "request body is not valid JSON", "validation_error");
    if (status === 400 && /^Malformed FormData/.test(err.message))
      return errorResponse(c, 422, "request body is not a valid form", "validation_error");
    if (status === 415) {
      return errorResponse(
        c,
        415,
        `unsupported content-type ${c.req.header("content-type") ?? "(none)"}: send application/json (run routes also take forms)`,
        "unsupported_media_type",
      );
    }
    const errorId =
      status === 413
        ? "payload_too_large"
        : status === 401
          ? "unauthorized"
          : status === 403
            ? "forbidden"
            : "http_error";
    return errorResponse(c, status, err.message || "request failed", errorId);
  }
  const shown = publicError(err, `${c.req.method} ${new URL(c.req.url).pathname}`);
  return errorResponse(c, shown.status, shown.message, shown.errorId);
}

export function notFound(c: Context): Response {
  return errorResponse(c, 404, `no route for ${c.req.method} ${new URL(c.req.url).pathname}`, "not_found");
}
