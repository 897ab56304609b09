import { describe, expect, it } from "vitest";
import { Dispatcher, type DispatcherOptions } from "../../src/queue/dispatcher.js";
import type { JobRecord } from "../../src/queue/types.js";

/**
 * The dispatcher's claim policy over a stub store that records each claim's limit (the stores
 * themselves are the Db contract's, test/support/job-store-contract.ts, on every adapter): short
 * jobs are claimed in batches, not one statement per job that ends, and a slot is never held back
 * for long.
 */
function memoryStore(pending: number) {
  const claims: number[] = [];
  let next = 0;
  const job = (): JobRecord =>
    ({
      id: `j${next++}`,
      attempt: 1,
      max_attempts: 3,
      payload: { run_id: `r${next}`, message: "m" },
    }) as unknown as JobRecord;
  const store = {
    claims,
    async claimJobs({ limit }: { limit: number }) {
      claims.push(limit);
      const n = Math.min(limit, pending);
      pending -= n;
      return Array.from({ length: n }, job);
    },
    expireExhaustedJobs: async () => [],
    heartbeatJob: async () => true,
    retryJob: async () => true,
    finishJob: async () => true,
  };
  return store as typeof store & DispatcherOptions["store"];
}

/** Jobs that end when the test says so. */
function gate() {
  const waiting = new Map<string, () => void>();
  return {
    execute: (job: JobRecord) =>
      new Promise<{ status: "COMPLETED" }>((resolve) => waiting.set(job.id, () => resolve({ status: "COMPLETED" }))),
    end(n: number) {
      for (const [id, done] of [...waiting].slice(0, n)) {
        waiting.delete(id);
        done();
      }
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe("Dispatcher claims", () => {
  it("while jobs run, waits for claimBatch free slots and claims them in one statement", async () => {
    const store = memoryStore(100);
    const jobs = gate();
    const d = new Dispatcher({
      store,
      execute: jobs.execute,
      workerId: "w",
      concurrency: 8,
      claimBatch: 4,
      claimWaitMs: 60_000,
    });
    expect(await d.fill()).toBe(8);
    jobs.end(1);
    await settle();
    expect(await d.fill()).toBe(0); // one slot free, the last claim just now: held for a batch
    jobs.end(2);
    await settle();
    expect(await d.fill()).toBe(0);
    jobs.end(1);
    await settle();
    expect(await d.fill()).toBe(4);
    expect(store.claims).toEqual([8, 4]);
    expect(d.active).toBe(8);
  });

  it("claims a single free slot once claimWaitMs has passed, and next() settles for it", async () => {
    const store = memoryStore(100);
    const jobs = gate();
    const d = new Dispatcher({
      store,
      execute: jobs.execute,
      workerId: "w",
      concurrency: 8,
      claimBatch: 4,
      claimWaitMs: 30,
    });
    expect(await d.fill()).toBe(8);
    jobs.end(1);
    await d.next(); // the job that ended
    expect(await d.fill()).toBe(0);
    // No job ends now: next() still settles, once the held slot may be claimed.
    await d.next();
    expect(await d.fill()).toBe(1);
    expect(store.claims).toEqual([8, 1]);
  });

  it("claims at once when nothing runs or the batch is one slot", async () => {
    const store = memoryStore(3);
    const jobs = gate();
    const d = new Dispatcher({ store, execute: jobs.execute, workerId: "w", concurrency: 4, claimWaitMs: 60_000 });
    expect(await d.fill()).toBe(3); // concurrency 4: a batch of one (4 / 8, at least 1)
    jobs.end(1);
    await settle();
    expect(await d.fill()).toBe(0); // claimed: the store is empty
    expect(store.claims).toEqual([4, 2]);
    jobs.end(2);
    await d.idle();
    expect(await d.fill()).toBe(0);
    expect(store.claims).toEqual([4, 2, 4]);
  });
});
