import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/agent/liveness.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { enqueueInputs } from "../support/enqueue-input.js";

/**
 * The liveness statements of interactive runs on every Postgres the machine offers: the heartbeat,
 * and the sweep the cron tick runs (bounded, and never touching a run its job still holds). The
 * user's path (HTTP, the cron trigger, a killed `npm run dev`) is in test/workers/run-liveness.test.ts
 * and test/node/interrupted-runs.e2e.test.ts.
 */
describe.each(dbTargets())("run liveness on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());

  const now = () => Math.floor(Date.now() / 1000);
  let n = 0;
  /** A run stored as RUNNING, its heartbeat `age` seconds old. */
  const running = async (age: number, status = "RUNNING") => {
    const id = `lv-${n++}`;
    await t.db.upsertSession({ session_id: `${id}-s`, session_type: "agent", agent_id: "a" });
    await t.db.upsertRun({ run_id: id, session_id: `${id}-s`, agent_id: "a", status, messages: [] });
    await t.query(`UPDATE "${t.schema}".agno_runs SET updated_at = $2 WHERE run_id = $1`, [id, now() - age]);
    return id;
  };
  const row = async (id: string) => (await t.query<{ status: string; updated_at: string }>(`SELECT status, updated_at FROM "${t.schema}".agno_runs WHERE run_id = $1`, [id]))[0]!;
  const sweep = (limit?: number, runId?: string) => t.db.interruptStaleRuns({ ...INTERRUPTED, staleBefore: now() - 30, ...(limit ? { limit } : {}), ...(runId ? { runId } : {}) });

  it("a heartbeat freshens a RUNNING run's row, and says false for a run no longer RUNNING", async () => {
    const live = await running(100);
    expect(await t.db.heartbeatRun(live)).toBe(true);
    expect(Number((await row(live)).updated_at)).toBeGreaterThanOrEqual(now() - 1);
    const paused = await running(100, "PAUSED");
    expect(await t.db.heartbeatRun(paused)).toBe(false);
    expect(Number((await row(paused)).updated_at)).toBeLessThan(now() - 50);
  });

  it("ends at most `limit` stale runs per statement, oldest first, each with one closing RunError after its events", async () => {
    await sweep(1000); // whatever an earlier test left
    const oldest = await running(300);
    await t.db.appendRunEvents(oldest, 0, [{ event: "RunStarted", run_id: oldest }]);
    const older = await running(200);
    const fresh = await running(5);
    expect((await sweep(1)).map((r) => r.run_id)).toEqual([oldest]);
    expect((await row(older)).status).toBe("RUNNING");
    expect((await sweep(10)).map((r) => r.run_id)).toEqual([older]);
    expect(await sweep(10)).toEqual([]);
    expect((await row(fresh)).status).toBe("RUNNING");
    const stored = await t.db.getRun(oldest);
    expect(stored).toMatchObject({ status: "ERROR", run_data: { status: "ERROR", content: INTERRUPTED.message, error: { kind: "interrupted", type: INTERRUPTED.errorType } } });
    expect((await t.db.getRunEvents(oldest, { afterIndex: -1 })).map((e) => e.event)).toEqual([
      { event: "RunStarted", run_id: oldest },
      expect.objectContaining({ event: "RunError", run_id: oldest, session_id: `${oldest}-s`, agent_id: "a", error_kind: "interrupted", content: INTERRUPTED.message }),
    ]);
  });

  it("leaves a run whose job is PENDING or RUNNING (the queue recovers it), and ends one whose job is over", async () => {
    const input = enqueueInputs("lvq");
    const held = [];
    for (const status of ["PENDING", "RUNNING", "FAILED"]) {
      const { job } = await t.db.jobs.enqueueRun(input());
      await t.query(`UPDATE "${t.schema}".agno_jobs SET status = $2 WHERE id = $1`, [job.id, status]);
      await t.query(`UPDATE "${t.schema}".agno_runs SET status = 'RUNNING', updated_at = $2 WHERE run_id = $1`, [job.payload.run_id, now() - 300]);
      held.push(job.payload.run_id);
    }
    const [pending, leased, failed] = held;
    expect((await sweep(1000, failed)).map((r) => r.run_id)).toEqual([failed]);
    expect(await sweep(1000, pending)).toEqual([]);
    expect(await sweep(1000, leased)).toEqual([]);
    expect((await row(pending!)).status).toBe("RUNNING");
    expect((await row(leased!)).status).toBe("RUNNING");
  });
});
