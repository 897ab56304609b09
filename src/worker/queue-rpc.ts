import {
  AgnoError,
  BadRequestError,
  ConflictError,
  DatabaseUnavailableError,
  MigrationRequiredError,
  NotConfiguredError,
  NotFoundError,
  QueueFullError,
  QuotaExceededError,
  SchemaMismatchError,
  ValidationError,
  errorMessage,
} from "../errors.js";
import type { EnqueueRunInput, JobRecord } from "../queue/types.js";

/**
 * An enqueue's answer as it crosses the RPC boundary from the JobQueue object to the Worker:
 * thrown errors would arrive as plain Errors, so a refusal travels as data and is rebuilt as the
 * same typed error (same status, same `error_id`, same Retry-After) on the Worker's side.
 */
export type EnqueueReply =
  | { ok: true; job: JobRecord; created: boolean }
  | {
      ok: false;
      error: {
        name: string;
        message: string;
        field?: string;
        retryAfterSeconds?: number;
        quota?: QuotaExceededError["quota"];
      };
    };

type Refusal = Extract<EnqueueReply, { ok: false }>["error"];

export function replyOf(outcome: { job: JobRecord; created: boolean } | { error: unknown }): EnqueueReply {
  if ("job" in outcome) return { ok: true, job: outcome.job, created: outcome.created };
  const e = outcome.error;
  if (!(e instanceof AgnoError)) return { ok: false, error: { name: "Error", message: errorMessage(e) } };
  return {
    ok: false,
    error: {
      name: e.name,
      message: e.message,
      ...(e instanceof ValidationError && e.field ? { field: e.field } : {}),
      ...(e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
      ...(e instanceof QuotaExceededError ? { quota: e.quota } : {}),
    },
  };
}

/** How each typed error an enqueue may refuse with is rebuilt, by class name (as `replyOf` sends it). */
const REFUSALS = new Map<string, (e: Refusal) => Error>([
  [ValidationError.name, (e) => new ValidationError(e.message, e.field)],
  [QueueFullError.name, (e) => new QueueFullError(e.message, e.retryAfterSeconds ?? 5)],
  [QuotaExceededError.name, (e) => new QuotaExceededError(e.message, e.quota ?? "jobs", e.retryAfterSeconds ?? 5)],
  [DatabaseUnavailableError.name, (e) => new DatabaseUnavailableError(e.message, e.retryAfterSeconds)],
  ...[
    NotFoundError,
    ConflictError,
    BadRequestError,
    MigrationRequiredError,
    SchemaMismatchError,
    NotConfiguredError,
  ].map((Kind) => [Kind.name, (e: Refusal) => new Kind(e.message)] as const),
]);

/** The error an enqueue refused with, as the Worker throws it (an unknown kind stays a 500). */
function errorOf(error: Refusal): Error {
  return REFUSALS.get(error.name)?.(error) ?? new Error(error.message);
}

/** The Worker's side: enqueue through the queue object, as `JobStore.enqueueRun` would. */
export async function enqueueVia(
  stub: { enqueue(input: EnqueueRunInput): Promise<EnqueueReply> },
  input: EnqueueRunInput,
) {
  const reply = await stub.enqueue(input);
  if (!reply.ok) throw errorOf(reply.error);
  return { job: reply.job, created: reply.created };
}
