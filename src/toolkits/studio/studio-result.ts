/**
 * agno's Studio error codes (StudioErrorCode): a code is a contract the model branches on, so new
 * ones are added rather than renamed.
 */
export type StudioErrorCode =
  | "component_not_found"
  | "component_conflict"
  | "version_conflict"
  | "version_not_found"
  | "component_archived"
  | "dependency_conflict"
  | "shared_component"
  | "not_owner"
  | "invalid_request"
  | "invalid_component_id"
  | "model_not_found"
  | "tool_not_found"
  | "validation_failed"
  | "internal_error";

/** A failure: a stable code, a safe message, safe details; `retryable` when re-reading and retrying can succeed. */
export interface StudioError {
  code: StudioErrorCode;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
}

/**
 * agno's StudioResult, the one envelope every StudioTools tool answers with: `ok` with `data`, or
 * not with `error`; `status` a short verb ("created", "published", …, "error"); `warnings`
 * non-fatal follow-ups. Absent sides are left out, as agno serializes with exclude_none.
 */
export type StudioResult =
  | { ok: true; status: string; data: Record<string, unknown>; warnings: string[] }
  | { ok: false; status: "error"; error: StudioError; warnings: string[] };

export function okResult(status: string, data: Record<string, unknown>, warnings: string[] = []): StudioResult {
  return { ok: true, status, data, warnings };
}

export function errorResult(
  code: StudioErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  opts: { retryable?: boolean; warnings?: string[] } = {},
): StudioResult {
  return {
    ok: false,
    status: "error",
    error: { code, message, details, retryable: opts.retryable ?? false },
    warnings: opts.warnings ?? [],
  };
}
