import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, QueueFullError, ValidationError } from "../../src/errors.js";
import { GroupEnqueue } from "../../src/queue/group-enqueue.js";
import type { EnqueueOutcome, EnqueueRunInput } from "../../src/queue/types.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { enqueueInputs } from "../support/enqueue-input.js";

/**
 * Group commit of enqueues (the JobQueue object's front door) on every Postgres the machine
 * offers: a burst is written in batches, and each request gets the outcome it would have had alone.
 */
describe.each(dbTargets())("GroupEnqueue on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());

  const input = enqueueInputs("ge", { payload: { stream: false }, max_depth: 100_000, new_session: true });

  /** The store as the group sees it, recording each call's size. */
  function recorded(db: TestDb["db"] = t.db) {
    const calls: Array<{ kind: "one" | "many"; size: number }> = [];
    const store = {
      enqueueRun: (i: EnqueueRunInput) => (calls.push({ kind: "one", size: 1 }), db.jobs.enqueueRun(i)),
      enqueueRuns: (is: EnqueueRunInput[]) => (calls.push({ kind: "many", size: is.length }), db.jobs.enqueueRuns(is)),
    };
    return { calls, store };
  }

  it("writes a burst in batches, each enqueue with its own outcome: created, repeat, 422, 404", async () => {
    await t.db.jobs.enqueueRun(input({ session_id: "ge-theirs", user_id: "u2", new_session: false }));
    const { calls, store } = recorded();
    const group = new GroupEnqueue(() => store, { inFlight: 1, minBatch: 4 });
    const plain = Array.from({ length: 40 }, () => input());
    const keyed = input({ idempotency_key: "ge-key", request_hash: "h1" });
    const inputs = [
      ...plain.slice(0, 20),
      keyed,
      { ...input({ idempotency_key: "ge-key", request_hash: "h1" }) }, // the same request again: the first job
      input({ idempotency_key: "ge-key", request_hash: "h2" }), // the key with another body: 422
      input({ session_id: "ge-theirs", new_session: false }), // another user's session: 404
      ...plain.slice(20),
    ];
    const outcomes = await Promise.all(inputs.map((i) => group.enqueue(i)));
    const jobOf = (o: EnqueueOutcome) => ("job" in o ? o : undefined);

    expect(calls.filter((c) => c.kind === "many").length).toBeGreaterThan(0);
    expect(calls.length).toBeLessThan(inputs.length / 2);
    expect(calls.reduce((s, c) => s + c.size, 0)).toBe(inputs.length);
    for (const [i, o] of outcomes.entries()) {
      const sent = inputs[i]!;
      if (plain.includes(sent)) {
        expect(jobOf(o)).toMatchObject({
          created: true,
          job: { session_id: sent.session_id, payload: { run_id: sent.payload.run_id } },
        });
        expect((await t.db.getRun(sent.payload.run_id))?.status).toBe("PENDING");
      }
    }
    const first = jobOf(outcomes[20]!)!;
    expect(first.created).toBe(true);
    expect(jobOf(outcomes[21]!)).toEqual({ created: false, job: first.job });
    expect((outcomes[22] as { error: Error }).error).toBeInstanceOf(ValidationError);
    expect((outcomes[23] as { error: Error }).error).toBeInstanceOf(NotFoundError);
    // Refused and repeated requests wrote nothing: no run, no session.
    for (const i of [21, 22, 23]) expect(await t.db.getRun(inputs[i]!.payload.run_id)).toBeNull();
    for (const i of [21, 22]) expect(await t.db.getSession(inputs[i]!.session_id)).toBeNull();
  });

  it("a full queue refuses the batch's overflow with 429 and writes nothing for it", async () => {
    const own = openTestDb(target);
    try {
      await own.db.init();
      const { calls, store } = recorded(own.db);
      const group = new GroupEnqueue(() => store, { inFlight: 1, minBatch: 2 });
      const inputs = Array.from({ length: 12 }, () => input({ max_depth: 5 }));
      const outcomes = await Promise.all(inputs.map((i) => group.enqueue(i)));
      expect(calls.some((c) => c.kind === "many")).toBe(true);
      const created = outcomes.filter((o) => "job" in o);
      expect(created).toHaveLength(5);
      for (const o of outcomes.filter((o) => "error" in o))
        expect((o as { error: Error }).error).toBeInstanceOf(QueueFullError);
      expect((await own.db.jobs.queueStats()).pending).toBe(5);
      const runs = await Promise.all(inputs.map((i) => own.db.getRun(i.payload.run_id)));
      expect(runs.filter(Boolean)).toHaveLength(5);
    } finally {
      await own.close();
    }
  });

  it("a batch whose transaction fails gives every member the error, and the next enqueue goes through", async () => {
    let failNext = true;
    const group = new GroupEnqueue(
      () => ({
        enqueueRun: (i) => t.db.jobs.enqueueRun(i),
        enqueueRuns: (is) =>
          failNext ? ((failNext = false), Promise.reject(new Error("connection reset"))) : t.db.jobs.enqueueRuns(is),
      }),
      { inFlight: 1, minBatch: 2 },
    );
    const burst = Array.from({ length: 6 }, () => input());
    const outcomes = await Promise.all(burst.map((i) => group.enqueue(i)));
    const failed = outcomes.filter((o) => "error" in o);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const o of failed) expect((o as { error: Error }).error.message).toBe("connection reset");
    expect(outcomes.filter((o) => "job" in o).length).toBe(burst.length - failed.length);
    const after = await group.enqueue(input());
    expect("job" in after && after.created).toBe(true);
  });
});
