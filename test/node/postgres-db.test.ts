import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SchemaMismatchError } from "../../src/errors.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/**
 * What only the Postgres adapter has, on every Postgres the machine offers: its catalog and
 * schema versions, row versions, pools, custom names. The port's contract, which every adapter
 * answers alike, is test/support/db-contract.ts (run by db.contract.test.ts).
 */
describe.each(dbTargets())("PostgresDb on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    expect(await t.db.init()).toBe("current");
  });
  afterAll(() => t.close());

  const session = (id: string) =>
    t.db.upsertSession({ session_id: id, session_type: "agent", agent_id: "assistant", user_id: "alice" });

  it("creates the 3.0 tables on a fresh database, without a runs blob on sessions", async () => {
    const cols = await t.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`,
      [t.schema],
    );
    const of = (table: string) =>
      cols
        .filter((c) => c.table_name === table)
        .map((c) => c.column_name)
        .sort();
    expect(of("agno_sessions")).not.toContain("runs");
    expect(of("agno_runs")).toEqual([
      "agent_id",
      "created_at",
      "parent_run_id",
      "run_data",
      "run_id",
      "run_index",
      "run_type",
      "session_id",
      "status",
      "team_id",
      "updated_at",
      "user_id",
      "workflow_id",
    ]);
    expect(of("agno_jobs")).toContain("idempotency_key");
    expect(of("agno_tool_results")).toContain("expires_at");
    const versions = await t.query<{ table_name: string; version: string }>(
      `SELECT table_name, version FROM "${t.schema}".agno_schema_versions ORDER BY 1`,
    );
    expect(versions.map((v) => `${v.table_name}=${v.version}`)).toEqual([
      "agno_approvals=3.0.9",
      "agno_audit_log=3.0.9",
      "agno_component_configs=3.0.9",
      "agno_component_links=3.0.9",
      "agno_components=3.0.9",
      "agno_eval_runs=3.0.9",
      "agno_jobs=3.0.9",
      "agno_knowledge=3.0.9",
      "agno_learnings=3.0.9",
      "agno_memories=3.0.9",
      "agno_metrics=3.0.9",
      "agno_run_events=3.0.9",
      "agno_runs=3.0.9",
      "agno_schedule_runs=3.0.9",
      "agno_schedules=3.0.9",
      "agno_schema_versions=3.0.9",
      "agno_service_accounts=3.0.9",
      "agno_sessions=3.0.9",
      "agno_spans=3.0.9",
      "agno_tool_results=3.0.9",
      "agno_traces=3.0.9",
    ]);
    expect(await t.db.schemaVersion()).toBe("3.0.9");
  });

  it("finds timed-out reviews through the partial deadline index, not by reading every run's JSON", async () => {
    const defs = await t.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'idx_agno_runs_review_deadline'`,
      [t.schema],
    );
    expect(defs).toHaveLength(1);
    expect(defs[0]!.indexdef).toMatch(/timeout_at.*WHERE.*status.*PAUSED/s);
    // The adapter's query (run-liveness.ts) with sequential scans priced out: the planner can use the index.
    await t.query("SET enable_seqscan = off");
    try {
      const plan = await t.query<Record<string, string>>(
        `EXPLAIN SELECT run_id FROM "${t.schema}".agno_runs
         WHERE status = 'PAUSED' AND (run_data->'step_requirements'->-1->>'timeout_at') <= '2030-01-01T00:00:00.000Z'
         ORDER BY (run_data->'step_requirements'->-1->>'timeout_at') LIMIT 100`,
      );
      expect(plan.map((r) => Object.values(r)[0]).join("\n")).toContain("idx_agno_runs_review_deadline");
    } finally {
      await t.query("SET enable_seqscan = on");
    }
  });

  it("upserting a run rewrites that run's row only (its row version), not its neighbours'", async () => {
    await t.db.upsertSession({ session_id: "s-o1", session_type: "agent", agent_id: "assistant", user_id: "alice" });
    for (let i = 0; i < 5; i++)
      await t.db.upsertRun({
        run_id: `o1-${i}`,
        session_id: "s-o1",
        agent_id: "assistant",
        status: "RUNNING",
        messages: [],
      });
    const xmin = () =>
      t.query<{ run_id: string; x: string }>(
        `SELECT run_id, xmin::text AS x FROM "${t.schema}".agno_runs WHERE session_id = 's-o1' ORDER BY run_id`,
      );
    const before = await xmin();
    await t.db.upsertRun({
      run_id: "o1-2",
      session_id: "s-o1",
      agent_id: "assistant",
      status: "COMPLETED",
      content: "done",
      messages: [],
    });
    const after = await xmin();
    const changed = after.filter((r, i) => r.x !== before[i]!.x).map((r) => r.run_id);
    expect(changed).toEqual(["o1-2"]);
  });

  it("runs started at once in one session from several adapters (one statement each, or the transaction) get distinct run_index", async () => {
    await session("s-start-race");
    // An adapter each, as separate isolates would have: no batching between them.
    const dbs = [0, 1, 2, 3].map(() => new PostgresDb({ pool: t.pool, schema: t.schema }));
    const start = (db: PostgresDb, id: string) =>
      db.upsertRun(
        { run_id: id, session_id: "s-start-race", agent_id: "assistant", status: "RUNNING" },
        { expectStatus: ["PENDING", "RUNNING"] },
      );
    await Promise.all([
      ...dbs.map(async (db, w) => {
        for (let i = 0; i < 12; i++) await start(db, `start-${w}-${i}`);
      }),
      (async () => {
        for (let i = 0; i < 12; i++) await t.db.upsertRun({ run_id: `plain-${i}`, session_id: "s-start-race" });
      })(),
    ]);
    const rows = (await t.db.getRuns({ sessionId: "s-start-race", sortOrder: "asc" })).data;
    expect(rows.map((r) => r.run_index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(rows.filter((r) => r.run_id.startsWith("start-")).every((r) => r.user_id === "alice")).toBe(true);
  });

  it("a pool given as a function is made on the first query, once: an adapter that never queries opens none", async () => {
    let made = 0;
    const db = new PostgresDb({ pool: () => (made++, t.pool), schema: t.schema });
    expect(made).toBe(0);
    expect(db.jobs).toBeDefined();
    expect(made).toBe(0);
    await session("s-lazy");
    expect((await db.getSession("s-lazy"))!.record.session_id).toBe("s-lazy");
    await db.getRuns({ limit: 1 });
    expect(made).toBe(1);
  });

  it("honours a custom schema and table names", async () => {
    const custom = openTestDb(target, { tables: { sessions: "team_sessions", runs: "team_runs" } });
    try {
      await custom.db.upsertSession({ session_id: "c1", session_type: "agent" });
      await custom.db.upsertRun({ run_id: "c1-r", session_id: "c1", agent_id: "a" });
      const tables = await custom.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
        [custom.schema],
      );
      expect(tables.map((r) => r.table_name)).toEqual([
        "agno_approvals",
        "agno_audit_log",
        "agno_component_configs",
        "agno_component_links",
        "agno_components",
        "agno_eval_runs",
        "agno_jobs",
        "agno_knowledge",
        "agno_learnings",
        "agno_memories",
        "agno_metrics",
        "agno_run_events",
        "agno_schedule_runs",
        "agno_schedules",
        "agno_schema_versions",
        "agno_service_accounts",
        "agno_spans",
        "agno_tool_results",
        "agno_traces",
        "team_runs",
        "team_sessions",
      ]);
    } finally {
      await custom.close();
    }
  });

  it("refuses a database that is newer than the code, or a runs table made by something else", async () => {
    const ahead = openTestDb(target);
    try {
      await ahead.db.init();
      await ahead.query(
        `UPDATE "${ahead.schema}".agno_schema_versions SET version = '3.4.0' WHERE table_name = 'agno_runs'`,
      );
      const again = openTestDb(target, { schema: ahead.schema });
      await expect(again.db.getRuns()).rejects.toThrow(SchemaMismatchError);
      await expect(again.db.init()).rejects.toMatchObject({ errorId: "schema_mismatch_error", message: /3\.4\.0/ });
      await again.pool.end();
    } finally {
      await ahead.close();
    }
    const foreign = openTestDb(target);
    try {
      await foreign.query(`CREATE SCHEMA "${foreign.schema}"`);
      await foreign.query(`CREATE TABLE "${foreign.schema}".agno_runs (run_id varchar primary key, payload jsonb)`);
      await expect(foreign.db.init()).rejects.toMatchObject({ name: "SchemaMismatchError", message: /run_type/ });
    } finally {
      await foreign.close();
    }
  });

  it("adds a table introduced after the database was stamped (agno_memories on an older 3.0 install)", async () => {
    const older = openTestDb(target);
    try {
      await older.db.init();
      await older.query(`DROP TABLE "${older.schema}".agno_memories`);
      await older.query(`DELETE FROM "${older.schema}".agno_schema_versions WHERE table_name = 'agno_memories'`);
      const again = openTestDb(target, { schema: older.schema });
      expect(await again.db.init()).toBe("current");
      expect(await again.db.getUserMemories("anyone")).toEqual([]);
      await again.pool.end();
    } finally {
      await older.close();
    }
  });
});
