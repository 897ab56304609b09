import { describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/agent/liveness.js";
import {
  NotFoundError,
  QueueFullError,
  QuotaExceededError,
  StatusConflictError,
  ValidationError,
} from "../../src/errors.js";
import { Dispatcher } from "../../src/queue/dispatcher.js";
import { runJobInput } from "../../src/queue/run-job-input.js";
import type { EnqueueOutcome, EnqueueRunInput, JobListOptions, JobRecord } from "../../src/queue/types.js";
import type { ContractDb } from "./db-contract.js";
import { enqueueInputs } from "./enqueue-input.js";

const refusedFor = (o: EnqueueOutcome) =>
  "error" in o ? ((o.error as QuotaExceededError).quota ?? o.error.message) : "created";

/**
 * The durable queue's storage contract (SPEC Q1-Q4, per-user quotas, component identity), part of
 * the Db contract: `c()` is the suite's shared database, `make()` opens one of a test's own.
 */
export function describeJobStoreContract(c: () => ContractDb, make: () => ContractDb | Promise<ContractDb>): void {
  describe("jobs", () => {
    const input = enqueueInputs("js");

    it("commits job, PENDING run and session together; an owner mismatch or a full queue writes nothing", async () => {
      const { job, created } = await c().db.jobs.enqueueRun(
        input({ session_id: "js-own", payload: { run_id: "js-own-r", message: "hi" } }),
      );
      expect(created).toBe(true);
      expect(job).toMatchObject({ status: "PENDING", attempt: 0, session_id: "js-own", user_id: "u1" });
      expect((await c().db.getRun("js-own-r"))!.status).toBe("PENDING");
      expect((await c().db.getSession("js-own"))!.record.user_id).toBe("u1");
      await expect(c().db.jobs.enqueueRun(input({ session_id: "js-own", user_id: "u2" }))).rejects.toThrow(
        NotFoundError,
      );
      const depth = (await c().db.jobs.queueStats()).pending;
      await expect(
        c().db.jobs.enqueueRun(
          input({ session_id: "js-full", payload: { run_id: "js-full-r", message: "x" }, max_depth: depth }),
        ),
      ).rejects.toThrow(QueueFullError);
      expect(await c().db.getSession("js-full")).toBeNull();
      expect(await c().db.getRun("js-full-r")).toBeNull();
      expect((await c().db.jobs.queueStats()).pending).toBe(depth);
    });

    it("deduplicates by (user, Idempotency-Key), also under concurrent submits; another body is a 422", async () => {
      const same = () =>
        input({
          idempotency_key: "key-1",
          request_hash: "h1",
          session_id: "js-idem",
          payload: { run_id: `js-idem-${crypto.randomUUID()}`, message: "m" },
        });
      const results = await Promise.all(Array.from({ length: 8 }, () => c().db.jobs.enqueueRun(same())));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
      await expect(c().db.jobs.enqueueRun(input({ idempotency_key: "key-1", request_hash: "h2" }))).rejects.toThrow(
        ValidationError,
      );
      const otherUser = await c().db.jobs.enqueueRun(
        input({ idempotency_key: "key-1", request_hash: "h1", user_id: "u9" }),
      );
      expect(otherUser.created).toBe(true);
    });

    it("enqueues without a global lock: concurrent runs of one session get distinct run_index, and a racing repeat leaves no session behind", async () => {
      const runs = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          c().db.jobs.enqueueRun(input({ session_id: "js-many", payload: { run_id: `js-many-${i}`, message: "m" } })),
        ),
      );
      expect(runs.every((r) => r.created)).toBe(true);
      const page = await c().db.getRuns({ sessionId: "js-many", limit: 100 });
      expect(page.data.map((r) => r.run_index).sort((a, b) => Number(a) - Number(b))).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
      // Each repeat brings a session id of its own (the client named none): only the first one's may stay.
      const repeats = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          c().db.jobs.enqueueRun(
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
        const kept = (await c().db.getSession(`js-race-${i}`)) !== null;
        expect(kept).toBe(`js-race-${i}` === winner.job.session_id);
        expect((await c().db.getRun(`js-race-r-${i}`)) !== null).toBe(`js-race-r-${i}` === winner.job.payload.run_id);
      }
      // A shared session (no owner) takes no user's background runs.
      await c().db.upsertSession({ session_id: "js-shared", session_type: "agent", created_at: 1 });
      await expect(c().db.jobs.enqueueRun(input({ session_id: "js-shared" }))).rejects.toThrow(NotFoundError);
    });

    it("enqueues into a session it names itself: all or nothing, repeats and a full queue write nothing", async () => {
      const fresh = (i: string, extra: Partial<EnqueueRunInput> = {}) =>
        input({
          new_session: true,
          session_id: `js-new-${i}`,
          payload: { run_id: `js-new-r-${i}`, message: "m" },
          ...extra,
        });
      const { job, created } = await c().db.jobs.enqueueRun(fresh("a"));
      expect(created).toBe(true);
      expect(job).toMatchObject({ status: "PENDING", session_id: "js-new-a", user_id: "u1" });
      expect(await c().db.getRun("js-new-r-a")).toMatchObject({ status: "PENDING", run_index: 0 });
      expect((await c().db.getSession("js-new-a"))!.record).toMatchObject({
        user_id: "u1",
        session_data: { session_name: "hello" },
      });
      // Racing repeats of one key, each with a session id of its own: one job, one session, one run.
      const repeats = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          c().db.jobs.enqueueRun(fresh(`race-${i}`, { idempotency_key: "key-new", request_hash: "h" })),
        ),
      );
      const winner = repeats.filter((r) => r.created);
      expect(winner).toHaveLength(1);
      expect(new Set(repeats.map((r) => r.job.id)).size).toBe(1);
      for (let i = 0; i < 8; i++) {
        const mine = `js-new-race-${i}` === winner[0]!.job.session_id;
        expect((await c().db.getSession(`js-new-race-${i}`)) !== null).toBe(mine);
        expect((await c().db.getRun(`js-new-r-race-${i}`)) !== null).toBe(mine);
      }
      await expect(
        c().db.jobs.enqueueRun(fresh("other-body", { idempotency_key: "key-new", request_hash: "h2" })),
      ).rejects.toThrow(ValidationError);
      expect(await c().db.getSession("js-new-other-body")).toBeNull();
      const depth = (await c().db.jobs.queueStats()).pending;
      await expect(c().db.jobs.enqueueRun(fresh("full", { max_depth: depth }))).rejects.toThrow(QueueFullError);
      expect(await c().db.getSession("js-new-full")).toBeNull();
      expect(await c().db.getRun("js-new-r-full")).toBeNull();
      // The id was taken after all: the transaction path takes over (the owner's next run, another owner's 404).
      const again = await c().db.jobs.enqueueRun(fresh("b", { session_id: "js-new-a" }));
      expect(again.created).toBe(true);
      expect(await c().db.getRun("js-new-r-b")).toMatchObject({ run_index: 1, session_id: "js-new-a" });
      await expect(c().db.jobs.enqueueRun(fresh("c", { session_id: "js-new-a", user_id: "u2" }))).rejects.toThrow(
        NotFoundError,
      );
      expect(await c().db.getRun("js-new-r-c")).toBeNull();
    });

    it("enqueues a batch in one transaction, each input on its own: repeats, another owner's session, a bad id, a full queue", async () => {
      await c().db.jobs.enqueueRun(
        input({ session_id: "jb-theirs", user_id: "u2", payload: { run_id: "jb-theirs-r", message: "m" } }),
      );
      const first = await c().db.jobs.enqueueRun(
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
      const out = await c().db.jobs.enqueueRuns(batch);
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
      expect(
        (await c().db.getRuns({ sessionId: "jb-shared-s", limit: 10 })).data.map((r) => r.run_index).sort(),
      ).toEqual([0, 1]);
      for (const gone of ["jb-repeat-s", "jb-other-s", "jb-twice-b"]) expect(await c().db.getSession(gone)).toBeNull();
      for (const gone of ["jb-3", "jb-4", "jb-5", "jb-8"]) expect(await c().db.getRun(gone)).toBeNull();
      expect((await c().db.getSession("jb-theirs"))!.record.user_id).toBe("u2");
      // A batch bigger than what the queue still takes: the first ones fit, the rest are refused and leave nothing.
      const depth = (await c().db.jobs.queueStats()).pending + (await c().db.jobs.queueStats()).running;
      const full = await c().db.jobs.enqueueRuns(
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
      expect(await c().db.getSession("jb-full-4")).toBeNull();
    });

    it("leases with fencing: a lapsed lease is claimed again and the stale worker can neither finish nor retry", async () => {
      const { job } = await c().db.jobs.enqueueRun(input());
      const claimedByA = (await c().db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 })).find(
        (j) => j.id === job.id,
      )!;
      expect(claimedByA).toMatchObject({ status: "RUNNING", attempt: 1, locked_by: "A" });
      expect(
        (await c().db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).map((j) => j.id),
      ).not.toContain(job.id);
      expect(await c().db.jobs.heartbeatJob({ id: job.id, attempt: 1, workerId: "A" }, 30)).toBe(true);
      await c().expireJobLease(job.id);
      const claimedByB = (await c().db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).find(
        (j) => j.id === job.id,
      )!;
      expect(claimedByB).toMatchObject({ attempt: 2, locked_by: "B" });
      const staleA = { id: job.id, attempt: 1, workerId: "A" };
      expect(await c().db.jobs.finishJob(staleA, { status: "COMPLETED" })).toBe(false);
      expect(await c().db.jobs.retryJob(staleA, 0, "late")).toBe(false);
      expect(await c().db.jobs.heartbeatJob(staleA, 30)).toBe(false);
      expect(await c().db.jobs.finishJob({ id: job.id, attempt: 2, workerId: "B" }, { status: "COMPLETED" })).toBe(
        true,
      );
      expect((await c().db.jobs.getJob(job.id))!).toMatchObject({ status: "COMPLETED", locked_by: null });
    });

    it("puts a job back without using up an attempt when it could not start yet, fenced as a retry", async () => {
      const { job } = await c().db.jobs.enqueueRun(input());
      const claim = async (workerId: string) =>
        (await c().db.jobs.claimJobs({ workerId, limit: 1000, leaseSeconds: 30 })).find((j) => j.id === job.id);
      expect(await claim("A")).toMatchObject({ attempt: 1 });
      const lease = { id: job.id, attempt: 1, workerId: "A" };
      expect(await c().db.jobs.retryJob(lease, 0, "waits for run r0", { notAnAttempt: true })).toBe(true);
      expect(await c().db.jobs.getJob(job.id)).toMatchObject({
        status: "PENDING",
        attempt: 0,
        locked_by: null,
        error: "waits for run r0",
      });
      // Claimed again, it is its first attempt once more; the old lease can put nothing back.
      expect(await claim("B")).toMatchObject({ attempt: 1, locked_by: "B" });
      expect(await c().db.jobs.retryJob(lease, 0, "late", { notAnAttempt: true })).toBe(false);
      expect(await c().db.jobs.finishJob({ id: job.id, attempt: 1, workerId: "B" }, { status: "COMPLETED" })).toBe(
        true,
      );
    });

    it("completeWithRun writes the run's end and completes the job together, fenced on both", async () => {
      const { job } = await c().db.jobs.enqueueRun(input());
      const runId = job.payload.run_id;
      await c().db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 });
      const lease = { id: job.id, attempt: 1, workerId: "A" };
      const pending = (await c().db.getRun(runId))!.run_data;
      // The run is not RUNNING: nothing is written, and the job keeps its lease.
      expect(await c().db.jobs.completeWithRun(lease, { ...pending, status: "COMPLETED" }, ["RUNNING"])).toBeNull();
      expect((await c().db.getRun(runId))!.status).toBe("PENDING");
      expect((await c().db.jobs.getJob(job.id))!.status).toBe("RUNNING");
      await c().db.upsertRun({ ...pending, status: "RUNNING" }, { expectStatus: ["PENDING"] });
      // A stale lease: the run's write lands as it would alone, the job is not this worker's to end.
      const stale = await c().db.jobs.completeWithRun(
        { ...lease, attempt: 0 },
        { ...pending, status: "COMPLETED", content: "late" },
        ["RUNNING"],
      );
      expect(stale).toMatchObject({ row: { status: "COMPLETED" }, jobEnded: false });
      expect((await c().db.jobs.getJob(job.id))!.status).toBe("RUNNING");
      await c().db.upsertRun({ ...pending, status: "RUNNING" }, { expectStatus: ["COMPLETED"] });
      const done = await c().db.jobs.completeWithRun(lease, { ...pending, status: "COMPLETED", content: "answer" }, [
        "RUNNING",
      ]);
      expect(done).toMatchObject({ row: { run_id: runId, status: "COMPLETED", run_index: 0 }, jobEnded: true });
      expect((await c().db.getRun(runId))!.run_data).toMatchObject({ status: "COMPLETED", content: "answer" });
      expect((await c().db.jobs.getJob(job.id))!).toMatchObject({ status: "COMPLETED", locked_by: null, error: null });
      expect(await c().db.jobs.finishJob(lease, { status: "FAILED" })).toBe(false);
    });

    it("fails a job whose last attempt's worker died, and its run", async () => {
      const { job } = await c().db.jobs.enqueueRun(input({ max_attempts: 1 }));
      await c().db.jobs.claimJobs({ workerId: "A", limit: 1000, leaseSeconds: 30 });
      await c().expireJobLease(job.id);
      expect(
        (await c().db.jobs.claimJobs({ workerId: "B", limit: 1000, leaseSeconds: 30 })).map((j) => j.id),
      ).not.toContain(job.id);
      expect((await c().db.jobs.expireExhaustedJobs()).map((j) => j.id)).toContain(job.id);
      expect((await c().db.jobs.getJob(job.id))!).toMatchObject({
        status: "FAILED",
        error: expect.stringMatching(/lease expired/),
      });
      expect((await c().db.getRun(job.payload.run_id))!.status).toBe("ERROR");
    });

    it("enqueueJob: a job that runs no component (knowledge ingestion) has no run or session, repeats its key, is claimed, retried, cancelled and requeued like a run's", async () => {
      const id = `js-kn-${crypto.randomUUID()}`;
      const kn = (over: Record<string, unknown> = {}) => ({
        id,
        job_type: "knowledge_ingestion",
        component_type: "knowledge" as const,
        component_id: "kb-1",
        user_id: "u-kn",
        payload: { knowledge_id: "kb-1", content_id: "c-1" },
        max_attempts: 2,
        idempotency_key: `knowledge:${id}`,
        max_depth: 100_000,
        ...over,
      });
      const first = await c().db.jobs.enqueueJob(kn());
      expect(first.created).toBe(true);
      expect(first.job).toMatchObject({
        id,
        job_type: "knowledge_ingestion",
        component_type: "knowledge",
        session_id: null,
        user_id: "u-kn",
        status: "PENDING",
        payload: { knowledge_id: "kb-1", content_id: "c-1" },
      });
      const repeat = await c().db.jobs.enqueueJob(kn({ id: `${id}-again` }));
      expect(repeat).toMatchObject({ created: false, job: { id } });
      expect(await c().db.jobs.getJob(`${id}-again`)).toBeNull();
      const depth = (await c().db.jobs.queueStats()).pending + (await c().db.jobs.queueStats()).running;
      await expect(
        c().db.jobs.enqueueJob(kn({ id: `${id}-full`, idempotency_key: undefined, max_depth: depth })),
      ).rejects.toThrow(QueueFullError);
      expect(await c().db.jobs.getJob(`${id}-full`)).toBeNull();
      expect(await c().db.getRun(id)).toBeNull();

      const claimed = (await c().db.jobs.claimJobs({ workerId: "kn", limit: 100_000, leaseSeconds: 30 })).find(
        (j) => j.id === id,
      )!;
      expect(claimed).toMatchObject({ status: "RUNNING", attempt: 1 });
      const lease = { id, attempt: 1, workerId: "kn" };
      expect(await c().db.jobs.retryJob(lease, 0, "embedder down")).toBe(true);
      expect(await c().db.jobs.getJob(id)).toMatchObject({ status: "PENDING", error: "embedder down" });
      expect(await c().db.jobs.cancelJob(id)).toBe("cancelled");
      expect(await c().db.jobs.requeueJob(id)).toMatchObject({ status: "PENDING" });
      const again = (await c().db.jobs.claimJobs({ workerId: "kn2", limit: 100_000, leaseSeconds: 30 })).find(
        (j) => j.id === id,
      )!;
      expect(
        await c().db.jobs.finishJob({ id, attempt: again.attempt, workerId: "kn2" }, { status: "COMPLETED" }),
      ).toBe(true);
      expect(await c().db.jobs.getJob(id)).toMatchObject({ status: "COMPLETED", session_id: null });
    });

    it("cancels a queued job so that no claim ever returns it, even racing the claim; requeues only failed or cancelled jobs", async () => {
      const jobs = await Promise.all(
        Array.from({ length: 10 }, () =>
          c()
            .db.jobs.enqueueRun(input())
            .then((r) => r.job),
        ),
      );
      const [claimed, cancels] = await Promise.all([
        c().db.jobs.claimJobs({ workerId: "race", limit: 1000, leaseSeconds: 30 }),
        Promise.all(jobs.map((j) => c().db.jobs.cancelJob(j.id))),
      ]);
      for (const [i, job] of jobs.entries()) {
        const wasClaimed = claimed.some((c) => c.id === job.id);
        // Exactly one side wins each job: cancelled and never claimed, or claimed and reported running.
        expect({ job: i, outcome: cancels[i] }).toEqual({ job: i, outcome: wasClaimed ? "running" : "cancelled" });
      }
      // Either way the run is cancelled with its job, so a running one stops at its next check.
      for (const job of jobs) expect((await c().db.getRun(job.payload.run_id))!.status).toBe("CANCELLED");
      const cancelled = jobs.filter((_, i) => cancels[i] === "cancelled");
      const again = await c().db.jobs.claimJobs({ workerId: "later", limit: 1000, leaseSeconds: 30 });
      expect(again.map((j) => j.id).filter((id) => cancelled.some((c) => c.id === id))).toEqual([]);
      if (cancelled[0]) {
        expect(await c().db.jobs.requeueJob(cancelled[0].id)).toMatchObject({
          status: "PENDING",
          max_attempts: cancelled[0].attempt + 1,
        });
        await expect(c().db.jobs.requeueJob(cancelled[0].id)).rejects.toThrow(StatusConflictError);
      }
      await expect(c().db.jobs.requeueJob("no-such-job")).rejects.toThrow(NotFoundError);
    });

    it("lists jobs by any column in either order (unset values as Postgres places them), by several statuses, by id for an unknown column", async () => {
      const own = await make();
      try {
        await own.db.init();
        const jobs = own.db.jobs;
        const users = { "ls-1": "b", "ls-2": null, "ls-3": "C", "ls-4": "a" } as const;
        for (const [id, user] of Object.entries(users))
          await jobs.enqueueRun(input({ user_id: user, payload: { run_id: id, message: "hi" } }));
        const [claimed] = await jobs.claimJobs({ workerId: "w", limit: 1, leaseSeconds: 30 });
        const running = claimed!.id;
        const cancelled = ["ls-1", "ls-2", "ls-3", "ls-4"].find((id) => id !== running)!;
        expect(await jobs.cancelJob(cancelled)).toBe("cancelled");
        const ids = async (opts: Partial<JobListOptions>) =>
          (await jobs.listJobs({ limit: 10, page: 1, ...opts })).data.map((j) => j.id);
        const byUser = ["ls-3", "ls-4", "ls-1", "ls-2"]; // "C" < "a" < "b" by code point, unset last
        expect(await ids({ sortBy: "user_id", sortOrder: "asc" })).toEqual(byUser);
        expect(await ids({ sortBy: "user_id", sortOrder: "desc" })).toEqual([...byUser].reverse());
        // Only the claimed job has a worker: first descending (unset first), last ascending.
        expect((await ids({ sortBy: "locked_by", sortOrder: "asc" })).at(-1)).not.toBe(running);
        expect((await ids({ sortBy: "locked_by", sortOrder: "asc" }))[0]).toBe(running);
        expect((await ids({ sortBy: "locked_by", sortOrder: "desc" })).at(-1)).toBe(running);
        const byStatus = await jobs.listJobs({ limit: 10, page: 1, sortBy: "status", sortOrder: "asc" });
        expect(byStatus.data.map((j) => j.status)).toEqual(["CANCELLED", "PENDING", "PENDING", "RUNNING"]);
        for (const unknown of ["payload", "no_such_column", "id; DROP TABLE x"])
          expect(await ids({ sortBy: unknown, sortOrder: "desc" })).toEqual(["ls-1", "ls-2", "ls-3", "ls-4"]);
        const page2 = await jobs.listJobs({ limit: 2, page: 2, sortBy: "user_id", sortOrder: "asc" });
        expect({ ids: page2.data.map((j) => j.id), total: page2.total_count }).toEqual({
          ids: byUser.slice(2),
          total: 4,
        });
        const waiting = await jobs.listJobs({ limit: 10, page: 1, statuses: ["PENDING", "CANCELLED"] });
        expect(waiting.total_count).toBe(3);
        expect(waiting.data.map((j) => j.id)).not.toContain(running);
        expect(await jobs.listJobs({ limit: 10, page: 1, statuses: [] })).toEqual({ data: [], total_count: 0 });
        await expect(jobs.listJobs({ limit: 10, page: 0 })).rejects.toThrow(ValidationError);
      } finally {
        await own.close();
      }
    });

    it("drives jobs through a Dispatcher: bounded concurrency, retries until max_attempts, results fenced", async () => {
      // A database of its own, so the claims see only this test's jobs.
      const own = await make();
      try {
        await own.db.init();
        const jobs = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            own.db.jobs
              .enqueueRun(
                input({ max_attempts: 2, payload: { run_id: `d-${i}`, message: i % 4 === 0 ? "fail" : "ok" } }),
              )
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

    it("the stale-run sweep leaves a run whose job is PENDING or RUNNING (the queue recovers it), and ends one whose job is over", async () => {
      // A database of its own: the claim takes every due job.
      const own = await make();
      try {
        await own.db.init();
        const queued = enqueueInputs("lvq");
        const jobs = [];
        for (let i = 0; i < 3; i++) jobs.push((await own.db.jobs.enqueueRun(queued())).job);
        const claimed = await own.db.jobs.claimJobs({ workerId: "w", limit: 2, leaseSeconds: 600 });
        expect(claimed).toHaveLength(2);
        await own.db.jobs.finishJob({ id: claimed[1]!.id, attempt: 1, workerId: "w" }, { status: "FAILED" });
        const leased = claimed[0]!.payload.run_id;
        const failed = claimed[1]!.payload.run_id;
        const pending = jobs.find((j) => !claimed.some((x) => x.id === j.id))!.payload.run_id;
        for (const runId of [leased, failed, pending]) {
          const run = (await own.db.getRun(runId))!.run_data;
          await own.db.upsertRun({ ...run, status: "RUNNING" }, { expectStatus: ["PENDING"] });
          await own.setRunUpdatedAt(runId, Math.floor(Date.now() / 1000) - 300);
        }
        const sweep = (runId: string) =>
          own.db.interruptStaleRuns({ ...INTERRUPTED, staleBefore: Math.floor(Date.now() / 1000) - 30, runId });
        expect(await sweep(pending)).toEqual([]);
        expect(await sweep(leased)).toEqual([]);
        expect((await sweep(failed)).map((r) => r.run_id)).toEqual([failed]);
        expect((await own.db.getRun(pending))!.status).toBe("RUNNING");
        expect((await own.db.getRun(leased))!.status).toBe("RUNNING");
        expect((await own.db.getRun(failed))!.status).toBe("ERROR");
      } finally {
        await own.close();
      }
    });

    // -- per-user quotas (issue 15) ------------------------------------------------------------

    it("refuses a user's enqueue at their job cap with a 429 naming it, on every enqueue path, and not another user's", async () => {
      const capped = enqueueInputs("cap", { max_user_depth: 3 });
      const a = (extra = {}) => capped({ user_id: "cap-a", ...extra });
      await c().db.jobs.enqueueRun(a());
      await c().db.jobs.enqueueRun(a({ new_session: true }));
      await c().db.jobs.enqueueRun(a());
      for (const extra of [{}, { new_session: true }]) {
        const refused = await c()
          .db.jobs.enqueueRun(a(extra))
          .catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(QuotaExceededError);
        expect(refused).toMatchObject({
          status: 429,
          errorId: "quota_exceeded",
          quota: "jobs",
          retryAfterSeconds: expect.any(Number),
          message: expect.stringMatching(/per-user job cap \(3 .*cap-a/),
        });
      }
      expect((await c().db.jobs.enqueueRun(capped({ user_id: "cap-b" }))).created).toBe(true);
      // A batch (the queue object's group commit, the cron's dispatch) takes a user's inputs up to their cap, and everyone else's.
      const batch = await c().db.jobs.enqueueRuns([
        capped({ user_id: "cap-c" }),
        capped({ user_id: "cap-a" }),
        capped({ user_id: "cap-c" }),
        capped({ user_id: "cap-c" }),
        capped({ user_id: "cap-c" }),
        capped({ user_id: "cap-b" }),
      ]);
      expect(batch.map(refusedFor)).toEqual(["created", "jobs", "created", "created", "jobs", "created"]);
      // Callers without a user are one shared principal.
      const shared = enqueueInputs("cap-shared", { user_id: null, max_user_depth: 1 });
      await c().db.jobs.enqueueRun(shared());
      await expect(c().db.jobs.enqueueRun(shared())).rejects.toMatchObject({
        quota: "jobs",
        message: expect.stringMatching(/shared principal/),
      });
      // A job that ends frees its place.
      const [running] = await c()
        .db.jobs.claimJobs({ workerId: "w", limit: 1000, leaseSeconds: 30 })
        .then((jobs) => jobs.filter((j) => j.user_id === "cap-a"));
      await c().db.jobs.finishJob(
        { id: running!.id, attempt: running!.attempt, workerId: "w" },
        { status: "COMPLETED" },
      );
      expect((await c().db.jobs.enqueueRun(a())).created).toBe(true);
    });

    it("claims fairly: a user's job enqueued after another user's backlog is in the first claim, and a user with less running goes first", async () => {
      const fair = await make();
      try {
        await fair.db.init();
        const queued = enqueueInputs("fair", { max_depth: 10_000 });
        const backlog = await fair.db.jobs.enqueueRuns(Array.from({ length: 50 }, () => queued({ user_id: "heavy" })));
        expect(backlog.every((o) => "job" in o)).toBe(true);
        // The backlog is older, as it would be after a tick of the heavy user's schedules.
        await fair.ageJobs("heavy", 60);
        const light = await fair.db.jobs.enqueueRun(queued({ user_id: "light" }));
        const shared = await fair.db.jobs.enqueueRun(queued({ user_id: null }));
        const first = await fair.db.jobs.claimJobs({ workerId: "w1", limit: 4, leaseSeconds: 30 });
        expect(first).toHaveLength(4);
        expect(first.map((j) => j.id)).toEqual(expect.arrayContaining([light.job.id, shared.job.id]));
        expect(first.filter((j) => j.user_id === "heavy")).toHaveLength(2);
        // Claims of one slot at a time, as a busy queue makes them: a user with jobs running goes after one with none.
        for (const j of first)
          await fair.db.jobs.finishJob({ id: j.id, attempt: j.attempt, workerId: "w1" }, { status: "COMPLETED" });
        await fair.ageJobs("heavy", 60);
        const late = await fair.db.jobs.enqueueRun(queued({ user_id: "light" }));
        const [one] = await fair.db.jobs.claimJobs({ workerId: "w2", limit: 1, leaseSeconds: 30 });
        expect(one!.user_id).toBe("heavy");
        const [two] = await fair.db.jobs.claimJobs({ workerId: "w2", limit: 1, leaseSeconds: 30 });
        expect(two!.id).toBe(late.job.id);
        // The rest is the backlog, each job claimed once.
        const rest = await fair.db.jobs.claimJobs({ workerId: "w3", limit: 100, leaseSeconds: 30 });
        expect(new Set([...first, one!, ...rest].filter((j) => j.user_id === "heavy").map((j) => j.id))).toEqual(
          new Set(backlog.map((o) => ("job" in o ? o.job.id : ""))),
        );
        expect(rest).toHaveLength(47);
      } finally {
        await fair.close();
      }
    });

    // -- component identity -------------------------------------------------------------------

    it("a team's or a workflow's queued run starts as its component's PENDING run, in a session of its type, on every enqueue path", async () => {
      const queued = (component: { type: "team" | "workflow"; id: string; name: string }, sessionId?: string) =>
        runJobInput({
          component,
          message: `run the ${component.type}`,
          userId: "ida",
          sessionId,
          maxAttempts: 1,
          maxDepth: 1000,
        });
      const crew = { type: "team" as const, id: "crew", name: "Crew" };
      const nightly = { type: "workflow" as const, id: "nightly", name: "Nightly" };
      const inputs = [
        queued(crew), // a session the enqueue names: one statement
        queued(nightly),
        queued(crew, "cid-team-s"), // a session the caller names: the transaction path
        queued(nightly, "cid-flow-s"),
      ];
      const batched = [queued(crew, "cid-team-s"), queued(nightly)];
      const single = await Promise.all(inputs.map((i) => c().db.jobs.enqueueRun(i)));
      const batch = await c().db.jobs.enqueueRuns(batched);
      expect(single.every((o) => o.created)).toBe(true);
      expect(batch.map(refusedFor)).toEqual(["created", "created"]);
      const jobs = [...single.map((o) => o.job), ...batch.map((o) => (o as { job: JobRecord }).job)];
      for (const [i, job] of jobs.entries()) {
        const ref = [...inputs, ...batched][i]!.component_type === "team" ? crew : nightly;
        expect(job).toMatchObject({ component_type: ref.type, component_id: ref.id });
        const row = await c().db.getRun(job.payload.run_id);
        expect(row, `${ref.type} #${i}`).toMatchObject({
          status: "PENDING",
          run_type: ref.type,
          agent_id: null,
          team_id: ref.type === "team" ? ref.id : null,
          workflow_id: ref.type === "workflow" ? ref.id : null,
          user_id: "ida",
        });
        expect(row!.run_data).toMatchObject({ [`${ref.type}_id`]: ref.id, [`${ref.type}_name`]: ref.name });
        expect(row!.run_data).not.toHaveProperty("agent_id");
        expect((await c().db.getRuns({ [`${ref.type}Id`]: ref.id, limit: 100 })).data.map((r) => r.run_id)).toContain(
          job.payload.run_id,
        );
        const session = (await c().db.getSession(job.session_id!))!.record;
        expect(session).toMatchObject({ session_type: ref.type, [`${ref.type}_id`]: ref.id, agent_id: null });
      }
      // An agent's run keeps its agent columns.
      const agentJob = await c().db.jobs.enqueueRun(
        runJobInput({
          component: { type: "agent", id: "helper" },
          message: "m",
          userId: null,
          maxAttempts: 1,
          maxDepth: 1000,
        }),
      );
      expect(await c().db.getRun(agentJob.job.payload.run_id)).toMatchObject({
        run_type: "agent",
        agent_id: "helper",
        team_id: null,
        workflow_id: null,
      });
    });
  });
}
