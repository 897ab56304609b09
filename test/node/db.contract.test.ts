import { describeDbContract } from "../support/db-contract.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { memoryContractDb } from "../support/memory-contract-db.js";

/** The Db port's contract (test/support/db-contract.ts) on every adapter: Postgres (PGlite, and the real server when configured) and MemoryDb. */
for (const target of dbTargets()) {
  describeDbContract(`postgres (${target.name})`, () => {
    const t = openTestDb(target);
    return {
      db: t.db,
      setRunUpdatedAt: async (runId, at) => void (await t.query(`UPDATE "${t.schema}".agno_runs SET updated_at = $2 WHERE run_id = $1`, [runId, at])),
      ageRunEvents: async (runId, seconds, belowIndex) =>
        void (await t.query(`UPDATE "${t.schema}".agno_run_events SET created_at = created_at - $2 WHERE run_id = $1 AND event_index < $3`, [runId, seconds, belowIndex ?? 2 ** 31 - 1])),
      close: () => t.close(),
    };
  });
}

describeDbContract("memory", memoryContractDb);
