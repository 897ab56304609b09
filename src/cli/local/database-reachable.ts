import { connect } from "node:net";

/** The database named by DATABASE_URL cannot be used; the message is one line naming host:port, never the password. */
export class DatabaseUnreachable extends Error {}

/** host:port of a database URL, as the messages name it. */
export function databaseAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || 5432}`;
}

/**
 * Resolves when a TCP connection to the database's host:port opens, or rejects with one line that
 * names host:port and why (never the URL, which holds the password). `npm run dev` checks this
 * before anything else so an unreachable DATABASE_URL is a clear message, not a driver stack trace,
 * and a black-holed address fails after `timeoutMs` rather than hanging.
 */
export function checkDatabaseReachable(databaseUrl: string, timeoutMs = 5000): Promise<void> {
  const url = new URL(databaseUrl);
  const host = url.hostname;
  const port = Number(url.port || 5432);
  const where = databaseAddress(databaseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port });
    const fail = (why: string) => {
      socket.destroy();
      reject(
        new DatabaseUnreachable(
          `cannot reach the database at ${where} (${why}): check DATABASE_URL, or unset it to use the embedded Postgres`,
        ),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs / 1000} s`));
    socket.once("error", (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
  });
}
