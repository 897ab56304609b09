import type { SQL } from "drizzle-orm";
import type { Rows } from "./schema-state.js";

/**
 * What of drizzle's database or transaction runs a statement. `session` and `dialect` are
 * drizzle's own members (not in its public types): every Postgres driver of drizzle has both,
 * and `prepareQuery` is how its query builders send a named statement.
 */
export interface StatementTarget {
  execute(query: SQL): Promise<{ rows: unknown[] }>;
}

interface DrizzleInternals {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: {
    prepareQuery(
      query: { sql: string; params: unknown[] },
      fields: undefined,
      name: string | undefined,
      arrayMode: boolean,
    ): { execute(values?: Record<string, unknown>): Promise<{ rows: unknown[] }> };
  };
}

interface Compiled {
  query: { sql: string; params: unknown[] };
  /** the prepared statement's name suffix */
  hash: string;
}

/** Statement templates (built once, with placeholders) compiled to their text once. */
const compiledTemplates = new WeakMap<SQL, Compiled>();

/**
 * Runs `query` plainly, or, with a `name`, as a prepared statement named after that name and a
 * hash of its text: the text varies with the schema, the table names and list lengths, and a
 * connection refuses one name for two texts.
 *
 * With `values`, `query` is a template whose `sql.placeholder`s they fill: a template built once
 * and sent again and again (a run's writes) is compiled to its text once, not on every call.
 */
export async function runStatement(
  target: StatementTarget,
  query: SQL,
  name: string | undefined,
  values?: Record<string, unknown>,
): Promise<Rows> {
  if (!name && !values) return (await target.execute(query)).rows as Rows;
  const { dialect, session } = target as unknown as DrizzleInternals;
  let compiled = compiledTemplates.get(query);
  if (!compiled) {
    const text = dialect.sqlToQuery(query);
    compiled = { query: text, hash: textHash(text.sql) };
    if (values) compiledTemplates.set(query, compiled);
  }
  const prepared = session.prepareQuery(compiled.query, undefined, name && `agno_${name}_${compiled.hash}`, false);
  return (await prepared.execute(values)).rows as Rows;
}

const hashes = new Map<string, string>();

/** A 53-bit hash of the statement's text (cyrb53), remembered: the same few texts come back on every run. */
function textHash(text: string): string {
  let hash = hashes.get(text);
  if (hash) return hash;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  hash = (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  if (hashes.size < 256) hashes.set(text, hash);
  return hash;
}
