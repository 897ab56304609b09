/**
 * Counts the statements a Pool sends (each a round trip to Postgres): every statement, the
 * pool's own `query` included, goes through a client the pool lends (`connect`, with a callback
 * or a promise), so the clients' `query` is what is counted (BEGIN and COMMIT count too).
 * Statements are a figure the machine's load does not move, beside timings that it does.
 */
import type { Pool } from "@neondatabase/serverless";

type Query = (...args: unknown[]) => unknown;
type Client = { query: Query; __counted?: true };
type Connect = (callback?: (err: unknown, client?: Client, release?: unknown) => void) => Promise<Client> | undefined;

export function countStatements(pool: Pool): { readonly count: number } {
  const counter = { count: 0 };
  const counted = (client: Client | undefined) => {
    if (client && !client.__counted) {
      const query = client.query.bind(client);
      client.query = (...args: unknown[]) => {
        counter.count++;
        return query(...args);
      };
      client.__counted = true;
    }
    return client;
  };
  const target = pool as unknown as { connect: Connect };
  const connect = target.connect.bind(pool);
  target.connect = (callback) =>
    callback
      ? connect((err, client, release) => callback(err, counted(client), release))
      : connect()!.then((client) => counted(client)!);
  return counter;
}
