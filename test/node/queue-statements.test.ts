import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { Model } from "../../src/models/model.js";
import { emptyUsage } from "../../src/models/model.js";
import { executeRunJob } from "../../src/queue/executor.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { countStatements } from "../support/statement-counter.js";
import { enqueueInputs } from "../support/enqueue-input.js";

/**
 * The statements a background job costs Postgres, counted at the driver (every query a pooled
 * client sends, BEGIN and COMMIT included), so the figures BENCHMARKS.md gives for them hold: a
 * statement added to the path fails here.
 */
const count = countStatements((sql) => sql.split(/\s+/).slice(0, 3).join(" "));

/** A model that answers at once, in process: the count is the storage's alone. */
const instant: Model = {
  id: "instant",
  provider: "test",
  async *stream() {
    yield { type: "text", delta: "done" };
    yield { type: "finish", reason: "stop", usage: emptyUsage() };
  },
};

describe.each(dbTargets())("statements per background job on $name", (target) => {
  let t: TestDb;
  // No cancel poll within the run: a poll would be a statement that depends on the clock.
  let agent: Agent;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
    agent = new Agent({ name: "assistant", model: instant, db: t.db, cancelPollMs: 60_000 });
  });
  afterAll(() => t.close());

  const input = enqueueInputs("qs", { payload: { stream: false } });

  it("an enqueue into a new session is 1 statement, into an existing one a transaction of 4", async () => {
    await t.db.jobs.enqueueRun(input()); // the schema check and its caches, once per PostgresDb
    const fresh = input({ new_session: true });
    expect(await count(() => t.db.jobs.enqueueRun(fresh))).toHaveLength(1);
    const again = await count(() => t.db.jobs.enqueueRun(input({ session_id: fresh.session_id })));
    expect(again).toHaveLength(4);
    expect([again[0], again.at(-1)].map((q) => q?.toUpperCase())).toEqual(["BEGIN", "COMMIT"]);
  });

  it("a stream=false job is 4 statements from claim to finish: claim, one read, the RUNNING write, the last write that also ends the job", async () => {
    const { job } = await t.db.jobs.enqueueRun(input({ new_session: true }));
    let outcome: unknown;
    const statements = await count(async () => {
      // The earlier test's jobs are claimed too, in the same one statement.
      const [claimed] = (await t.db.jobs.claimJobs({ workerId: "W", limit: 1000, leaseSeconds: 30 })).filter(
        (j) => j.id === job.id,
      );
      outcome = await executeRunJob(
        claimed!,
        { id: job.id, attempt: claimed!.attempt, workerId: "W" },
        [agent],
        t.db,
        t.db.jobs,
      );
    });
    expect(outcome).toEqual({ status: "COMPLETED", recorded: true });
    expect(statements).toHaveLength(4);
    expect((await t.db.jobs.getJob(job.id))!.status).toBe("COMPLETED");
  });

  it("jobs claimed together read and start in one statement each: 4 jobs are 1 claim, 1 read, 1 RUNNING write, 4 last writes", async () => {
    const jobs = await Promise.all(
      Array.from({ length: 4 }, async () => (await t.db.jobs.enqueueRun(input({ new_session: true }))).job),
    );
    const outcomes: unknown[] = [];
    const statements = await count(async () => {
      const claimed = (await t.db.jobs.claimJobs({ workerId: "W", limit: 1000, leaseSeconds: 30 })).filter((j) =>
        jobs.some((x) => x.id === j.id),
      );
      expect(claimed).toHaveLength(4);
      // As the dispatcher starts them: all in one turn.
      outcomes.push(
        ...(await Promise.all(
          claimed.map((j) =>
            executeRunJob(j, { id: j.id, attempt: j.attempt, workerId: "W" }, [agent], t.db, t.db.jobs),
          ),
        )),
      );
    });
    expect(outcomes).toEqual(Array.from({ length: 4 }, () => ({ status: "COMPLETED", recorded: true })));
    expect(statements).toHaveLength(7);
    for (const job of jobs) expect((await t.db.getRun(job.payload.run_id))!.status).toBe("COMPLETED");
  });
});
