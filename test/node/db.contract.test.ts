import { describe, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import { describeDbContract } from "../support/db-contract.js";
import { dbTargetsWithTcp, openTestDb } from "../support/db-targets.js";
import { memoryContractDb } from "../support/memory-contract-db.js";

/** The Db port's contract (test/support/db-contract.ts) on every adapter: Postgres (PGlite, and the real server when configured, through the Neon driver and through node-postgres) and MemoryDb. */
for (const target of dbTargetsWithTcp()) {
  describeDbContract(`postgres (${target.name})`, () => {
    const t = openTestDb(target);
    return {
      db: t.db,
      setRunUpdatedAt: async (runId, at) =>
        void (await t.query(`UPDATE "${t.schema}".agno_runs SET updated_at = $2 WHERE run_id = $1`, [runId, at])),
      ageRunEvents: async (runId, seconds, belowIndex) =>
        void (await t.query(
          `UPDATE "${t.schema}".agno_run_events SET created_at = created_at - $2 WHERE run_id = $1 AND event_index < $3`,
          [runId, seconds, belowIndex ?? 2 ** 31 - 1],
        )),
      expireJobLease: async (jobId) =>
        void (await t.query(
          `UPDATE "${t.schema}".agno_jobs SET lease_expires_at = lease_expires_at - 1000 WHERE id = $1`,
          [jobId],
        )),
      ageJobs: async (userId, seconds) =>
        void (await t.query(
          `UPDATE "${t.schema}".agno_jobs SET available_at = available_at - $2, created_at = created_at - $2 WHERE user_id = $1`,
          [userId, seconds],
        )),
      putStoredMemory: async (row) =>
        void (await t.query(
          `INSERT INTO "${t.schema}".agno_memories (memory_id, user_id, memory, created_at, updated_at) VALUES ($1, $2, $3::jsonb, 1, 1)`,
          [row.memory_id, row.user_id, JSON.stringify(row.memory)],
        )),
      close: () => t.close(),
    };
  });
}

describeDbContract("memory", memoryContractDb);

/** What only MemoryDb has to say: reads that never alias its rows. */
describe("MemoryDb beyond the contract", () => {
  it("hands out copies: changing what a read returned changes nothing stored", async () => {
    const db = new MemoryDb();
    await db.upsertSession({ session_id: "s", session_type: "agent", session_data: { session_state: { n: 1 } } });
    const run = await db.upsertRun({
      run_id: "r",
      session_id: "s",
      status: "COMPLETED",
      messages: [{ role: "user", content: "hi" }],
    });
    run.run_data.messages!.push({ role: "assistant", content: "injected" });
    (await db.getSession("s"))!.record.session_data!.session_state = { n: 2 };
    expect((await db.getRun("r"))!.run_data.messages).toHaveLength(1);
    expect((await db.getSession("s"))!.record.session_data!.session_state).toEqual({ n: 1 });
  });
});
