import { describe, expect, it, vi } from "vitest";
import { Dispatcher, type DispatcherOptions } from "../../src/queue/dispatcher.js";
import type { JobRecord, Lease } from "../../src/queue/types.js";

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
    // The clock moves only when the test moves it: a loaded machine cannot let the wait pass early.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    try {
      expect(await d.fill()).toBe(8);
      jobs.end(1);
      await d.next(); // the job that ended
      expect(await d.fill()).toBe(0);
      // No job ends now: next() still settles, once the held slot may be claimed.
      let settled = false;
      const next = d.next().then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(29);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await next;
      expect(await d.fill()).toBe(1);
      expect(store.claims).toEqual([8, 1]);
    } finally {
      vi.useRealTimers();
    }
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

describe("Dispatcher onJobEnded", () => {
  it("tells the hook about each job whose end is stored, not about a retry or a stale lease; a failing hook harms nothing", async () => {
    const outcomes: Record<string, Awaited<ReturnType<DispatcherOptions["execute"]>>> = {
      j0: { status: "COMPLETED" },
      j1: { status: "COMPLETED", recorded: true },
      j2: { status: "FAILED", error: "again", retryable: true },
      j3: { status: "CANCELLED" },
      j4: { status: "FAILED", error: "stale" },
      j5: { status: "COMPLETED" },
    };
    const retried: string[] = [];
    const store: DispatcherOptions["store"] = {
      ...memoryStore(6),
      retryJob: async (lease: Lease) => (retried.push(lease.id), true),
      // j4's lease was taken over: its end is not this worker's to store.
      finishJob: async (lease: Lease) => lease.id !== "j4",
    };
    const ended: string[] = [];
    const d = new Dispatcher({
      store,
      execute: async (job) => outcomes[job.id]!,
      workerId: "w",
      concurrency: 8,
      onJobEnded: async (job) => {
        ended.push(job.id);
        if (job.id === "j5") throw new Error("the hook failed");
      },
    });
    expect(await d.fill()).toBe(6);
    await d.idle();
    expect(retried).toEqual(["j2"]);
    expect(ended.sort()).toEqual(["j0", "j1", "j3", "j5"]);
    expect(d.active).toBe(0);
  });

  it("tells the hook about jobs the sweep failed because their worker died", async () => {
    const dead = { id: "dead", attempt: 3, max_attempts: 3, payload: { run_id: "r", message: "m" } } as JobRecord;
    const store: DispatcherOptions["store"] = { ...memoryStore(0), expireExhaustedJobs: async () => [dead] };
    const ended: string[] = [];
    const d = new Dispatcher({
      store,
      execute: async () => ({ status: "COMPLETED" }),
      workerId: "w",
      onJobEnded: async (job) => void ended.push(job.id),
    });
    await d.fill();
    expect(ended).toEqual(["dead"]);
  });
});
