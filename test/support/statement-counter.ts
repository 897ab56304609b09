import { Client } from "@neondatabase/serverless";
import { afterAll, beforeAll } from "vitest";

/**
 * Counts the statements Postgres is sent, at the driver (every query a pooled client sends, BEGIN
 * and COMMIT included), so a statement added to a path fails the suite that counts it. Call once
 * at a test file's top level: it patches the driver for that file and restores it after.
 * `label` shortens each statement for the failure message.
 */
export function countStatements(label: (sql: string) => string): (work: () => Promise<unknown>) => Promise<string[]> {
  const sent: string[] = [];
  let counting = false;
  const query = Client.prototype.query;
  beforeAll(() => {
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      if (counting) {
        const q = args[0] as string | { text: string };
        sent.push(label((typeof q === "string" ? q : q.text).trim()));
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  });
  afterAll(() => {
    Client.prototype.query = query;
  });
  return async (work) => {
    sent.length = 0;
    counting = true;
    try {
      await work();
    } finally {
      counting = false;
    }
    return [...sent];
  };
}
