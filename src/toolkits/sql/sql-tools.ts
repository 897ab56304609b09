import { z } from "zod";
import { tool, Toolkit } from "../../tools/tool.js";
import { singleStatement } from "./single-statement.js";
import type { SqlConnector, SqlSession } from "./sql-connector.js";

/** Statements a cursor can hold: their rows are fetched up to the cap server-side. */
const CURSOR_ABLE = /^\s*(\(\s*)*(select|with|values|table)\b/i;
/** The statements run at all: reading ones. Transaction control (COMMIT, SET...) never reaches the database. */
const READING = /^\s*(\(\s*)*(select|with|values|table|explain|show)\b/i;

export interface SqlToolsOptions {
  /** where connections come from (pgPoolConnector(pool), or your own SqlConnector) */
  connector: SqlConnector;
  /** the schema tables are listed and described in, and queries resolve names in (default public) */
  schema?: string;
  /** list_tables answers these instead of asking the database (agno's `tables`) */
  tables?: string[];
  /** the most rows one query returns, whatever `limit` the model asks (default 100) */
  maxRows?: number;
  /** Postgres's statement_timeout for each statement, in milliseconds (default 5 s) */
  statementTimeoutMs?: number;
  /** longer text values are cut to this many characters (default 2,000) */
  maxValueChars?: number;
  /** agno's enable_* flags by another name: only these tools */
  include?: string[];
  exclude?: string[];
}

/** Leading comments dropped, so a statement's first keyword can be read. */
function stripComments(sql: string): string {
  return sql.replace(/^(\s*(--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/))*/, "");
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** A value as JSON can carry it (agno dumps with `default=str`): bigint and bytes as text, long text cut. */
function jsonable(value: unknown, maxChars: number): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array)
    return `\\x${[...value.slice(0, maxChars / 2)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  if (typeof value === "string" && value.length > maxChars) return `${value.slice(0, maxChars)}…`;
  if (value && typeof value === "object") {
    const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    return text.length > maxChars ? `${text.slice(0, maxChars)}…` : value;
  }
  return value;
}

/**
 * agno's SQLTools on Postgres, with its bare tool names (`list_tables`, `describe_table`,
 * `run_sql_query`): every call runs in a READ ONLY transaction that is rolled back, with a
 * statement_timeout, one statement per query and a row cap. Give it a read-only database role
 * too: a read-only transaction stops writes, not every function with side effects.
 */
export class SQLTools extends Toolkit {
  constructor(opts: SqlToolsOptions) {
    const schema = opts.schema ?? "public";
    const maxRows = opts.maxRows ?? 100;
    const timeoutMs = Math.max(1, Math.floor(opts.statementTimeoutMs ?? 5_000));
    const maxChars = opts.maxValueChars ?? 2_000;

    /** Runs `fn` on one connection inside a read-only transaction that is always rolled back. */
    const readOnly = async <T>(fn: (s: SqlSession) => Promise<T>): Promise<T> => {
      let session: SqlSession;
      try {
        session = await opts.connector.connect();
      } catch (error) {
        throw new Error(`the database could not be reached: ${(error as Error).message}`, { cause: error });
      }
      try {
        await session.query("BEGIN TRANSACTION READ ONLY");
        await session.query("SELECT set_config('statement_timeout', $1, true), set_config('search_path', $2, true)", [
          `${timeoutMs}ms`,
          `"${schema.replace(/"/g, '""')}"`,
        ]);
        return await fn(session);
      } finally {
        await session.query("ROLLBACK").catch(() => undefined);
        await session.release();
      }
    };

    super({
      id: "sql_tools",
      name: "sql_tools",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "list_tables",
          description: "Use this function to get a list of table names in the database.",
          parameters: z.object({}),
          execute: async () => {
            if (opts.tables) return opts.tables;
            const { rows } = await readOnly((s) =>
              s.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [
                schema,
              ]),
            );
            return rows.map((r) => r.table_name);
          },
        }),
        tool({
          name: "describe_table",
          description: "Use this function to describe a table.",
          parameters: z.object({
            table_name: z
              .string()
              .regex(IDENT, "a table name (letters, digits, _ and $)")
              .describe("The name of the table to get the schema for."),
          }),
          execute: async ({ table_name }) => {
            const { rows } = await readOnly((s) =>
              s.query(
                "SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns " +
                  "WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
                [schema, table_name],
              ),
            );
            if (rows.length === 0) throw new Error(`there is no table ${table_name} in schema ${schema}`);
            return rows.map((r) => ({
              name: r.column_name,
              type: r.data_type,
              nullable: r.is_nullable === "YES",
              default: r.column_default ?? null,
            }));
          },
        }),
        tool({
          name: "run_sql_query",
          description:
            `Use this function to run a read-only SQL query (one statement, PostgreSQL) and return the result. ` +
            `At most ${maxRows} rows are returned.`,
          parameters: z.object({
            query: z
              .string()
              .min(1)
              .max(20_000)
              .refine((q) => singleStatement(q) !== null, "exactly one SQL statement")
              .refine(
                (q) => READING.test(stripComments(q)),
                "only SELECT, WITH, VALUES, TABLE, EXPLAIN and SHOW statements are run",
              )
              .describe("The query to run."),
            limit: z
              .number()
              .int()
              .min(1)
              .max(maxRows)
              .default(Math.min(10, maxRows))
              .describe("The number of rows to return."),
          }),
          execute: async ({ query, limit }) => {
            const sql = stripComments(singleStatement(query)!);
            try {
              const rows = await readOnly(async (s) => {
                if (!CURSOR_ABLE.test(sql)) return (await s.query(sql)).rows.slice(0, limit);
                await s.query(`DECLARE agno_edge_rows NO SCROLL CURSOR FOR ${sql}`);
                return (await s.query(`FETCH FORWARD ${limit} FROM agno_edge_rows`)).rows;
              });
              return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonable(v, maxChars)])));
            } catch (error) {
              throw new Error(`Error running query: ${(error as Error).message}`, { cause: error });
            }
          },
        }),
      ],
    });
  }
}
