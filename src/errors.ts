/**
 * One typed error hierarchy for the whole platform. Every error carries the HTTP status and the
 * snake_case `error_id` that AgentOS answers with (`{detail, error_id}`), so the HTTP layer maps
 * errors without knowing each class.
 *
 * @example
 * try { await db.getRuns({ page: 2 }) } catch (e) { if (e instanceof ValidationError) console.log(e.field) }
 */
export class AgnoError extends Error {
  readonly status: number = 500;
  readonly errorId: string = "internal_error";
  /** set by errors a client may retry after a while (a full queue, a database out of reach): sent as Retry-After */
  readonly retryAfterSeconds?: number;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: the field it names has the wrong type, size or value. */
export class ValidationError extends AgnoError {
  override readonly status = 422;
  override readonly errorId = "validation_error";
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The request asks for something this endpoint cannot do as asked. */
export class BadRequestError extends AgnoError {
  override readonly status = 400;
  override readonly errorId: string = "bad_request";
}

/** The id does not exist, or belongs to someone the caller may not see. */
export class NotFoundError extends AgnoError {
  override readonly status = 404;
  override readonly errorId = "not_found";
}

/** The write conflicts with what is stored (an id owned by another session, a stale version). */
export class ConflictError extends AgnoError {
  override readonly status = 409;
  override readonly errorId: string = "conflict";
}

/** A destructive operation was asked for without the explicit confirmation it needs. */
export class ConfirmationRequiredError extends AgnoError {
  override readonly status = 400;
  override readonly errorId = "confirmation_required";
}

/** The database holds an older layout than this code needs; `MigrationManager.up()` fixes it. */
export class MigrationRequiredError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "migration_required_error";
}

/** The database holds a layout this code does not understand (newer, or altered by hand). */
export class SchemaMismatchError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "schema_mismatch_error";
}

/** A capability was asked for that this deployment has not configured (a database, a queue). */
export class NotConfiguredError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "not_configured";
}

/** The caller is known but may not do this (a requirement only an admin may resolve). */
export class ForbiddenError extends AgnoError {
  override readonly status = 403;
  override readonly errorId = "forbidden";
}

/** A compare-and-set write found the row in another state than expected. */
export class StatusConflictError extends ConflictError {
  constructor(
    message: string,
    readonly actual: string | null,
  ) {
    super(message);
  }
}

/** The background queue holds as many jobs as it may: try again after `retryAfterSeconds`. */
export class QueueFullError extends AgnoError {
  override readonly status = 429;
  override readonly errorId: string = "queue_full";
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * A pre-hook (a guardrail) refuses the run's input. Its message is shown to the client, as every
 * AgnoError's is; any other error a hook throws is reported as an internal error with a ref.
 * `checkTrigger` is agno's CheckTrigger value and becomes the `error_id`.
 *
 * @example
 * preHooks: [({ input }) => { if (/password/i.test(input)) throw new InputCheckError("secrets are not allowed", "pii_detected") }]
 */
export class InputCheckError extends AgnoError {
  override readonly status = 400;
  override readonly errorId: string;
  constructor(
    message: string,
    readonly checkTrigger: string = "input_not_allowed",
  ) {
    super(message);
    this.errorId = checkTrigger;
  }
}

/**
 * One user (or the shared principal of callers without one) holds as many schedules, waiting or
 * running jobs, or open WebSockets as one may: 429 with Retry-After; `quota` names the cap. Others are not refused.
 */
export class QuotaExceededError extends QueueFullError {
  override readonly errorId: string = "quota_exceeded";
  constructor(
    message: string,
    readonly quota: "jobs" | "schedules" | "websockets",
    retryAfterSeconds: number,
  ) {
    super(message, retryAfterSeconds);
  }
}

/**
 * The database cannot be reached, refused or dropped the connection, or did not answer within the
 * configured timeouts: nothing is wrong with the request, so try again after `retryAfterSeconds`.
 */
export class DatabaseUnavailableError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "database_unavailable";
  constructor(
    message: string,
    override readonly retryAfterSeconds = 5,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Stored bytes are not what their reference recorded (altered or replaced behind the runtime's
 * back). The message names only the key and the bucket, so a client may see it.
 */
export class StorageIntegrityError extends AgnoError {
  override readonly status = 500;
  override readonly errorId = "storage_integrity_error";
}

/** What was thrown, as an Error (a thrown string or object becomes one with its text). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** What was thrown, as text for a log line or an answer: an Error's message, anything else as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A tool source (a remote MCP server) could not supply a run's tools: unreachable, refused the
 * credentials, or listed tools that clash with the agent's. The message names the source only by
 * its host and path, never its headers.
 */
export class ToolSourceError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "tool_source_error";
}

/**
 * A component write named a version that is no longer the stored one (agno's
 * ComponentVersionConflictError, `version_conflict` as its StudioTools calls it): the caller
 * re-reads and retries. `current` is the stored version the guard was checked against.
 */
export class ComponentVersionConflictError extends ConflictError {
  override readonly errorId = "version_conflict";
  constructor(
    message: string,
    readonly current: number | null,
  ) {
    super(message);
  }
}

/** The component is archived: its id is reserved and its rows immutable until it is restored (agno's ComponentArchivedError). */
export class ComponentArchivedError extends ConflictError {
  override readonly errorId = "component_archived";
}

/** The write would break another component's link to this one, or leave a component without a visible config (agno's dependency conflicts). */
export class ComponentDependencyError extends ConflictError {
  override readonly errorId = "dependency_conflict";
}

/** The operation applies only to drafts; this version is published and immutable (agno's ComponentDraftRequiredError). */
export class ComponentDraftRequiredError extends BadRequestError {
  override readonly errorId = "invalid_request";
}
