import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MigrationManager } from "../../src/db/migration-manager.js";
import { ConfirmationRequiredError, MigrationRequiredError } from "../../src/errors.js";
import { makeLegacySession, type LegacyLayout } from "../fixtures/legacy-2x.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { expectedRuns, seedLegacy } from "../support/legacy-seed.js";

const layouts: LegacyLayout[] = ["2.0", "2.3", "2.9"];

function fixture(layout: LegacyLayout) {
  return [
    makeLegacySession({
      sessionId: "agent-s",
      kind: "agent",
      runs: 4,
      userId: "alice",
      layout,
      withRunMissingId: true,
    }),
    makeLegacySession({ sessionId: "team-s", kind: "team", runs: 3, userId: "bob", layout }),
    makeLegacySession({ sessionId: "wf-s", kind: "workflow", runs: 2, userId: null, layout }),
    makeLegacySession({ sessionId: "empty-s", kind: "agent", runs: 0, userId: "alice", layout }),
  ];
}

/** SPEC M1-M3: agno 2.x databases of each layout read before migration and migrate safely. */
describe.each(dbTargets())("migration from agno 2.x on $name", (target) => {
  let open: TestDb[] = [];
  const fresh = () => {
    const t = openTestDb(target);
    open.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of open) await t.close();
    open = [];
  });

  const tableRuns = (t: TestDb) =>
    t.query<{
      run_id: string;
      session_id: string;
      run_type: string;
      user_id: string | null;
      parent_run_id: string | null;
      run_index: string;
      run_data: unknown;
    }>(
      `SELECT run_id, session_id, run_type, user_id, parent_run_id, run_index, run_data FROM "${t.schema}".agno_runs ORDER BY session_id, run_index`,
    );

  it.each(layouts)("layout %s: merged reads before, faithful copy after, legacy column kept", async (layout) => {
    const t = fresh();
    const rows = fixture(layout);
    await seedLegacy(t, layout, rows);
    expect(await t.db.init()).toBe("migration_required");

    // Before migration: reads come from the blob, listings across sessions refuse to be partial.
    const before = await t.db.getSession("team-s");
    expect(before!.runs.map((r) => r.run_id)).toEqual(rows[1]!.runs!.map((r) => r.run_id));
    expect((await t.db.getSession("agent-s"))!.runs).toHaveLength(4); // the run without run_id is skipped
    await expect(t.db.getRuns()).rejects.toThrow(MigrationRequiredError);
    const teamRuns = await t.db.getRuns({ sessionId: "team-s", parentRunId: null, sortOrder: "asc" });
    expect(teamRuns.data.map((r) => r.run_type)).toEqual(["team", "team", "team"]);
    expect((await t.db.getRun("agent-s-run-2"))!.run_index).toBe(3); // position 3: the id-less run sits at 1

    // A run written before migration goes to agno_runs after the legacy positions; reads merge.
    await t.db.upsertRun({
      run_id: "agent-s-new",
      session_id: "agent-s",
      agent_id: "agent-agent-s",
      status: "COMPLETED",
      messages: [],
    });
    const merged = await t.db.getSession("agent-s");
    expect(merged!.runs.map((r) => r.run_id)).toEqual([
      "agent-s-run-0",
      "agent-s-run-1",
      "agent-s-run-2",
      "agent-s-run-3",
      "agent-s-new",
    ]);

    const progress: number[] = [];
    const result = await new MigrationManager(t.db).up({
      batchSize: 2,
      onProgress: (p) => progress.push(p.sessionsDone),
    });
    const expected = expectedRuns(rows);
    expect(result.default).toMatchObject({
      fromVersion: layout === "2.0" ? null : expect.stringMatching(/^2\./),
      toVersion: "3.0.9",
      runsCopied: expected.length,
    });
    expect(progress).toEqual([2, 3]); // three sessions hold runs, two per batch
    expect(await t.db.init()).toBe("current");

    const copied = await tableRuns(t);
    expect(copied).toHaveLength(expected.length + 1);
    for (const want of expected) {
      const got = copied.find((r) => r.run_id === want.run_id)!;
      const session = rows.find((r) => r.session_id === want.session_id)!;
      expect(got.session_id).toBe(want.session_id);
      expect(Number(got.run_index)).toBe(want.run_index);
      expect(got.user_id).toBe(session.user_id);
      expect(got.run_data).toEqual(want.run);
      expect(got.parent_run_id).toBe((want.run.parent_run_id as string | undefined) ?? null);
      expect(got.run_type).toBe(want.run.agent_id ? "agent" : want.run.team_id ? "team" : "workflow");
    }
    // Team member runs precede their team run in 2.x's array, and keep that order.
    expect(copied.filter((r) => r.session_id === "team-s").map((r) => r.run_type)).toEqual([
      "agent",
      "team",
      "agent",
      "agent",
      "team",
      "agent",
      "team",
    ]);
    const column = await t.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'agno_sessions' AND column_name = 'runs'`,
      [t.schema],
    );
    expect(column).toHaveLength(1);
    expect((await t.db.getRuns({ limit: 1000 })).total_count).toBe(expected.length + 1);
    expect((await t.db.getSession("agent-s"))!.runs.map((r) => r.run_id)).toEqual(merged!.runs.map((r) => r.run_id));
  });

  it("a second up() changes nothing", async () => {
    const t = fresh();
    await seedLegacy(t, "2.9", fixture("2.9"));
    await new MigrationManager(t.db).up();
    const snapshot = await t.query(
      `SELECT run_id, run_index, run_data, created_at, updated_at, xmin::text AS x FROM "${t.schema}".agno_runs ORDER BY run_id`,
    );
    const again = await new MigrationManager(t.db).up();
    expect(again.default!.runsCopied).toBe(0);
    expect(
      await t.query(
        `SELECT run_id, run_index, run_data, created_at, updated_at, xmin::text AS x FROM "${t.schema}".agno_runs ORDER BY run_id`,
      ),
    ).toEqual(snapshot);
  });

  it("a run deleted after migration stays deleted: not re-copied, scrubbed from the backup, cleanup still allowed", async () => {
    const t = fresh();
    await seedLegacy(t, "2.0", fixture("2.0"));
    await new MigrationManager(t.db).up();
    await t.db.deleteRun("team-s-run-1");
    expect((await new MigrationManager(t.db).up()).default!.runsCopied).toBe(0);
    expect(await t.db.getRun("team-s-run-1")).toBeNull();
    const [blob] = await t.query<{ ids: string[] }>(
      `SELECT array_agg(e.v->>'run_id') AS ids FROM "${t.schema}".agno_sessions s, jsonb_array_elements(s.runs::jsonb) e(v) WHERE s.session_id = 'team-s'`,
    );
    expect(blob!.ids).not.toContain("team-s-run-1");
    expect(blob!.ids).toContain("team-s-run-1-m0"); // member runs are separate entries: not deleted with it
    await t.db.cleanupLegacyRunsColumn({ force: true });
  });

  it("an up() stopped part-way leaves readable data and the next up() completes without duplicates", async () => {
    const t = fresh();
    const rows = Array.from({ length: 9 }, (_, i) =>
      makeLegacySession({ sessionId: `s${i}`, kind: i % 3 === 1 ? "team" : "agent", runs: 3, userId: "u" }),
    );
    await seedLegacy(t, "2.9", rows);
    const stop = new AbortController();
    await expect(
      new MigrationManager(t.db).up({
        batchSize: 4,
        signal: stop.signal,
        onProgress: (p) => p.sessionsDone >= 4 && stop.abort(),
      }),
    ).rejects.toThrow();
    const partial = await tableRuns(t);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(expectedRuns(rows).length);
    expect(await t.db.init()).toBe("migration_required");
    for (const row of rows) {
      expect((await t.db.getSession(row.session_id))!.runs.map((r) => r.run_id)).toEqual(
        row.runs!.map((r) => r.run_id),
      );
    }
    const rest = await new MigrationManager(t.db).up();
    expect(rest.default!.runsCopied).toBe(expectedRuns(rows).length - partial.length);
    const all = await tableRuns(t);
    expect(all.map((r) => r.run_id).sort()).toEqual(
      expectedRuns(rows)
        .map((r) => r.run_id)
        .sort(),
    );
  });

  it("cleanup refuses without force and before migration, then drops the column and reads still work", async () => {
    const t = fresh();
    const rows = fixture("2.3");
    await seedLegacy(t, "2.3", rows);
    await expect(t.db.cleanupLegacyRunsColumn({ force: false })).rejects.toThrow(ConfirmationRequiredError);
    await expect(t.db.cleanupLegacyRunsColumn({} as never)).rejects.toThrow(ConfirmationRequiredError);
    await expect(t.db.cleanupLegacyRunsColumn({ force: true })).rejects.toThrow(MigrationRequiredError);
    expect((await t.db.getSession("team-s"))!.runs).toHaveLength(7);
    await new MigrationManager(t.db).up();
    await t.db.cleanupLegacyRunsColumn({ force: true });
    const column = await t.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'agno_sessions' AND column_name = 'runs'`,
      [t.schema],
    );
    expect(column).toHaveLength(0);
    expect((await t.db.getSession("team-s"))!.runs.map((r) => r.run_id)).toEqual(rows[1]!.runs!.map((r) => r.run_id));
    await t.db.cleanupLegacyRunsColumn({ force: true }); // nothing left to drop: a no-op
  });

  it("deleting a run that lives only in the blob asks for migration instead of pretending", async () => {
    const t = fresh();
    await seedLegacy(t, "2.9", fixture("2.9"));
    await expect(t.db.deleteRun("agent-s-run-0")).rejects.toThrow(MigrationRequiredError);
    expect((await t.db.getSession("agent-s"))!.runs).toHaveLength(4);
  });
});

/** A real crash: the migration CLI killed with SIGKILL mid-way, then run again. */
describe.each(dbTargets())("npm run migrate killed part-way on $name", (target) => {
  it("resumes after kill -9 and ends with every run exactly once", async () => {
    const t = openTestDb(target);
    try {
      const rows = Array.from({ length: 40 }, (_, i) =>
        makeLegacySession({ sessionId: `k${String(i).padStart(2, "0")}`, kind: "agent", runs: 5, userId: "u" }),
      );
      await seedLegacy(t, "2.9", rows);
      const first = runMigrateCli(target.url, t.schema, "--batch-size", "1");
      await first.waitFor(/progress sessions=3\//);
      first.child.kill("SIGKILL");
      await first.exited;
      const partial = await t.query<{ n: string }>(`SELECT count(*) AS n FROM "${t.schema}".agno_runs`);
      expect(Number(partial[0]!.n)).toBeGreaterThan(0);
      expect(Number(partial[0]!.n)).toBeLessThan(200);
      const second = runMigrateCli(target.url, t.schema);
      expect(await second.exited).toBe(0);
      const ids = await t.query<{ run_id: string }>(`SELECT run_id FROM "${t.schema}".agno_runs`);
      expect(ids.map((r) => r.run_id).sort()).toEqual(
        expectedRuns(rows)
          .map((r) => r.run_id)
          .sort(),
      );
      expect(await t.db.init()).toBe("current");
    } finally {
      await t.close();
    }
  });
});

function runMigrateCli(url: string, schema: string, ...args: string[]) {
  const child = spawn(
    process.execPath,
    [
      resolve(import.meta.dirname, "../../node_modules/tsx/dist/cli.mjs"),
      "scripts/migrate.ts",
      "--schema",
      schema,
      ...args,
    ],
    {
      cwd: resolve(import.meta.dirname, "../.."),
      env: { ...process.env, DATABASE_URL: url },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const waiters: Array<[RegExp, () => void]> = [];
  const onData = (d: Buffer) => {
    out += d;
    for (const [re, done] of waiters) if (re.test(out)) done();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    child,
    exited,
    waitFor: (re: RegExp) =>
      new Promise<void>((done, fail) => {
        if (re.test(out)) return done();
        waiters.push([re, done]);
        void exited.then(() => fail(new Error(`migrate exited before ${re}:\n${out}`)));
      }),
  };
}
