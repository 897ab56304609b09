import { DrizzleQueryError } from "drizzle-orm/errors";
import { AgnoError, DatabaseUnavailableError } from "../../errors.js";

/**
 * SQLSTATEs that say the server cannot serve this connection now, whatever the statement:
 * connection exceptions (08…), shutdown or not yet accepting connections (57P01-57P03), too many
 * connections (53300). Every other server error is about the statement and stays what it is.
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[123]$|53300$)/;

/** Node's socket errors (the driver in Node, the local proxy's answers) that mean the server is out of reach. */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** The driver's own messages (pg inside @neondatabase/serverless, and its WebSocket transport), whole, for each way a connection fails. */
const DRIVER_MESSAGES: Array<[RegExp, string]> = [
  [
    /^(timeout expired|timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/,
    "did not accept a connection in time",
  ],
  [/^Query read timeout$/, "did not answer in time"],
  [
    /^(Connection terminated( unexpectedly)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/,
    "dropped the connection",
  ],
  [/^All attempts to open a WebSocket to connect to the database failed/, "could not be reached"],
];

/**
 * The one place that tells "the database cannot be reached, refused, reset or did not answer in
 * time" from a genuine SQL error: the former becomes a DatabaseUnavailableError (503 with
 * Retry-After), the latter is returned as it is. Walks the cause chain, because drizzle wraps
 * every driver error in a DrizzleQueryError whose own message is the statement (never read here).
 */
export function asUnavailable(error: unknown): unknown {
  let e: unknown = error;
  for (let depth = 0; e !== null && e !== undefined && depth < 5; depth++, e = (e as { cause?: unknown }).cause) {
    if (e instanceof DatabaseUnavailableError) return e;
    // Our own errors are already typed (and their messages may quote ids a client sent).
    if (e instanceof AgnoError) return error;
    if (e instanceof DrizzleQueryError) continue;
    const reason = reasonOf(e);
    if (reason) return new DatabaseUnavailableError(`the database ${reason}; try again shortly`, 5, { cause: error });
  }
  return error;
}

function reasonOf(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const { code, severity, message, type } = e as {
    code?: unknown;
    severity?: unknown;
    message?: unknown;
    type?: unknown;
  };
  // A server's error: its SQLSTATE decides; its message may quote the statement's data.
  if (typeof severity === "string")
    return typeof code === "string" && UNAVAILABLE_SQLSTATE.test(code) ? "is not accepting connections" : undefined;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code))
    return code === "ETIMEDOUT" ? "did not answer in time" : "could not be reached";
  // The WebSocket transport reports a failed socket as its `error` Event, not an Error.
  if (!(e instanceof Error) && type === "error") return "could not be reached";
  if (typeof message !== "string") return undefined;
  return DRIVER_MESSAGES.find(([pattern]) => pattern.test(message))?.[1];
}

/**
 * Makes every method of `cls` that returns a promise reject with `asUnavailable(error)`, so each
 * path (HTTP, streams, the queue, the cron) sees one typed error however deep the driver failed.
 */
export function rethrowUnavailable(cls: { prototype: object }): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (name === "constructor" || typeof descriptor?.value !== "function") continue;
    const method = descriptor.value as (...args: unknown[]) => unknown;
    Object.defineProperty(proto, name, {
      ...descriptor,
      value: function (this: unknown, ...args: unknown[]) {
        const out = method.apply(this, args);
        return out instanceof Promise ? out.catch((error: unknown) => Promise.reject(asUnavailable(error))) : out;
      },
    });
  }
}
