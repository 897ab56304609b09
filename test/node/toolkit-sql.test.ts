import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgPoolConnector, SQLTools, type SqlConnector } from "../../src/toolkits/sql/index.js";
import { singleStatement } from "../../src/toolkits/sql/single-statement.js";
import { dbTargets } from "../support/db-targets.js";
import { callThroughAgent } from "../support/toolkit-kit.js";

describe("singleStatement", () => {
  it("finds one statement, ignoring semicolons in literals, identifiers, dollar quotes and comments", () => {
    expect(singleStatement("select 1;")).toBe("select 1");
    expect(singleStatement("select ';', \"a;b\", $x$;$x$, E'\\';' -- ;\n /* ; */ ;  ")).toBe(
      "select ';', \"a;b\", $x$;$x$, E'\\';' -- ;\n /* ; */",
    );
    expect(singleStatement("select 1; delete from t")).toBeNull();
    expect(singleStatement("select 1; commit; delete from t")).toBeNull();
    expect(singleStatement("select $$;$$; drop table t")).toBeNull();
    expect(singleStatement("  ;  ")).toBeNull();
  });
});

for (const target of dbTargets()) {
  describe(`SQLTools on ${target.name}`, () => {
    const schema = `sqltools_${process.pid}_${Date.now().toString(36)}`;
    let pool: pg.Pool;
    let connects = 0;
    let connector: SqlConnector;

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: target.url, max: 2 });
      await pool.query(`CREATE SCHEMA ${schema}`);
      await pool.query(
        `CREATE TABLE ${schema}.orders (id serial PRIMARY KEY, customer text NOT NULL, total numeric(10,2), note text DEFAULT 'none')`,
      );
      await pool.query(`CREATE SEQUENCE ${schema}.tickets`);
      await pool.query(
        `INSERT INTO ${schema}.orders (customer, total, note) SELECT 'c' || g, g * 1.5, repeat('x', 50) FROM generate_series(1, 300) g`,
      );
      const inner = pgPoolConnector(pool);
      connector = { connect: () => (connects++, inner.connect()) };
    });
    afterAll(async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    });

    const tools = (extra: Partial<ConstructorParameters<typeof SQLTools>[0]> = {}) =>
      new SQLTools({ connector, schema, ...extra });
    const rowsOf = (result: string | null | undefined) =>
      JSON.parse(result ?? "null") as Array<Record<string, unknown>>;

    it("has agno's bare names; lists, describes and queries", async () => {
      expect(tools().id).toBe("sql_tools");
      expect(tools().tools.map((t) => t.name)).toEqual(["list_tables", "describe_table", "run_sql_query"]);
      expect(rowsOf((await callThroughAgent([tools()], "list_tables", {})).execution.result)).toEqual(["orders"]);
      const described = rowsOf(
        (await callThroughAgent([tools()], "describe_table", { table_name: "orders" })).execution.result,
      );
      expect(described.map((c) => [c.name, c.type, c.nullable])).toEqual([
        ["id", "integer", false],
        ["customer", "text", false],
        ["total", "numeric", true],
        ["note", "text", true],
      ]);
      expect(described[3]!.default).toBe("'none'::text");
      const rows = rowsOf(
        (
          await callThroughAgent([tools()], "run_sql_query", {
            query: "SELECT id, customer, total FROM orders ORDER BY id;",
          })
        ).execution.result,
      );
      expect(rows).toHaveLength(10);
      expect(rows[1]).toEqual({ id: 2, customer: "c2", total: "3.00" });
      const missing = await callThroughAgent([tools()], "describe_table", { table_name: "nope" });
      expect(missing.toolMessage).toBe(`Error: there is no table nope in schema ${schema}`);
    });

    it("caps rows and long values", async () => {
      const capped = tools({ maxRows: 25, maxValueChars: 10 });
      const asked = await callThroughAgent([capped], "run_sql_query", { query: "select note from orders", limit: 20 });
      const rows = rowsOf(asked.execution.result);
      expect(rows).toHaveLength(20);
      expect(rows[0]!.note).toBe(`${"x".repeat(10)}…`);
      const tooMany = await callThroughAgent([capped], "run_sql_query", { query: "select 1", limit: 26 });
      expect(tooMany.execution.tool_call_error).toBe(true);
    });

    it("writes fail inside the read-only transaction and nothing changes", async () => {
      const cases = [
        "SELECT nextval('tickets')",
        "SELECT * FROM orders FOR UPDATE",
        "EXPLAIN ANALYZE INSERT INTO orders (customer) VALUES ('x')",
      ];
      for (const query of cases) {
        const { execution, toolMessage } = await callThroughAgent([tools()], "run_sql_query", { query });
        expect(execution.tool_call_error, query).toBe(true);
        expect(toolMessage, query).toMatch(/^Error: Error running query: cannot execute .* in a read-only transaction/);
      }
      const cte = await callThroughAgent([tools()], "run_sql_query", {
        query: "WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM gone",
      });
      expect(cte.toolMessage).toMatch(/must not contain data-modifying statements/);
      expect((await pool.query(`SELECT count(*)::int AS n FROM ${schema}.orders`)).rows[0].n).toBe(300);
    });

    it("rejects several statements, non-reading statements and bad names before connecting", async () => {
      const before = connects;
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ["run_sql_query", { query: "SELECT 1; COMMIT; DELETE FROM orders" }, /exactly one SQL statement/],
        ["run_sql_query", { query: "DELETE FROM orders" }, /only SELECT, WITH/],
        ["run_sql_query", { query: "/* hi */ COMMIT" }, /only SELECT, WITH/],
        ["run_sql_query", { query: "SET transaction_read_only = off" }, /only SELECT, WITH/],
        ["run_sql_query", { query: "" }, /invalid arguments/],
        ["describe_table", { table_name: "orders; drop table orders" }, /a table name/],
      ];
      for (const [name, args, message] of cases) {
        const { execution, toolMessage } = await callThroughAgent([tools()], name, args);
        expect(execution.tool_call_error, JSON.stringify(args)).toBe(true);
        expect(toolMessage, JSON.stringify(args)).toMatch(message);
      }
      expect(connects).toBe(before);
    });

    it("each statement runs under the statement timeout", async () => {
      const quick = tools({ statementTimeoutMs: 200 });
      const setting = await callThroughAgent([quick], "run_sql_query", {
        query: "select current_setting('statement_timeout') as t, current_setting('transaction_read_only') as ro",
      });
      expect(rowsOf(setting.execution.result)).toEqual([{ t: "200ms", ro: "on" }]);
      if (target.name === "postgresql") {
        const slow = await callThroughAgent([quick], "run_sql_query", { query: "select pg_sleep(3)" });
        expect(slow.toolMessage).toBe("Error: Error running query: canceling statement due to statement timeout");
      }
    });

    it("a database out of reach is a clear tool error", async () => {
      const dead = new pg.Pool({
        connectionString: "postgres://postgres@127.0.0.1:1/none",
        connectionTimeoutMillis: 500,
      });
      try {
        const { execution, toolMessage } = await callThroughAgent(
          [new SQLTools({ connector: pgPoolConnector(dead) })],
          "list_tables",
          {},
        );
        expect(execution.tool_call_error).toBe(true);
        expect(toolMessage).toMatch(/^Error: the database could not be reached: .*ECONNREFUSED/);
      } finally {
        await dead.end();
      }
    });
  });
}
