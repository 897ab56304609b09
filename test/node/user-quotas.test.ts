import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuotaExceededError } from "../../src/errors.js";
import type { EnqueueOutcome } from "../../src/queue/types.js";
import { runDueSchedules } from "../../src/scheduler/run-due.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { enqueueInputs } from "../support/enqueue-input.js";

const refusedFor = (o: EnqueueOutcome) =>
  "error" in o ? ((o.error as QuotaExceededError).quota ?? o.error.message) : "created";

/** Per-user caps and fair share on the durable queue and schedules (issue 15), on every Postgres the machine offers. */
describe.each(dbTargets())("per-user quotas on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());
  const table = (name: string) => `"${t.schema}".${name}`;

  it("refuses a user's enqueue at their job cap with a 429 naming it, on every enqueue path, and not another user's", async () => {
    const input = enqueueInputs("cap", { max_user_depth: 3 });
    const a = (extra = {}) => input({ user_id: "cap-a", ...extra });
    await t.db.jobs.enqueueRun(a());
    await t.db.jobs.enqueueRun(a({ new_session: true }));
    await t.db.jobs.enqueueRun(a());
    for (const extra of [{}, { new_session: true }]) {
      const refused = await t.db.jobs.enqueueRun(a(extra)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(QuotaExceededError);
      expect(refused).toMatchObject({
        status: 429,
        errorId: "quota_exceeded",
        quota: "jobs",
        retryAfterSeconds: expect.any(Number),
        message: expect.stringMatching(/per-user job cap \(3 .*cap-a/),
      });
    }
    expect((await t.db.jobs.enqueueRun(input({ user_id: "cap-b" }))).created).toBe(true);
    // A batch (the queue object's group commit, the cron's dispatch) takes a user's inputs up to their cap, and everyone else's.
    const batch = await t.db.jobs.enqueueRuns([
      input({ user_id: "cap-c" }),
      input({ user_id: "cap-a" }),
      input({ user_id: "cap-c" }),
      input({ user_id: "cap-c" }),
      input({ user_id: "cap-c" }),
      input({ user_id: "cap-b" }),
    ]);
    expect(batch.map(refusedFor)).toEqual(["created", "jobs", "created", "created", "jobs", "created"]);
    // Callers without a user are one shared principal.
    const shared = enqueueInputs("cap-shared", { user_id: null, max_user_depth: 1 });
    await t.db.jobs.enqueueRun(shared());
    await expect(t.db.jobs.enqueueRun(shared())).rejects.toMatchObject({
      quota: "jobs",
      message: expect.stringMatching(/shared principal/),
    });
    // A job that ends frees its place.
    const [running] = await t.db.jobs
      .claimJobs({ workerId: "w", limit: 100, leaseSeconds: 30 })
      .then((jobs) => jobs.filter((j) => j.user_id === "cap-a"));
    await t.db.jobs.finishJob({ id: running!.id, attempt: running!.attempt, workerId: "w" }, { status: "COMPLETED" });
    expect((await t.db.jobs.enqueueRun(a())).created).toBe(true);
  });

  it("claims fairly: a user's job enqueued after another user's backlog is in the first claim, and a user with less running goes first", async () => {
    const fair = openTestDb(target);
    await fair.db.init();
    try {
      const input = enqueueInputs("fair", { max_depth: 10_000 });
      const backlog = await fair.db.jobs.enqueueRuns(Array.from({ length: 50 }, () => input({ user_id: "heavy" })));
      expect(backlog.every((o) => "job" in o)).toBe(true);
      // The backlog is older, as it would be after a tick of the heavy user's schedules.
      await fair.query(
        `UPDATE "${fair.schema}".agno_jobs SET available_at = available_at - 60, created_at = created_at - 60 WHERE user_id = 'heavy'`,
      );
      const light = await fair.db.jobs.enqueueRun(input({ user_id: "light" }));
      const shared = await fair.db.jobs.enqueueRun(input({ user_id: null }));
      const first = await fair.db.jobs.claimJobs({ workerId: "w1", limit: 4, leaseSeconds: 30 });
      expect(first).toHaveLength(4);
      expect(first.map((j) => j.id)).toEqual(expect.arrayContaining([light.job.id, shared.job.id]));
      expect(first.filter((j) => j.user_id === "heavy")).toHaveLength(2);
      // Claims of one slot at a time, as a busy queue makes them: a user with jobs running goes after one with none.
      await fair.query(
        `UPDATE "${fair.schema}".agno_jobs SET status = 'COMPLETED' WHERE id IN (${first.map((j) => `'${j.id}'`).join(", ")})`,
      );
      await fair.query(
        `UPDATE "${fair.schema}".agno_jobs SET available_at = available_at - 60, created_at = created_at - 60 WHERE user_id = 'heavy'`,
      );
      const late = await fair.db.jobs.enqueueRun(input({ user_id: "light" }));
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

  it("refuses a user's schedule past their cap with a 429 naming it, not another user's", async () => {
    const create = (userId: string | null, name: string) =>
      t.db.schedules.createSchedule(
        { name, cron_expr: "* * * * *", endpoint: "/agents/assistant/runs", payload: { message: "hi" } },
        { userId },
        { maxPerUser: 2 },
      );
    await create("sched-a", "one");
    await create("sched-a", "two");
    await expect(create("sched-a", "three")).rejects.toMatchObject({
      status: 429,
      errorId: "quota_exceeded",
      quota: "schedules",
      message: expect.stringMatching(/per-user schedule cap \(2 .*sched-a/),
    });
    expect(await create("sched-b", "one")).toMatchObject({ user_id: "sched-b" });
    await create(null, "shared-1");
    await create(null, "shared-2");
    await expect(create(null, "shared-3")).rejects.toThrow(QuotaExceededError);
  });

  it("a tick with one user's many due schedules queues up to their job cap and records the rest as failed attempts with the reason", async () => {
    const T = Date.parse("2031-03-03T08:00:00Z") / 1000;
    await t.query(`UPDATE ${table("agno_schedules")} SET enabled = FALSE`);
    const due = async (userId: string, name: string) => {
      const s = await t.db.schedules.createSchedule(
        { name, cron_expr: "* * * * *", endpoint: "/agents/assistant/runs", payload: { message: "tick" } },
        { userId },
      );
      return t.db.schedules.updateSchedule(s.id, { next_run_at: T });
    };
    const many = [];
    for (let i = 0; i < 6; i++) many.push(await due("tick-a", `many-${i}`));
    const other = await due("tick-b", "other");
    const report = await runDueSchedules(t.db, { now: () => T, maxUserJobs: 2 }, T * 1000);
    expect(report).toMatchObject({ claimed: 7, dispatched: 3, failed: 4 });
    const jobs = await t.query<{ user_id: string; n: string }>(
      `SELECT user_id, COUNT(*) AS n FROM ${table("agno_jobs")} WHERE user_id IN ('tick-a', 'tick-b') GROUP BY user_id ORDER BY user_id`,
    );
    expect(jobs.map((j) => [j.user_id, Number(j.n)])).toEqual([
      ["tick-a", 2],
      ["tick-b", 1],
    ]);
    const attempts = (await Promise.all(many.map((s) => t.db.schedules.listScheduleRuns(s.id)))).map((p) => p.data[0]!);
    expect(attempts.filter((r) => r.status === "running")).toHaveLength(2);
    const failed = attempts.filter((r) => r.status === "failed");
    expect(failed).toHaveLength(4);
    for (const r of failed)
      expect(r).toMatchObject({
        status_code: 429,
        job_id: null,
        error: expect.stringMatching(/per-user job cap \(2 .*tick-a/),
      });
    expect((await t.db.schedules.listScheduleRuns(other.id)).data[0]).toMatchObject({
      status: "running",
      status_code: 202,
    });
  });
});
