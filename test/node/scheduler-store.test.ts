import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../src/errors.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { runDueSchedules } from "../../src/scheduler/run-due.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

const base = { endpoint: "/agents/assistant/runs", cron_expr: "0 8 * * *", payload: { message: "hi" } };
/** The error and its causes' messages: drizzle wraps what Postgres said. */
const messages = (e: unknown): string => (e instanceof Error ? `${e.message} | ${messages(e.cause)}` : "");

describe.each(dbTargets())("schedule store on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());
  const store = () => t.db.schedules;

  it("creates with agno's defaults and the first occurrence; names are unique per user", async () => {
    const s = await store().createSchedule(
      { ...base, name: "daily", timezone: "Europe/Berlin", method: "post" },
      { userId: "ua" },
    );
    expect(s).toMatchObject({
      method: "POST",
      timezone: "Europe/Berlin",
      timeout_seconds: 3600,
      max_retries: 0,
      retry_delay_seconds: 60,
      enabled: true,
      user_id: "ua",
      disabled_reason: null,
    });
    expect(
      new Date(s.next_run_at! * 1000).toLocaleString("en-GB", {
        timeZone: "Europe/Berlin",
        hour: "2-digit",
        minute: "2-digit",
      }),
    ).toBe("08:00");
    await expect(store().createSchedule({ ...base, name: "daily" }, { userId: "ua" })).rejects.toThrow(ConflictError);
    expect((await store().createSchedule({ ...base, name: "daily" }, { userId: "ub" })).user_id).toBe("ub");
    await expect(store().createSchedule({ ...base, name: "shared" }, { userId: null })).resolves.toMatchObject({
      user_id: null,
    });
    await expect(store().createSchedule({ ...base, name: "shared" }, { userId: null })).rejects.toThrow(ConflictError);
  });

  it("refuses bad input with a 422 naming the field, and writes nothing", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ cron_expr: "0 8 * *" }, /cron_expr/],
      [{ timezone: "Moon/Base" }, /timezone/],
      [{ endpoint: "https://evil.example/agents/assistant/runs" }, /endpoint must be a path/],
      [{ endpoint: "/sessions" }, /not a run endpoint/],
      [{ method: "DELETE" }, /method/],
      [{ payload: { message: "x", user_id: "someone-else" } }, /payload\.user_id/],
      [{ payload: { prompt: "x" } }, /payload\.prompt/],
      [{ payload: {} }, /payload\.message/],
      [{ owner: "x" }, /owner: not a schedule field/],
      [{ max_retries: 11 }, /max_retries/],
      [{ name: "has space" }, /name/],
    ];
    for (const [change, error] of cases) {
      await expect(
        store().createSchedule({ ...base, name: "bad", ...change } as never, { userId: "ua" }),
        JSON.stringify(change),
      ).rejects.toThrow(error);
    }
    expect((await store().listSchedules({}, { userId: "ua" })).data.map((s) => s.name)).not.toContain("bad");
  });

  it("updateSchedule changes only the whitelisted fields; ownership, origin and locks never move through it", async () => {
    const s = await store().createSchedule({ ...base, name: "editable" }, { userId: "ua" });
    for (const field of [
      "user_id",
      "locked_by",
      "locked_at",
      "managed_by",
      "target_id",
      "created_by_run_id",
      "id",
      "created_at",
    ]) {
      await expect(store().updateSchedule(s.id, { [field]: "x" }, { userId: "ua" })).rejects.toThrow(
        expect.objectContaining({
          field,
          message: expect.stringContaining(`${field}: cannot be changed by updateSchedule`),
        }),
      );
    }
    await expect(
      store().updateSchedule(s.id, { cron_expr: "0 9 * * *", owner: "ub" }, { userId: "ua" }),
    ).rejects.toThrow(/owner/);
    expect((await store().getSchedule(s.id))!.cron_expr).toBe("0 8 * * *");
    const moved = await store().updateSchedule(
      s.id,
      { cron_expr: "30 9 * * *", timezone: "Asia/Tokyo", description: "later", max_retries: 2 },
      { userId: "ua" },
    );
    expect(moved).toMatchObject({
      cron_expr: "30 9 * * *",
      timezone: "Asia/Tokyo",
      description: "later",
      max_retries: 2,
      user_id: "ua",
    });
    expect(moved.next_run_at).not.toBe(s.next_run_at);
    // A body that sets next_run_at keeps it, with a new cron and on re-enabling alike.
    expect(
      (await store().updateSchedule(s.id, { cron_expr: "45 9 * * *", next_run_at: 4_000_000_000 }, { userId: "ua" }))
        .next_run_at,
    ).toBe(4_000_000_000);
    await store().disableSchedule(s.id, { userId: "ua" });
    expect(
      await store().updateSchedule(s.id, { enabled: true, next_run_at: 4_000_000_060 }, { userId: "ua" }),
    ).toMatchObject({ enabled: true, next_run_at: 4_000_000_060 });
    await expect(store().updateSchedule(s.id, { timezone: "Not/AZone" }, { userId: "ua" })).rejects.toThrow(
      ValidationError,
    );
    await store().createSchedule({ ...base, name: "taken" }, { userId: "ua" });
    await expect(store().updateSchedule(s.id, { name: "taken" }, { userId: "ua" })).rejects.toThrow(ConflictError);
    const off = await store().disableSchedule(s.id, { userId: "ua" }, "paused by hand");
    expect(off).toMatchObject({ enabled: false, disabled_reason: "paused by hand" });
    const on = await store().enableSchedule(s.id, { userId: "ua" });
    expect(on).toMatchObject({ enabled: true, disabled_reason: null, next_run_at: expect.any(Number) });
  });

  it("scopes every call to its user: another user's schedule is not found, and stays as it was", async () => {
    const mine = await store().createSchedule({ ...base, name: "private" }, { userId: "owner-a" });
    const b = { userId: "owner-b" };
    expect(await store().getSchedule(mine.id, b)).toBeNull();
    await expect(store().updateSchedule(mine.id, { enabled: false }, b)).rejects.toThrow(NotFoundError);
    await expect(store().deleteSchedule(mine.id, b)).rejects.toThrow(NotFoundError);
    await expect(store().listScheduleRuns(mine.id, {}, b)).rejects.toThrow(NotFoundError);
    expect((await store().listSchedules({}, b)).data.map((s) => s.id)).not.toContain(mine.id);
    expect(await store().getSchedule(mine.id, { userId: "owner-a" })).toMatchObject({ enabled: true, name: "private" });
    const shared = await store().createSchedule({ ...base, name: "for-everyone" }, { userId: null });
    expect(await store().getSchedule(shared.id, { ...b, includeShared: true })).not.toBeNull();
    await expect(store().updateSchedule(shared.id, { enabled: false }, b)).rejects.toThrow(NotFoundError);
    await store().deleteSchedule(mine.id, { userId: "owner-a" });
    expect(await store().getSchedule(mine.id)).toBeNull();
  });

  it("paginates within bounds", async () => {
    for (let i = 0; i < 5; i++) await store().createSchedule({ ...base, name: `page-${i}` }, { userId: "pager" });
    const page = await store().listSchedules({ limit: 2, page: 2 }, { userId: "pager" });
    expect(page).toMatchObject({ page: 2, limit: 2, total_count: 5, total_pages: 3 });
    expect(page.data).toHaveLength(2);
    await expect(store().listSchedules({ limit: 1001 })).rejects.toThrow(/limit/);
  });

  it("DST through the tick: a 02:30 New York schedule ticked every 30 minutes runs once a day across spring-forward and fall-back", async () => {
    await t.query(`UPDATE "${t.schema}".agno_schedules SET enabled = FALSE`);
    for (const [from, to, expected] of [
      [
        "2026-03-07T05:00:00Z",
        "2026-03-09T12:00:00Z",
        ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"],
      ],
      [
        "2026-10-31T05:00:00Z",
        "2026-11-02T12:00:00Z",
        ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"],
      ],
    ] as const) {
      const cron = from.startsWith("2026-03") ? "30 2 * * *" : "30 1 * * *";
      const s = await store().createSchedule(
        { ...base, name: `dst-${from.slice(0, 7)}`, cron_expr: cron, timezone: "America/New_York" },
        { userId: "dst" },
      );
      await store().updateSchedule(s.id, { next_run_at: Date.parse(expected[0]) / 1000 });
      for (let at = Date.parse(from) / 1000; at <= Date.parse(to) / 1000; at += 1800)
        await runDueSchedules(t.db, { now: () => at }, at * 1000);
      const runs = (await store().listScheduleRuns(s.id, { limit: 100 })).data;
      expect(runs.map((r) => new Date(r.scheduled_for! * 1000).toISOString()).sort()).toEqual(expected);
      await store().disableSchedule(s.id);
    }
  }, 120_000);

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
    expect(await fixed.schemaVersion()).toBe("3.0.2");
    await expect(fixed.schedules.createSchedule({ ...base, name: "nightly" }, { userId: "u1" })).rejects.toThrow(
      ConflictError,
    );
  });
});
