import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/agent/liveness.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { enqueueInputs } from "../support/enqueue-input.js";

/**
 * The liveness sweep on every Postgres the machine offers: it never touches a run its job still
 * holds (the durable queue is Postgres'). The heartbeat and the bounded sweep every adapter answers
 * are in the Db contract (test/support/db-contract.ts). The
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
  const row = async (id: string) =>
    (
      await t.query<{ status: string; updated_at: string }>(
        `SELECT status, updated_at FROM "${t.schema}".agno_runs WHERE run_id = $1`,
        [id],
      )
    )[0]!;
  const sweep = (limit?: number, runId?: string) =>
    t.db.interruptStaleRuns({
      ...INTERRUPTED,
      staleBefore: now() - 30,
      ...(limit ? { limit } : {}),
      ...(runId ? { runId } : {}),
    });

  it("leaves a run whose job is PENDING or RUNNING (the queue recovers it), and ends one whose job is over", async () => {
    const input = enqueueInputs("lvq");
    const held = [];
    for (const status of ["PENDING", "RUNNING", "FAILED"]) {
      const { job } = await t.db.jobs.enqueueRun(input());
      await t.query(`UPDATE "${t.schema}".agno_jobs SET status = $2 WHERE id = $1`, [job.id, status]);
      await t.query(`UPDATE "${t.schema}".agno_runs SET status = 'RUNNING', updated_at = $2 WHERE run_id = $1`, [
        job.payload.run_id,
        now() - 300,
      ]);
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
