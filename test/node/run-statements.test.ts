import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { Model, ModelRequest } from "../../src/models/model.js";
import { emptyUsage } from "../../src/models/model.js";
import { tool } from "../../src/tools/tool.js";
import pg from "pg";
import { nodePostgresDb } from "../../src/db/postgres/node-postgres-db.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { countStatements } from "../support/statement-counter.js";

/**
 * The statements one agent run costs Postgres (what the run-overhead bench measures: a direct
 * `agent.run`, one tool call, a model that answers at once), counted at the driver: every query a
 * pooled client sends, BEGIN and COMMIT included. A statement added to the path fails here.
 */
const count = countStatements((sql) => sql.replace(/\s+/g, " ").slice(0, 160));
/** the same, whole */
const full = countStatements((sql) => sql);

/** The first model request asks for the tool, the next one (with its result) answers: zero latency, in process. */
const scripted: Model = {
  id: "scripted",
  provider: "test",
  async *stream(req: ModelRequest) {
    if (!req.messages.some((m) => m.role === "tool")) {
      yield { type: "tool_call", id: "call_1", name: "weather", arguments: JSON.stringify({ city: "Oslo" }) };
      yield { type: "finish", reason: "tool_calls", usage: emptyUsage() };
      return;
    }
    yield { type: "text", delta: "Sunny in Oslo." };
    yield { type: "finish", reason: "stop", usage: emptyUsage() };
  },
};

const weather = tool({
  name: "weather",
  description: "The weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

describe.each(dbTargets())("statements per agent run on $name", (target) => {
  let t: TestDb;
  let agent: Agent;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
    // No cancel poll within the run: a poll would be a statement that depends on the clock.
    agent = new Agent({ name: "assistant", model: scripted, tools: [weather], db: t.db, cancelPollMs: 60_000 });
  });
  afterAll(() => t.close());

  /** The run's stored row: it completed, with the tool's call and result (the count is of a real run). */
  async function expectStored(runId: string): Promise<void> {
    const row = await t.db.getRun(runId);
    expect(row?.status).toBe("COMPLETED");
    const data = row!.run_data as { content?: unknown; tools?: Array<{ tool_name?: string; result?: unknown }> };
    expect(data.content).toBe("Sunny in Oslo.");
    expect(data.tools?.map((x) => [x.tool_name, x.result])).toEqual([["weather", "sunny in Oslo"]]);
  }

  // The session insert with the run's RUNNING write (one statement), the last write: a session
  // id the run made up itself is not read first.
  it("a run with one tool call into a new session is at most 2 statements", async () => {
    let runId = "";
    const statements = await count(async () => {
      runId = (await agent.run("weather in Oslo?")).run_id;
    });
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(2);
    await expectStored(runId);
  });

  // The RUNNING write's commit does not wait for the log (its loss in a crash of the database
  // undoes only that mark); the last write's does, and so makes both durable.
  it("only the opening write defers its flush, in a new session and in an existing one", async () => {
    const deferred = (sql: string) => sql.includes("set_config('synchronous_commit', 'off', true)");
    for (const sessionId of [undefined, "s-flush"]) {
      if (sessionId) await agent.run("first", { sessionId });
      const statements = await full(async () => void (await agent.run("weather in Oslo?", { sessionId })));
      const writes = statements.filter((q) => /\b(INSERT|UPDATE)\b/i.test(q));
      expect(writes.map(deferred), writes.join("\n")).toEqual([true, false]);
    }
  });

  // The session's read, the RUNNING write, the last write.
  it("a run with one tool call in an existing session is at most 3 statements (no session insert)", async () => {
    await agent.run("first", { sessionId: "s-existing" });
    let runId = "";
    const statements = await count(async () => {
      runId = (await agent.run("weather in Oslo?", { sessionId: "s-existing" })).run_id;
    });
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(3);
    await expectStored(runId);
  });
});

// nodePostgresDb keeps its connections, so it prepares the two statements every run sends: after
// runs on two schemas over one connection, that connection holds each schema's pair, each under
// a name of its own (the texts differ by schema), and every run was stored. (PGlite's socket
// server appends its client number to the names it lists.) A third schema with
// `preparedStatements: false` runs plainly: nothing of it is prepared.
describe.each(dbTargets())("prepared run writes over node-postgres on $name", (target) => {
  it("prepares the opening and final writes once per connection and schema", async () => {
    const pool = new pg.Pool({ connectionString: target.url, max: 1 });
    const schemas = [`prep_a_${Date.now()}`, `prep_b_${Date.now()}`];
    const plain = `prep_off_${Date.now()}`;
    try {
      for (const schema of [...schemas, plain]) {
        const db = nodePostgresDb({ pool, schema, ...(schema === plain && { preparedStatements: false }) });
        await db.init();
        const agent = new Agent({ name: "assistant", model: scripted, tools: [weather], db, cancelPollMs: 60_000 });
        for (let i = 0; i < 3; i++) {
          const out = await agent.run("weather in Oslo?");
          expect((await db.getRun(out.run_id))?.status).toBe("COMPLETED");
        }
      }
      const { rows } = await pool.query<{ name: string; statement: string }>(
        "SELECT name, statement FROM pg_prepared_statements ORDER BY name",
      );
      const ours = rows.filter((r) => r.name.startsWith("agno_"));
      expect(ours).toHaveLength(4);
      for (const schema of schemas)
        expect(
          ours
            .filter((r) => r.statement.includes(`"${schema}"`))
            .map((r) => r.name.replace(/_[0-9a-z]+(@\d+)?$/, ""))
            .sort(),
        ).toEqual(["agno_run_update", "agno_session_with_run"]);
      expect(rows.filter((r) => r.statement.includes(`"${plain}"`))).toEqual([]);
    } finally {
      for (const schema of [...schemas, plain]) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });
});
