import { MemoryDb, MemoryTables } from "../../src/db/memory/index.js";
import type { ContractDb } from "./db-contract.js";

/** A fresh MemoryDb for the Db contract; the clock's work is done on its rows, as SQL does on Postgres'. */
export function memoryContractDb(): ContractDb {
  const tables = new MemoryTables();
  return {
    db: new MemoryDb({ tables }),
    setRunUpdatedAt: async (runId, at) => void tables.runs.set(runId, { ...tables.runs.get(runId)!, updated_at: at }),
    ageRunEvents: async (runId, seconds, belowIndex = Infinity) =>
      void tables.runEvents.set(
        runId,
        tables.runEvents
          .get(runId)!
          .map((e) => (e.index < belowIndex ? { ...e, created_at: e.created_at - seconds } : e)),
      ),
    expireJobLease: async (jobId) => {
      const job = tables.jobs.get(jobId)!;
      tables.jobs.set(jobId, { ...job, lease_expires_at: job.lease_expires_at! - 1000 });
    },
    ageJobs: async (userId, seconds) => {
      for (const job of tables.jobs.values())
        if (job.user_id === userId)
          tables.jobs.set(job.id, {
            ...job,
            available_at: job.available_at - seconds,
            created_at: job.created_at - seconds,
          });
    },
    putStoredMemory: async (row) =>
      void tables.memories.set(row.memory_id, {
        ...row,
        memory: row.memory as string,
        topics: null,
        created_at: 1,
        updated_at: 1,
      }),
    close: async () => {},
  };
}
