import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError } from "../../src/errors.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

const base = { endpoint: "/agents/assistant/runs", cron_expr: "0 8 * * *", payload: { message: "hi" } };
/** The error and its causes' messages: drizzle wraps what Postgres said. */
const messages = (e: unknown): string => (e instanceof Error ? `${e.message} | ${messages(e.cause)}` : "");

/**
 * What only Postgres has to say about schedules: the migration that adds the unique key. Their
 * behaviour is the Db contract's (test/support/schedule-store-contract.ts), on every adapter.
 */
describe.each(dbTargets())("schedule store on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());

  it("SPEC M5: the unique key stops on duplicate names, naming them, and applies nothing until they are resolved", async () => {
    const q = (sql: string, values?: unknown[]) => t.query(sql, values);
    const s = `"${t.schema}"`;
    // A database from before the key: no unique index, no runs table, stamped 3.0.0.
    await q(`DROP INDEX ${s}.idx_agno_schedules_user_id_name`);
    await q(`DROP TABLE ${s}.agno_schedule_runs`);
    await q(`UPDATE ${s}.agno_schema_versions SET version = '3.0.0'`);
    const row = (id: string, user: string | null, name: string) =>
      q(
        `INSERT INTO ${s}.agno_schedules (id, name, endpoint, cron_expr, user_id, created_at) VALUES ($1, $2, '/agents/assistant/runs', '0 8 * * *', $3, 1)`,
        [id, name, user],
      );
    await row("d1", "u1", "nightly");
    await row("d2", "u1", "nightly");
    await row("d3", "u2", "nightly");
    await row("d4", null, "report");
    await row("d5", null, "report");
    const error = await new PostgresDb({ pool: t.pool, schema: t.schema }).init().then(
      () => null,
      (e: unknown) => e,
    );
    expect(messages(error)).toMatch(/user 'u1': 'nightly' \(2 schedules\); user none: 'report' \(2 schedules\)/);
    expect(messages(error)).not.toMatch(/'u2'/);
    expect((await q(`SELECT DISTINCT version FROM ${s}.agno_schema_versions`)).map((r) => r.version)).toEqual([
      "3.0.0",
    ]);
    expect(
      (
        await q(
          `SELECT to_regclass('${s}.agno_schedule_runs') AS t, to_regclass('${s}.idx_agno_schedules_user_id_name') AS i`,
        )
      )[0],
    ).toEqual({ t: null, i: null });
    expect(await q(`SELECT id FROM ${s}.agno_schedules WHERE id LIKE 'd_' ORDER BY id`)).toHaveLength(5);
    await q(`UPDATE ${s}.agno_schedules SET name = 'nightly-2' WHERE id = 'd2'`);
    await q(`DELETE FROM ${s}.agno_schedules WHERE id = 'd5'`);
    const fixed = new PostgresDb({ pool: t.pool, schema: t.schema });
    expect(await fixed.init()).toBe("current");
    expect(await fixed.schemaVersion()).toBe("3.0.9");
    await expect(fixed.schedules.createSchedule({ ...base, name: "nightly" }, { userId: "u1" })).rejects.toThrow(
      ConflictError,
    );
  });
});
