import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runDueSchedules, type TickReport } from "../../src/scheduler/run-due.js";
import { dispatchAttempt } from "../../src/scheduler/dispatch.js";
import { settlingCancelledScheduleRuns } from "../../src/scheduler/job-end.js";
import type { Schedule, ScheduleRun } from "../../src/scheduler/types.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/** The cron tick's claim semantics (SPEC SC1), driven with explicit tick times, on every Postgres the machine offers. */
describe.each(dbTargets())("scheduler ticks on $name", (target) => {
  let t: TestDb;
  let wakes = 0;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());
  // Every tick sees the whole table: each test starts with no other schedule due and no attempt open.
  beforeEach(async () => {
    await t.query(`UPDATE ${table("agno_schedules")} SET enabled = FALSE`);
    await t.query(`DELETE FROM ${table("agno_schedule_runs")}`);
  });

  const T = Date.parse("2031-01-06T12:00:00Z") / 1000; // a Monday noon, minute-aligned
  let n = 0;
  const tick = (at: number, extra = {}): Promise<TickReport> =>
    runDueSchedules(t.db, { now: () => at, wake: async () => void wakes++, ...extra }, at * 1000);
  const table = (name: string) => `"${t.schema}".${name}`;
  const runsOf = async (s: Schedule): Promise<ScheduleRun[]> =>
    (await t.db.schedules.listScheduleRuns(s.id, { limit: 100 })).data.sort(
      (a, b) => a.created_at - b.created_at || a.attempt - b.attempt,
    );
  const jobsOf = (s: Schedule) =>
    t.query<{ id: string; idempotency_key: string; max_attempts: number; user_id: string }>(
      `SELECT id, idempotency_key, max_attempts, user_id FROM ${table("agno_jobs")} WHERE idempotency_key LIKE $1 ORDER BY created_at, idempotency_key`,
      [`schedule:${s.id}:%`],
    );
  /** A schedule due at `due` (its cron says when it comes back after that). */
  async function schedule(cron: string, due: number, extra: Record<string, unknown> = {}): Promise<Schedule> {
    const s = await t.db.schedules.createSchedule(
      {
        name: `s-${n++}`,
        cron_expr: cron,
        endpoint: "/agents/assistant/runs",
        payload: { message: "scheduled hello" },
        ...extra,
      },
      { userId: "owner-1" },
    );
    return t.db.schedules.updateSchedule(s.id, { next_run_at: due });
  }
  /** Ends a dispatched run's job as the queue would: job status, and the run's status and content. */
  async function finish(run: ScheduleRun, job: string, status: string, content = "") {
    await t.query(`UPDATE ${table("agno_jobs")} SET status = $2::text, error = $3 WHERE id = $1`, [
      run.job_id,
      job,
      job === "FAILED" ? content : null,
    ]);
    await t.query(
      `UPDATE ${table("agno_runs")} SET status = $2::text, run_data = run_data || jsonb_build_object('status', $2::text, 'content', $3::text) WHERE run_id = $1`,
      [run.run_id, status, content],
    );
  }

  it("dispatches a due schedule once to the queue and moves next_run_at to the next occurrence", async () => {
    const s = await schedule("*/5 * * * *", T);
    const before = wakes;
    const report = await tick(T + 30);
    expect(report).toMatchObject({ claimed: 1, dispatched: 1, advanced: 1, failed: 0 });
    expect(wakes).toBe(before + 1);
    const [run] = await runsOf(s);
    expect(run).toMatchObject({
      status: "running",
      attempt: 1,
      scheduled_for: T,
      triggered_at: T + 30,
      status_code: 202,
      user_id: "owner-1",
      input: { message: "scheduled hello" },
    });
    expect(await jobsOf(s)).toEqual([
      { id: run!.job_id, idempotency_key: `schedule:${s.id}:${T}`, max_attempts: 1, user_id: "owner-1" },
    ]);
    const queued = await t.db.getRun(run!.run_id!);
    expect(queued).toMatchObject({ status: "PENDING", session_id: run!.session_id, user_id: "owner-1" });
    expect(await t.db.schedules.getSchedule(s.id)).toMatchObject({
      next_run_at: T + 300,
      locked_by: null,
      locked_at: null,
      enabled: true,
    });
  });

  it("is harmless when the same minute is invoked twice, at once or one after the other", async () => {
    const s = await schedule("* * * * *", T);
    const [a, b] = await Promise.all([tick(T), tick(T)]);
    expect(a.dispatched + b.dispatched).toBe(1);
    expect((await tick(T)).claimed).toBe(0);
    expect(await jobsOf(s)).toHaveLength(1);
    expect(await runsOf(s)).toHaveLength(1);
    expect((await t.db.schedules.getSchedule(s.id))!.next_run_at).toBe(T + 60);
  });

  it("is harmless when a minute's invocation arrives after the next one's", async () => {
    const s = await schedule("* * * * *", T);
    await tick(T + 60); // the 12:01 tick runs first (12:00's occurrence, coalesced)
    const late = await tick(T); // then 12:00's invocation arrives
    expect(late.claimed).toBe(0);
    expect(await jobsOf(s)).toHaveLength(1);
    expect((await t.db.schedules.getSchedule(s.id))!.next_run_at).toBe(T + 120);
  });

  it("coalesces the minutes missed during an outage into one run per schedule, not a storm", async () => {
    const every = await schedule("* * * * *", T - 6 * 3600);
    const hourly = await schedule("0 * * * *", T - 6 * 3600);
    const report = await tick(T + 5);
    expect(report.dispatched).toBeGreaterThanOrEqual(2);
    expect((await jobsOf(every)).map((j) => j.idempotency_key)).toEqual([`schedule:${every.id}:${T - 6 * 3600}`]);
    expect(await jobsOf(hourly)).toHaveLength(1);
    expect((await t.db.schedules.getSchedule(every.id))!.next_run_at).toBe(T + 60);
    expect((await t.db.schedules.getSchedule(hourly.id))!.next_run_at).toBe(T + 3600);
  });

  it("a tick that dies after enqueueing: its claim holds off others, then the next tick re-dispatches the same job", async () => {
    const s = await schedule("*/10 * * * *", T);
    const [claimed] = (
      await t.db.schedules.claimDueSchedules({ workerId: "dead-tick", dueBy: T, now: T, limit: 1000, lockSeconds: 300 })
    ).filter((c) => c.id === s.id);
    await dispatchAttempt({ jobs: t.db.jobs }, claimed!, {
      occurrenceKey: `schedule:${s.id}:${T}`,
      attempt: 1,
      scheduledFor: T,
      now: T,
    }); // ...and the process dies
    expect((await tick(T + 60)).claimed).toBe(0); // still locked by the dead tick
    expect((await tick(T + 301)).claimed).toBe(1); // the lock lapsed
    expect(await jobsOf(s)).toHaveLength(1); // the idempotency key made the second enqueue return the first job
    expect(await runsOf(s)).toHaveLength(1);
    expect((await t.db.schedules.getSchedule(s.id))!.next_run_at).toBe(T + 600);
  });

  it("an edit made while a tick holds its claim wins: the tick still runs the claimed occurrence, moves nothing, and releases its lock", async () => {
    const s = await schedule("*/10 * * * *", T);
    let edited: Schedule | undefined;
    // The real tick, with a user's PATCH landing between its claim and its settle.
    const schedules = Object.assign(Object.create(t.db.schedules) as typeof t.db.schedules, {
      settleClaims: async (...args: Parameters<typeof t.db.schedules.settleClaims>) => {
        edited = await t.db.schedules.updateSchedule(s.id, { cron_expr: "0 * * * *" });
        return t.db.schedules.settleClaims(...args);
      },
    });
    const report = await runDueSchedules({ schedules, jobs: t.db.jobs }, { now: () => T }, T * 1000);
    expect(report).toMatchObject({ claimed: 1, dispatched: 1, advanced: 0 });
    expect(edited!.next_run_at).not.toBe(T);
    expect(await t.db.schedules.getSchedule(s.id)).toMatchObject({
      cron_expr: "0 * * * *",
      next_run_at: edited!.next_run_at,
      locked_by: null,
      locked_at: null,
      enabled: true,
    });
    expect(await runsOf(s)).toHaveLength(1);
  });

  it("runs each occurrence in a new session unless the payload names one, never streamed", async () => {
    const session = `sched-session-${crypto.randomUUID()}`;
    const fresh = await schedule("* * * * *", T);
    const named = await schedule("* * * * *", T, { payload: { message: "into my session", session_id: session } });
    await tick(T);
    await tick(T + 60);
    const freshRuns = await runsOf(fresh);
    expect(freshRuns).toHaveLength(2);
    expect(freshRuns[0]!.session_id).not.toBe(freshRuns[1]!.session_id);
    expect((await runsOf(named)).map((r) => r.session_id)).toEqual([session, session]);
    const payloads = await t.query<{ payload: { stream: unknown } }>(
      `SELECT payload FROM ${table("agno_jobs")} WHERE id = ANY($1)`,
      [[...freshRuns, ...(await runsOf(named))].map((r) => r.job_id)],
    );
    expect(payloads.map((p) => p.payload.stream)).toEqual([false, false, false, false]);
  });

  it("deleting a schedule removes its attempts; the run it already queued stays queued", async () => {
    const s = await schedule("0 0 * * *", T);
    await tick(T);
    const [run] = await runsOf(s);
    await t.db.schedules.deleteSchedule(s.id);
    expect(await t.db.schedules.getSchedule(s.id)).toBeNull();
    expect(await t.query(`SELECT id FROM ${table("agno_schedule_runs")} WHERE schedule_id = $1`, [s.id])).toEqual([]);
    expect((await t.db.jobs.getJob(run!.job_id!))!.status).toBe("PENDING");
    expect((await t.db.getRun(run!.run_id!))!.status).toBe("PENDING");
  });

  it("records each attempt's final status from its run, and retries failures up to max_retries after retry_delay_seconds", async () => {
    const s = await schedule("0 0 * * *", T, { max_retries: 2, retry_delay_seconds: 30 });
    await tick(T);
    for (const [i, at] of [
      [0, T + 10],
      [1, T + 50],
    ] as const) {
      const attempt = (await runsOf(s))[i]!;
      await finish(attempt, "COMPLETED", "ERROR", `model down ${i}`);
      expect((await tick(at)).reconciled).toBeGreaterThanOrEqual(1);
      expect((await runsOf(s))[i]).toMatchObject({
        status: "failed",
        error: `model down ${i}`,
        completed_at: at,
        next_attempt_at: at + 30,
      });
      expect((await tick(at + 29)).retried).toBe(0);
      expect((await tick(at + 30)).retried).toBe(1);
    }
    const runs = await runsOf(s);
    expect(runs.map((r) => [r.attempt, r.status])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [3, "running"],
    ]);
    expect(new Set(runs.map((r) => r.session_id)).size).toBe(1); // retries continue the first attempt's session
    expect((await jobsOf(s)).map((j) => j.idempotency_key)).toEqual([
      `schedule:${s.id}:${T}`,
      `schedule:${s.id}:${T}#2`,
      `schedule:${s.id}:${T}#3`,
    ]);
    await finish(runs[2]!, "COMPLETED", "COMPLETED", "third time");
    await tick(T + 200);
    expect((await runsOf(s))[2]).toMatchObject({
      status: "success",
      output: { content: "third time" },
      error: null,
      next_attempt_at: null,
    });
    const last = await tick(T + 10_000);
    expect(last.retried).toBe(0);
  });

  it("stops a run still going after timeout_seconds: the attempt times out and its run is cancelled", async () => {
    const s = await schedule("0 0 * * *", T, { timeout_seconds: 60, max_retries: 1, retry_delay_seconds: 5 });
    await tick(T);
    const [first] = await runsOf(s);
    expect((await tick(T + 59)).timedOut).toBe(0);
    expect((await tick(T + 60)).timedOut).toBe(1);
    expect((await runsOf(s))[0]).toMatchObject({
      status: "timeout",
      completed_at: T + 60,
      next_attempt_at: T + 65,
      error: expect.stringMatching(/timeout_seconds \(60 s\)/),
    });
    expect((await t.db.jobs.getJob(first!.job_id!))!.status).toBe("CANCELLED");
    expect((await t.db.getRun(first!.run_id!))!.status).toBe("CANCELLED");
    expect((await tick(T + 65)).retried).toBe(1);
    expect((await runsOf(s)).map((r) => r.status)).toEqual(["timeout", "running"]);
  });

  it("settles paused and cancelled runs, and a job that failed before its run started", async () => {
    const s = await schedule("0 0 * * *", T);
    await tick(T);
    const [run] = await runsOf(s);
    await t.query(
      `UPDATE ${table("agno_runs")} SET status = 'PAUSED', run_data = run_data || '{"status":"PAUSED","requirements":[{"id":"req-1"}]}' WHERE run_id = $1`,
      [run!.run_id],
    );
    await t.query(`UPDATE ${table("agno_jobs")} SET status = 'COMPLETED' WHERE id = $1`, [run!.job_id]);
    const other = await schedule("0 0 * * *", T);
    await tick(T + 1);
    const [never] = await runsOf(other);
    await t.query(
      `UPDATE ${table("agno_jobs")} SET status = 'FAILED', error = 'agent gone is not served by this deployment' WHERE id = $1`,
      [never!.job_id],
    );
    await tick(T + 2);
    expect((await runsOf(s))[0]).toMatchObject({ status: "paused", requirements: [{ id: "req-1" }] });
    expect((await runsOf(other))[0]).toMatchObject({
      status: "failed",
      error: "agent gone is not served by this deployment",
      next_attempt_at: null,
    });
  });

  it("settleJobScheduleRuns settles the attempts of the jobs named, once they ended, and leaves every other attempt to the tick", async () => {
    const [a, b, c] = [await schedule("0 0 * * *", T), await schedule("0 0 * * *", T), await schedule("0 0 * * *", T)];
    await tick(T);
    const [ra, rb, rc] = [(await runsOf(a))[0]!, (await runsOf(b))[0]!, (await runsOf(c))[0]!];
    await finish(ra, "COMPLETED", "COMPLETED", "done at once");
    await finish(rb, "COMPLETED", "COMPLETED", "left for the tick");
    // c's job is named but still running: nothing to settle yet.
    expect(await t.db.schedules.settleJobScheduleRuns([ra.job_id!, rc.job_id!], T + 5)).toBe(1);
    expect((await runsOf(a))[0]).toMatchObject({
      status: "success",
      completed_at: T + 5,
      output: { content: "done at once" },
    });
    expect((await runsOf(b))[0]).toMatchObject({ status: "running" });
    expect((await runsOf(c))[0]).toMatchObject({ status: "running" });
    // Settled once: naming the job again changes nothing, and the tick takes only b.
    expect(await t.db.schedules.settleJobScheduleRuns([ra.job_id!], T + 6)).toBe(0);
    expect(await t.db.schedules.settleJobScheduleRuns([], T + 6)).toBe(0);
    expect((await tick(T + 7)).reconciled).toBe(1);
    expect((await runsOf(a))[0]).toMatchObject({ completed_at: T + 5 });
    expect((await runsOf(b))[0]).toMatchObject({ status: "success", completed_at: T + 7 });
  });

  it("a job cancelled before it started settles its attempt as cancelled with the cancel (the job store as the Worker's routes get it)", async () => {
    const s = await schedule("0 0 * * *", T);
    await tick(T);
    const [attempt] = await runsOf(s);
    const jobs = settlingCancelledScheduleRuns(t.db.jobs, t.db.schedules);
    expect(await jobs.cancelJob(attempt!.job_id!)).toBe("cancelled");
    expect((await runsOf(s))[0]).toMatchObject({ status: "cancelled", completed_at: expect.any(Number) });
    // Every other call is the store's own.
    expect(await jobs.getJob(attempt!.job_id!)).toMatchObject({ status: "CANCELLED" });
  });

  it("disables a schedule whose cron can no longer be computed, and one that never fires again after its last run", async () => {
    const broken = await schedule("* * * * *", T);
    const last = await schedule("* * * * *", T);
    await t.query(`UPDATE ${table("agno_schedules")} SET cron_expr = 'every minute please' WHERE id = $1`, [broken.id]);
    await t.query(`UPDATE ${table("agno_schedules")} SET cron_expr = '0 0 30 2 *' WHERE id = $1`, [last.id]);
    const report = await tick(T);
    expect(report.disabled).toBe(2);
    expect(await t.db.schedules.getSchedule(broken.id)).toMatchObject({
      enabled: false,
      next_run_at: null,
      disabled_reason: expect.stringMatching(/cron_expr can no longer be computed/),
    });
    expect(await jobsOf(broken)).toHaveLength(0);
    expect(await t.db.schedules.getSchedule(last.id)).toMatchObject({
      enabled: false,
      disabled_reason: expect.stringMatching(/no occurrence after/),
    });
    expect(await jobsOf(last)).toHaveLength(1);
    expect((await tick(T + 60)).claimed).toBe(0);
  });

  it("a dispatch the queue refuses is a failed attempt with its error, and retried", async () => {
    const s = await schedule("0 0 * * *", T, { max_retries: 1, retry_delay_seconds: 10 });
    await tick(T, { maxDepth: 0 });
    expect((await runsOf(s))[0]).toMatchObject({
      status: "failed",
      status_code: 429,
      job_id: null,
      next_attempt_at: T + 10,
      error: expect.stringMatching(/queue is full/),
    });
    await tick(T + 10);
    expect((await runsOf(s)).map((r) => r.status)).toEqual(["failed", "running"]);
  });
});
