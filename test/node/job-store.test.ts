import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, QueueFullError, StatusConflictError, ValidationError } from "../../src/errors.js";
import { Agent } from "../../src/agent/agent.js";
import { Dispatcher } from "../../src/queue/dispatcher.js";
import { executeRunJob } from "../../src/queue/executor.js";
import type { EnqueueRunInput, JobRecord } from "../../src/queue/types.js";
import { scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { enqueueInputs } from "../support/enqueue-input.js";

/** The durable queue's storage contract (SPEC Q1-Q4), on every Postgres the machine offers. */
describe.each(dbTargets())("JobStore contract on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());

  const input = enqueueInputs("js");
  const expireLease = (id: string) =>
    t.query(`UPDATE "${t.schema}".agno_jobs SET lease_expires_at = lease_expires_at - 1000 WHERE id = $1`, [id]);

  it("commits job, PENDING run and session together; an owner mismatch or a full queue writes nothing", async () => {
    const { job, created } = await t.db.jobs.enqueueRun(
      input({ session_id: "js-own", payload: { run_id: "js-own-r", message: "hi" } }),
    );
    expect(created).toBe(true);
    expect(job).toMatchObject({ status: "PENDING", attempt: 0, session_id: "js-own", user_id: "u1" });
    expect((await t.db.getRun("js-own-r"))!.status).toBe("PENDING");
    expect((await t.db.getSession("js-own"))!.record.user_id).toBe("u1");
    await expect(t.db.jobs.enqueueRun(input({ session_id: "js-own", user_id: "u2" }))).rejects.toThrow(NotFoundError);
    const depth = (await t.db.jobs.queueStats()).pending;
    await expect(
      t.db.jobs.enqueueRun(
        input({ session_id: "js-full", payload: { run_id: "js-full-r", message: "x" }, max_depth: depth }),
      ),
    ).rejects.toThrow(QueueFullError);
    expect(await t.db.getSession("js-full")).toBeNull();
    expect(await t.db.getRun("js-full-r")).toBeNull();
    expect((await t.db.jobs.queueStats()).pending).toBe(depth);
  });

  it("deduplicates by (user, Idempotency-Key), also under concurrent submits; another body is a 422", async () => {
    const same = () =>
      input({
        idempotency_key: "key-1",
        request_hash: "h1",
        session_id: "js-idem",
        payload: { run_id: `js-idem-${crypto.randomUUID()}`, message: "m" },
      });
    const results = await Promise.all(Array.from({ length: 8 }, () => t.db.jobs.enqueueRun(same())));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    await expect(t.db.jobs.enqueueRun(input({ idempotency_key: "key-1", request_hash: "h2" }))).rejects.toThrow(
      ValidationError,
    );
    const otherUser = await t.db.jobs.enqueueRun(
      input({ idempotency_key: "key-1", request_hash: "h1", user_id: "u9" }),
    );
    expect(otherUser.created).toBe(true);
  });

  it("enqueues without a global lock: concurrent runs of one session get distinct run_index, and a racing repeat leaves no session behind", async () => {
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.db.jobs.enqueueRun(input({ session_id: "js-many", payload: { run_id: `js-many-${i}`, message: "m" } })),
      ),
    );
    expect(runs.every((r) => r.created)).toBe(true);
    const page = await t.db.getRuns({ sessionId: "js-many", limit: 100 });
    expect(page.data.map((r) => r.run_index).sort((a, b) => Number(a) - Number(b))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    // Each repeat brings a session id of its own (the client named none): only the first one's may stay.
    const repeats = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.db.jobs.enqueueRun(
          input({
            idempotency_key: "key-race",
            request_hash: "h",
            session_id: `js-race-${i}`,
            payload: { run_id: `js-race-r-${i}`, message: "m" },
          }),
        ),
      ),
    );
    const winner = repeats.find((r) => r.created)!;
    expect(repeats.filter((r) => r.created)).toHaveLength(1);
    for (let i = 0; i < 6; i++) {
      const kept = (await t.db.getSession(`js-race-${i}`)) !== null;
      expect(kept).toBe(`js-race-${i}` === winner.job.session_id);
      expect((await t.db.getRun(`js-race-r-${i}`)) !== null).toBe(`js-race-r-${i}` === winner.job.payload.run_id);
    }
    // A shared session (no owner) takes no user's background runs.
    await t.db.upsertSession({ session_id: "js-shared", session_type: "agent", created_at: 1 });
    await expect(t.db.jobs.enqueueRun(input({ session_id: "js-shared" }))).rejects.toThrow(NotFoundError);
  });

  it("enqueues into a session it names itself in one statement: all or nothing, repeats and a full queue write nothing", async () => {
    const fresh = (i: string, extra: Partial<EnqueueRunInput> = {}) =>
      input({
        new_session: true,
        session_id: `js-new-${i}`,
        payload: { run_id: `js-new-r-${i}`, message: "m" },
        ...extra,
      });
    const { job, created } = await t.db.jobs.enqueueRun(fresh("a"));
    expect(created).toBe(true);
    expect(job).toMatchObject({ status: "PENDING", session_id: "js-new-a", user_id: "u1" });
    expect(await t.db.getRun("js-new-r-a")).toMatchObject({ status: "PENDING", run_index: 0 });
    expect((await t.db.getSession("js-new-a"))!.record).toMatchObject({
      user_id: "u1",
      session_data: { session_name: "hello" },
    });
    // Racing repeats of one key, each with a session id of its own: one job, one session, one run.
    const repeats = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.db.jobs.enqueueRun(fresh(`race-${i}`, { idempotency_key: "key-new", request_hash: "h" })),
      ),
    );
    const winner = repeats.filter((r) => r.created);
    expect(winner).toHaveLength(1);
    expect(new Set(repeats.map((r) => r.job.id)).size).toBe(1);
    for (let i = 0; i < 8; i++) {
      const mine = `js-new-race-${i}` === winner[0]!.job.session_id;
      expect((await t.db.getSession(`js-new-race-${i}`)) !== null).toBe(mine);
      expect((await t.db.getRun(`js-new-r-race-${i}`)) !== null).toBe(mine);
    }
    await expect(
      t.db.jobs.enqueueRun(fresh("other-body", { idempotency_key: "key-new", request_hash: "h2" })),
    ).rejects.toThrow(ValidationError);
    expect(await t.db.getSession("js-new-other-body")).toBeNull();
    const depth = (await t.db.jobs.queueStats()).pending;
    await expect(t.db.jobs.enqueueRun(fresh("full", { max_depth: depth }))).rejects.toThrow(QueueFullError);
    expect(await t.db.getSession("js-new-full")).toBeNull();
    expect(await t.db.getRun("js-new-r-full")).toBeNull();
    // The id was taken after all: the transaction path takes over (the owner's next run, another owner's 404).
    const again = await t.db.jobs.enqueueRun(fresh("b", { session_id: "js-new-a" }));
    expect(again.created).toBe(true);
    expect(await t.db.getRun("js-new-r-b")).toMatchObject({ run_index: 1, session_id: "js-new-a" });
    await expect(t.db.jobs.enqueueRun(fresh("c", { session_id: "js-new-a", user_id: "u2" }))).rejects.toThrow(
      NotFoundError,
    );
    expect(await t.db.getRun("js-new-r-c")).toBeNull();
  });

  it("enqueues a batch in one transaction, each input on its own: repeats, another owner's session, a bad id, a full queue", async () => {
    await t.db.jobs.enqueueRun(
      input({ session_id: "jb-theirs", user_id: "u2", payload: { run_id: "jb-theirs-r", message: "m" } }),
    );
    const first = await t.db.jobs.enqueueRun(
      input({
        idempotency_key: "jb-key",
        request_hash: "h",
        session_id: "jb-k",
        payload: { run_id: "jb-k-r", message: "m" },
      }),
    );
    const batch = [
      input({ session_id: "jb-shared-s", payload: { run_id: "jb-1", message: "m" } }),
      input({ session_id: "jb-shared-s", payload: { run_id: "jb-2", message: "m" } }),
      input({
        idempotency_key: "jb-key",
        request_hash: "h",
        session_id: "jb-repeat-s",
        payload: { run_id: "jb-3", message: "m" },
      }),
      input({
        idempotency_key: "jb-key",
        request_hash: "other",
        session_id: "jb-other-s",
        payload: { run_id: "jb-4", message: "m" },
      }),
      input({ session_id: "jb-theirs", payload: { run_id: "jb-5", message: "m" } }),
      input({ session_id: "x".repeat(300), payload: { run_id: "jb-6", message: "m" } }),
      input({
        idempotency_key: "jb-twice",
        request_hash: "t",
        session_id: "jb-twice-a",
        payload: { run_id: "jb-7", message: "m" },
      }),
      input({
        idempotency_key: "jb-twice",
        request_hash: "t",
        session_id: "jb-twice-b",
        payload: { run_id: "jb-8", message: "m" },
      }),
    ];
    const out = await t.db.jobs.enqueueRuns(batch);
    const kind = out.map((o) => ("error" in o ? o.error.constructor.name : o.created ? "created" : "repeat"));
    expect(kind).toEqual([
      "created",
      "created",
      "repeat",
      "ValidationError",
      "NotFoundError",
      "ValidationError",
      "created",
      "repeat",
    ]);
    expect((out[2] as { job: JobRecord }).job.id).toBe(first.job.id);
    expect((out[7] as { job: JobRecord }).job.id).toBe((out[6] as { job: JobRecord }).job.id);
    // Two runs into one new session: distinct run_index; nothing stays behind for the refused inputs.
    expect((await t.db.getRuns({ sessionId: "jb-shared-s", limit: 10 })).data.map((r) => r.run_index).sort()).toEqual([
      0, 1,
    ]);
    for (const gone of ["jb-repeat-s", "jb-other-s", "jb-twice-b"]) expect(await t.db.getSession(gone)).toBeNull();
    for (const gone of ["jb-3", "jb-4", "jb-5", "jb-8"]) expect(await t.db.getRun(gone)).toBeNull();
    expect((await t.db.getSession("jb-theirs"))!.record.user_id).toBe("u2");
    // A batch bigger than what the queue still takes: the first ones fit, the rest are refused and leave nothing.
    const depth = (await t.db.jobs.queueStats()).pending + (await t.db.jobs.queueStats()).running;
    const full = await t.db.jobs.enqueueRuns(
      Array.from({ length: 5 }, (_, i) =>
        input({
          session_id: `jb-full-${i}`,
          payload: { run_id: `jb-full-r-${i}`, message: "m" },
          max_depth: depth + 2,
        }),
      ),
    );
    expect(full.map((o) => ("error" in o ? o.error.constructor.name : "created"))).toEqual([
      "created",
      "created",
      "QueueFullError",
      "QueueFullError",
      "QueueFullError",
    ]);
    expect(await t.db.getSession("jb-full-4")).toBeNull();
  });

  it("leases with fencing: a lapsed lease is claimed again and the stale worker can neither finish nor retry", async () => {
    const { job } = await t.db.jobs.enqueueRun(input());
    const claimedByA = (await t.db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 })).find(
      (j) => j.id === job.id,
    )!;
    expect(claimedByA).toMatchObject({ status: "RUNNING", attempt: 1, locked_by: "A" });
    expect(
      (await t.db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).map((j) => j.id),
    ).not.toContain(job.id);
    expect(await t.db.jobs.heartbeatJob({ id: job.id, attempt: 1, workerId: "A" }, 30)).toBe(true);
    await expireLease(job.id);
    const claimedByB = (await t.db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).find(
      (j) => j.id === job.id,
    )!;
    expect(claimedByB).toMatchObject({ attempt: 2, locked_by: "B" });
    const staleA = { id: job.id, attempt: 1, workerId: "A" };
    expect(await t.db.jobs.finishJob(staleA, { status: "COMPLETED" })).toBe(false);
    expect(await t.db.jobs.retryJob(staleA, 0, "late")).toBe(false);
    expect(await t.db.jobs.heartbeatJob(staleA, 30)).toBe(false);
    expect(await t.db.jobs.finishJob({ id: job.id, attempt: 2, workerId: "B" }, { status: "COMPLETED" })).toBe(true);
    expect((await t.db.jobs.getJob(job.id))!).toMatchObject({ status: "COMPLETED", locked_by: null });
  });

  it("completeWithRun writes the run's end and completes the job in one statement, fenced on both", async () => {
    const { job } = await t.db.jobs.enqueueRun(input());
    const runId = job.payload.run_id;
    await t.db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 });
    const lease = { id: job.id, attempt: 1, workerId: "A" };
    const pending = (await t.db.getRun(runId))!.run_data;
    // The run is not RUNNING: nothing is written, and the job keeps its lease.
    expect(await t.db.jobs.completeWithRun(lease, { ...pending, status: "COMPLETED" }, ["RUNNING"])).toBeNull();
    expect((await t.db.getRun(runId))!.status).toBe("PENDING");
    expect((await t.db.jobs.getJob(job.id))!.status).toBe("RUNNING");
    await t.db.upsertRun({ ...pending, status: "RUNNING" }, { expectStatus: ["PENDING"] });
    // A stale lease: the run's write lands as it would alone, the job is not this worker's to end.
    const stale = await t.db.jobs.completeWithRun(
      { ...lease, attempt: 0 },
      { ...pending, status: "COMPLETED", content: "late" },
      ["RUNNING"],
    );
    expect(stale).toMatchObject({ row: { status: "COMPLETED" }, jobEnded: false });
    expect((await t.db.jobs.getJob(job.id))!.status).toBe("RUNNING");
    await t.db.upsertRun({ ...pending, status: "RUNNING" }, { expectStatus: ["COMPLETED"] });
    const done = await t.db.jobs.completeWithRun(lease, { ...pending, status: "COMPLETED", content: "answer" }, [
      "RUNNING",
    ]);
    expect(done).toMatchObject({ row: { run_id: runId, status: "COMPLETED", run_index: 0 }, jobEnded: true });
    expect((await t.db.getRun(runId))!.run_data).toMatchObject({ status: "COMPLETED", content: "answer" });
    expect((await t.db.jobs.getJob(job.id))!).toMatchObject({ status: "COMPLETED", locked_by: null, error: null });
    expect(await t.db.jobs.finishJob(lease, { status: "FAILED" })).toBe(false);
  });

  it("a queued run's last write ends its job through the executor, in one statement: nothing is left to record", async () => {
    const { model } = await scriptedModel([{ text: "done in one" }]);
    const agent = new Agent({ name: "assistant", model, db: t.db });
    const { job } = await t.db.jobs.enqueueRun(
      input({ payload: { run_id: "js-ends-r", message: "hi", stream: false } }),
    );
    const claimed = (await t.db.jobs.claimJobs({ workerId: "E", limit: 1000, leaseSeconds: 30 })).find(
      (j) => j.id === job.id,
    )!;
    const completions: boolean[] = [];
    const jobs = {
      completeWithRun: async (...args: Parameters<typeof t.db.jobs.completeWithRun>) => {
        const written = await t.db.jobs.completeWithRun(...args);
        completions.push(written?.jobEnded ?? false);
        return written;
      },
    };
    const outcome = await executeRunJob(
      claimed,
      { id: job.id, attempt: claimed.attempt, workerId: "E" },
      [agent],
      t.db,
      jobs,
    );
    expect(outcome).toEqual({ status: "COMPLETED", recorded: true });
    expect(completions).toEqual([true]);
    expect((await t.db.getRun("js-ends-r"))!).toMatchObject({
      status: "COMPLETED",
      run_data: { content: "done in one" },
    });
    expect((await t.db.jobs.getJob(job.id))!).toMatchObject({ status: "COMPLETED", locked_by: null, error: null });
  });

  it("fails a job whose last attempt's worker died, and its run", async () => {
    const { job } = await t.db.jobs.enqueueRun(input({ max_attempts: 1 }));
    await t.db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 });
    await expireLease(job.id);
    expect(
      (await t.db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).map((j) => j.id),
    ).not.toContain(job.id);
    expect((await t.db.jobs.expireExhaustedJobs()).map((j) => j.id)).toContain(job.id);
    expect((await t.db.jobs.getJob(job.id))!).toMatchObject({
      status: "FAILED",
      error: expect.stringMatching(/lease expired/),
    });
    expect((await t.db.getRun(job.payload.run_id))!.status).toBe("ERROR");
  });

  it("cancels a queued job so that no claim ever returns it, even racing the claim; requeues only failed or cancelled jobs", async () => {
    const jobs = await Promise.all(Array.from({ length: 10 }, () => t.db.jobs.enqueueRun(input()).then((r) => r.job)));
    const [claimed, cancels] = await Promise.all([
      t.db.jobs.claimJobs({ workerId: "race", limit: 1000, leaseSeconds: 30 }),
      Promise.all(jobs.map((j) => t.db.jobs.cancelJob(j.id))),
    ]);
    for (const [i, job] of jobs.entries()) {
      const wasClaimed = claimed.some((c) => c.id === job.id);
      // Exactly one side wins each job: cancelled and never claimed, or claimed and reported running.
      expect({ job: i, outcome: cancels[i] }).toEqual({ job: i, outcome: wasClaimed ? "running" : "cancelled" });
    }
    // Either way the run is cancelled with its job, so a running one stops at its next check.
    for (const job of jobs) expect((await t.db.getRun(job.payload.run_id))!.status).toBe("CANCELLED");
    const cancelled = jobs.filter((_, i) => cancels[i] === "cancelled");
    const again = await t.db.jobs.claimJobs({ workerId: "later", limit: 1000, leaseSeconds: 30 });
    expect(again.map((j) => j.id).filter((id) => cancelled.some((c) => c.id === id))).toEqual([]);
    if (cancelled[0]) {
      expect(await t.db.jobs.requeueJob(cancelled[0].id)).toMatchObject({
        status: "PENDING",
        max_attempts: cancelled[0].attempt + 1,
      });
      await expect(t.db.jobs.requeueJob(cancelled[0].id)).rejects.toThrow(StatusConflictError);
    }
    await expect(t.db.jobs.requeueJob("no-such-job")).rejects.toThrow(NotFoundError);
  });

  it("drives jobs through a Dispatcher: bounded concurrency, retries until max_attempts, results fenced", async () => {
    // A schema of its own, so the claims see only this test's jobs.
    const own = openTestDb(target);
    try {
      await own.db.init();
      const jobs = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          own.db.jobs
            .enqueueRun(input({ max_attempts: 2, payload: { run_id: `d-${i}`, message: i % 4 === 0 ? "fail" : "ok" } }))
            .then((r) => r.job),
        ),
      );
      let running = 0;
      let peak = 0;
      const attempts = new Map<string, number>();
      const dispatcher = new Dispatcher({
        store: own.db.jobs,
        workerId: "test-dispatcher",
        concurrency: 3,
        backoff: () => 0,
        execute: async (job: JobRecord) => {
          running++;
          peak = Math.max(peak, running);
          attempts.set(job.id, (attempts.get(job.id) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 20));
          running--;
          return job.payload.message === "fail"
            ? { status: "FAILED", error: "always fails", retryable: true }
            : { status: "COMPLETED" };
        },
      });
      for (let rounds = 0; rounds < 200; rounds++) {
        const started = await dispatcher.fill();
        if (started === 0 && dispatcher.active === 0 && (await own.db.jobs.queueStats()).pending === 0) break;
        await Promise.race([dispatcher.next(), new Promise((r) => setTimeout(r, 50))]);
      }
      await dispatcher.idle();
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
      for (const job of jobs) {
        const stored = (await own.db.jobs.getJob(job.id))!;
        const fails = job.payload.message === "fail";
        expect({ run: job.payload.run_id, status: stored.status, attempts: attempts.get(job.id) }).toEqual({
          run: job.payload.run_id,
          status: fails ? "FAILED" : "COMPLETED",
          attempts: fails ? 2 : 1,
        });
      }
    } finally {
      await own.close();
    }
  });
});
