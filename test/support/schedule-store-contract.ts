import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, QuotaExceededError, ValidationError } from "../../src/errors.js";
import { runDueSchedules } from "../../src/scheduler/run-due.js";
import type { ContractDb } from "./db-contract.js";

const base = { endpoint: "/agents/assistant/runs", cron_expr: "0 8 * * *", payload: { message: "hi" } };

/**
 * The schedules' storage contract (SPEC SC1-SC2, U1, per-user quotas), part of the Db contract:
 * `c()` is the suite's shared database, `make()` opens one of a test's own.
 */
export function describeScheduleStoreContract(c: () => ContractDb, make: () => ContractDb | Promise<ContractDb>): void {
  describe("schedules", () => {
    it("creates with agno's defaults and the first occurrence; names are unique per user", async () => {
      const s = await c().db.schedules.createSchedule(
        { ...base, name: "daily", timezone: "Europe/Berlin", method: "post" },
        { userId: "ua" },
      );
      expect(s).toMatchObject({
        method: "POST",
        timezone: "Europe/Berlin",
        timeout_seconds: 3600,
        max_retries: 0,
        retry_delay_seconds: 60,
        enabled: true,
        user_id: "ua",
        disabled_reason: null,
      });
      expect(
        new Date(s.next_run_at! * 1000).toLocaleString("en-GB", {
          timeZone: "Europe/Berlin",
          hour: "2-digit",
          minute: "2-digit",
        }),
      ).toBe("08:00");
      await expect(c().db.schedules.createSchedule({ ...base, name: "daily" }, { userId: "ua" })).rejects.toThrow(
        ConflictError,
      );
      expect((await c().db.schedules.createSchedule({ ...base, name: "daily" }, { userId: "ub" })).user_id).toBe("ub");
      await expect(
        c().db.schedules.createSchedule({ ...base, name: "shared" }, { userId: null }),
      ).resolves.toMatchObject({
        user_id: null,
      });
      await expect(c().db.schedules.createSchedule({ ...base, name: "shared" }, { userId: null })).rejects.toThrow(
        ConflictError,
      );
    });

    it("refuses bad input with a 422 naming the field, and writes nothing", async () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ cron_expr: "0 8 * *" }, /cron_expr/],
        [{ timezone: "Moon/Base" }, /timezone/],
        [{ endpoint: "https://evil.example/agents/assistant/runs" }, /endpoint must be a path/],
        [{ endpoint: "/sessions" }, /not a run endpoint/],
        [{ method: "DELETE" }, /method/],
        [{ payload: { message: "x", user_id: "someone-else" } }, /payload\.user_id/],
        [{ payload: { prompt: "x" } }, /payload\.prompt/],
        [{ payload: {} }, /payload\.message/],
        [{ owner: "x" }, /owner: not a schedule field/],
        [{ max_retries: 11 }, /max_retries/],
        [{ name: "has space" }, /name/],
      ];
      for (const [change, error] of cases) {
        await expect(
          c().db.schedules.createSchedule({ ...base, name: "bad", ...change } as never, { userId: "ua" }),
          JSON.stringify(change),
        ).rejects.toThrow(error);
      }
      expect((await c().db.schedules.listSchedules({}, { userId: "ua" })).data.map((s) => s.name)).not.toContain("bad");
    });

    it("updateSchedule changes only the whitelisted fields; ownership, origin and locks never move through it", async () => {
      const s = await c().db.schedules.createSchedule({ ...base, name: "editable" }, { userId: "ua" });
      for (const field of [
        "user_id",
        "locked_by",
        "locked_at",
        "managed_by",
        "target_id",
        "created_by_run_id",
        "id",
        "created_at",
      ]) {
        await expect(c().db.schedules.updateSchedule(s.id, { [field]: "x" }, { userId: "ua" })).rejects.toThrow(
          expect.objectContaining({
            field,
            message: expect.stringContaining(`${field}: cannot be changed by updateSchedule`),
          }),
        );
      }
      await expect(
        c().db.schedules.updateSchedule(s.id, { cron_expr: "0 9 * * *", owner: "ub" }, { userId: "ua" }),
      ).rejects.toThrow(/owner/);
      expect((await c().db.schedules.getSchedule(s.id))!.cron_expr).toBe("0 8 * * *");
      const moved = await c().db.schedules.updateSchedule(
        s.id,
        { cron_expr: "30 9 * * *", timezone: "Asia/Tokyo", description: "later", max_retries: 2 },
        { userId: "ua" },
      );
      expect(moved).toMatchObject({
        cron_expr: "30 9 * * *",
        timezone: "Asia/Tokyo",
        description: "later",
        max_retries: 2,
        user_id: "ua",
      });
      expect(moved.next_run_at).not.toBe(s.next_run_at);
      // A body that sets next_run_at keeps it, with a new cron and on re-enabling alike.
      expect(
        (
          await c().db.schedules.updateSchedule(
            s.id,
            { cron_expr: "45 9 * * *", next_run_at: 4_000_000_000 },
            { userId: "ua" },
          )
        ).next_run_at,
      ).toBe(4_000_000_000);
      await c().db.schedules.disableSchedule(s.id, { userId: "ua" });
      expect(
        await c().db.schedules.updateSchedule(s.id, { enabled: true, next_run_at: 4_000_000_060 }, { userId: "ua" }),
      ).toMatchObject({ enabled: true, next_run_at: 4_000_000_060 });
      await expect(c().db.schedules.updateSchedule(s.id, { timezone: "Not/AZone" }, { userId: "ua" })).rejects.toThrow(
        ValidationError,
      );
      await c().db.schedules.createSchedule({ ...base, name: "taken" }, { userId: "ua" });
      await expect(c().db.schedules.updateSchedule(s.id, { name: "taken" }, { userId: "ua" })).rejects.toThrow(
        ConflictError,
      );
      const off = await c().db.schedules.disableSchedule(s.id, { userId: "ua" }, "paused by hand");
      expect(off).toMatchObject({ enabled: false, disabled_reason: "paused by hand" });
      const on = await c().db.schedules.enableSchedule(s.id, { userId: "ua" });
      expect(on).toMatchObject({ enabled: true, disabled_reason: null, next_run_at: expect.any(Number) });
    });

    it("scopes every call to its user: another user's schedule is not found, and stays as it was", async () => {
      const mine = await c().db.schedules.createSchedule({ ...base, name: "private" }, { userId: "owner-a" });
      const b = { userId: "owner-b" };
      expect(await c().db.schedules.getSchedule(mine.id, b)).toBeNull();
      await expect(c().db.schedules.updateSchedule(mine.id, { enabled: false }, b)).rejects.toThrow(NotFoundError);
      await expect(c().db.schedules.deleteSchedule(mine.id, b)).rejects.toThrow(NotFoundError);
      await expect(c().db.schedules.listScheduleRuns(mine.id, {}, b)).rejects.toThrow(NotFoundError);
      expect((await c().db.schedules.listSchedules({}, b)).data.map((s) => s.id)).not.toContain(mine.id);
      expect(await c().db.schedules.getSchedule(mine.id, { userId: "owner-a" })).toMatchObject({
        enabled: true,
        name: "private",
      });
      const shared = await c().db.schedules.createSchedule({ ...base, name: "for-everyone" }, { userId: null });
      expect(await c().db.schedules.getSchedule(shared.id, { ...b, includeShared: true })).not.toBeNull();
      await expect(c().db.schedules.updateSchedule(shared.id, { enabled: false }, b)).rejects.toThrow(NotFoundError);
      await c().db.schedules.deleteSchedule(mine.id, { userId: "owner-a" });
      expect(await c().db.schedules.getSchedule(mine.id)).toBeNull();
    });

    it("paginates within bounds", async () => {
      for (let i = 0; i < 5; i++)
        await c().db.schedules.createSchedule({ ...base, name: `page-${i}` }, { userId: "pager" });
      const page = await c().db.schedules.listSchedules({ limit: 2, page: 2 }, { userId: "pager" });
      expect(page).toMatchObject({ page: 2, limit: 2, total_count: 5, total_pages: 3 });
      expect(page.data).toHaveLength(2);
      await expect(c().db.schedules.listSchedules({ limit: 1001 })).rejects.toThrow(/limit/);
    });

    it("DST through the tick: a 02:30 New York schedule ticked every 30 minutes runs once a day across spring-forward and fall-back", async () => {
      // A database of its own: the tick sees only this test's schedules.
      const own = await make();
      await own.db.init();
      const store = own.db.schedules;
      for (const [from, to, expected] of [
        [
          "2026-03-07T05:00:00Z",
          "2026-03-09T12:00:00Z",
          ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"],
        ],
        [
          "2026-10-31T05:00:00Z",
          "2026-11-02T12:00:00Z",
          ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"],
        ],
      ] as const) {
        const cron = from.startsWith("2026-03") ? "30 2 * * *" : "30 1 * * *";
        const s = await store.createSchedule(
          { ...base, name: `dst-${from.slice(0, 7)}`, cron_expr: cron, timezone: "America/New_York" },
          { userId: "dst" },
        );
        await store.updateSchedule(s.id, { next_run_at: Date.parse(expected[0]) / 1000 });
        for (let at = Date.parse(from) / 1000; at <= Date.parse(to) / 1000; at += 1800)
          await runDueSchedules(own.db, { now: () => at }, at * 1000);
        const runs = (await store.listScheduleRuns(s.id, { limit: 100 })).data;
        expect(runs.map((r) => new Date(r.scheduled_for! * 1000).toISOString()).sort()).toEqual(expected);
        await store.disableSchedule(s.id);
      }
      await own.close();
    }, 120_000);

    it("refuses a user's schedule past their cap with a 429 naming it, not another user's", async () => {
      // A database of its own: the shared principal's schedules of other tests would count too.
      const own = await make();
      await own.db.init();
      const create = (userId: string | null, name: string) =>
        own.db.schedules.createSchedule(
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
      await own.close();
    });

    it("a tick with one user's many due schedules queues up to their job cap and records the rest as failed attempts with the reason", async () => {
      const own = await make();
      try {
        await own.db.init();
        const T = Date.parse("2031-03-03T08:00:00Z") / 1000;
        const due = async (userId: string, name: string) => {
          const s = await own.db.schedules.createSchedule(
            { name, cron_expr: "* * * * *", endpoint: "/agents/assistant/runs", payload: { message: "tick" } },
            { userId },
          );
          return own.db.schedules.updateSchedule(s.id, { next_run_at: T });
        };
        const many = [];
        for (let i = 0; i < 6; i++) many.push(await due("tick-a", `many-${i}`));
        const other = await due("tick-b", "other");
        const report = await runDueSchedules(own.db, { now: () => T, maxUserJobs: 2 }, T * 1000);
        expect(report).toMatchObject({ claimed: 7, dispatched: 3, failed: 4 });
        const jobs = (await own.db.jobs.listJobs({ limit: 100, page: 1 })).data;
        expect(jobs.map((j) => j.user_id).sort()).toEqual(["tick-a", "tick-a", "tick-b"]);
        const attempts = (await Promise.all(many.map((s) => own.db.schedules.listScheduleRuns(s.id)))).map(
          (p) => p.data[0]!,
        );
        expect(attempts.filter((r) => r.status === "running")).toHaveLength(2);
        const failed = attempts.filter((r) => r.status === "failed");
        expect(failed).toHaveLength(4);
        for (const r of failed)
          expect(r).toMatchObject({
            status_code: 429,
            job_id: null,
            error: expect.stringMatching(/per-user job cap \(2 .*tick-a/),
          });
        expect((await own.db.schedules.listScheduleRuns(other.id)).data[0]).toMatchObject({
          status: "running",
          status_code: 202,
        });
      } finally {
        await own.close();
      }
    });

    it("a tick settles an attempt from its run: success with the run's output, a failure retried while retries remain, a timeout cancelled", async () => {
      const own = await make();
      try {
        await own.db.init();
        const T = Date.parse("2031-05-05T08:00:00Z") / 1000;
        const schedule = async (name: string, extra: Record<string, unknown> = {}) => {
          const s = await own.db.schedules.createSchedule(
            { ...base, name, cron_expr: "0 8 * * *", ...extra },
            { userId: "rec" },
          );
          return own.db.schedules.updateSchedule(s.id, { next_run_at: T });
        };
        const ok = await schedule("ok");
        const bad = await schedule("bad", { max_retries: 1, retry_delay_seconds: 30 });
        const slow = await schedule("slow", { timeout_seconds: 60 });
        expect(await runDueSchedules(own.db, { now: () => T }, T * 1000)).toMatchObject({ claimed: 3, dispatched: 3 });
        const attempt = async (s: { id: string }) => (await own.db.schedules.listScheduleRuns(s.id)).data[0]!;
        const [okRun, badRun, slowRun] = [await attempt(ok), await attempt(bad), await attempt(slow)];
        expect(await own.db.schedules.getScheduleRun(ok.id, okRun.id, { userId: "rec" })).toEqual(okRun);
        expect(await own.db.schedules.getScheduleRun(ok.id, okRun.id, { userId: "someone-else" })).toBeNull();
        // The queue runs two of them: one completes, one fails for good; the third never ends.
        const claimed = await own.db.jobs.claimJobs({ workerId: "w", limit: 10, leaseSeconds: 600 });
        expect(claimed).toHaveLength(3);
        for (const job of claimed) {
          const lease = { id: job.id, attempt: job.attempt, workerId: "w" };
          const run = (await own.db.getRun(job.payload.run_id))!.run_data;
          if (job.id === okRun.job_id) {
            await own.db.upsertRun({ ...run, status: "RUNNING" }, { expectStatus: ["PENDING"] });
            await own.db.jobs.completeWithRun(
              lease,
              { ...run, status: "COMPLETED", content: "all good", content_type: "str" },
              ["RUNNING"],
            );
          } else if (job.id === badRun.job_id) {
            await own.db.upsertRun({ ...run, status: "ERROR", content: "it broke" }, { expectStatus: ["PENDING"] });
            await own.db.jobs.finishJob(lease, { status: "FAILED", error: "it broke" });
          }
        }
        const later = T + 120;
        const report = await runDueSchedules(own.db, { now: () => later }, later * 1000);
        expect(report).toMatchObject({ reconciled: 2, timedOut: 1, retried: 0 });
        expect(await own.db.schedules.getScheduleRun(ok.id, okRun.id)).toMatchObject({
          status: "success",
          error: null,
          output: { content: "all good", content_type: "str" },
          completed_at: later,
        });
        expect(await own.db.schedules.getScheduleRun(bad.id, badRun.id)).toMatchObject({
          status: "failed",
          error: "it broke",
          next_attempt_at: later + 30,
        });
        // Its retry falls due a retry_delay_seconds later: attempt 2 of the same occurrence.
        expect(await runDueSchedules(own.db, { now: () => later + 30 }, (later + 30) * 1000)).toMatchObject({
          retried: 1,
          dispatched: 1,
        });
        expect((await own.db.schedules.getScheduleRun(bad.id, badRun.id))!.next_attempt_at).toBeNull();
        const retries = (await own.db.schedules.listScheduleRuns(bad.id)).data;
        expect(retries.map((r) => [r.attempt, r.status])).toEqual([
          [2, "running"],
          [1, "failed"],
        ]);
        expect(await own.db.schedules.getScheduleRun(slow.id, slowRun.id)).toMatchObject({
          status: "timeout",
          error: expect.stringMatching(/timeout_seconds \(60 s\)/),
        });
        expect((await own.db.jobs.getJob(slowRun.job_id!))!.status).toBe("RUNNING");
        expect((await own.db.getRun((await own.db.jobs.getJob(slowRun.job_id!))!.payload.run_id))!.status).toBe(
          "CANCELLED",
        );
      } finally {
        await own.close();
      }
    });

    it("an eval schedule (/eval-runs) queues an eval_run job per occurrence, settled from the job's end", async () => {
      const own = await make();
      try {
        await own.db.init();
        const T = Date.parse("2031-06-06T08:00:00Z") / 1000;
        const evalPayload = { agent_id: "assistant", eval_type: "accuracy", input: "2+2?", expected_output: "4" };
        const schedule = async (name: string) => {
          const s = await own.db.schedules.createSchedule(
            { name, cron_expr: "0 8 * * *", endpoint: "/eval-runs", payload: evalPayload },
            { userId: "ev" },
          );
          return own.db.schedules.updateSchedule(s.id, { next_run_at: T });
        };
        const ok = await schedule("eval-ok");
        const bad = await schedule("eval-bad");
        expect(await runDueSchedules(own.db, { now: () => T }, T * 1000)).toMatchObject({ claimed: 2, dispatched: 2 });
        const attempt = async (s: { id: string }) => (await own.db.schedules.listScheduleRuns(s.id)).data[0]!;
        const [okRun, badRun] = [await attempt(ok), await attempt(bad)];
        // The attempt names the eval run, which is its job's id.
        expect(okRun).toMatchObject({ status: "running", run_id: okRun.job_id, input: evalPayload });
        const job = (await own.db.jobs.getJob(okRun.job_id!))!;
        expect(job).toMatchObject({ job_type: "eval_run", component_type: "agent", user_id: "ev", max_attempts: 1 });
        expect(job.payload).toMatchObject({ eval_run_id: job.id, input: { ...evalPayload, num_iterations: 1 } });
        for (const claimed of await own.db.jobs.claimJobs({ workerId: "w", limit: 10, leaseSeconds: 600 })) {
          const lease = { id: claimed.id, attempt: claimed.attempt, workerId: "w" };
          if (claimed.id === okRun.job_id) await own.db.jobs.finishJob(lease, { status: "COMPLETED" });
          else await own.db.jobs.finishJob(lease, { status: "FAILED", error: "the judge gave no verdict" });
        }
        const later = T + 60;
        expect(await runDueSchedules(own.db, { now: () => later }, later * 1000)).toMatchObject({ reconciled: 2 });
        expect(await own.db.schedules.getScheduleRun(ok.id, okRun.id)).toMatchObject({
          status: "success",
          error: null,
          output: null,
        });
        expect(await own.db.schedules.getScheduleRun(bad.id, badRun.id)).toMatchObject({
          status: "failed",
          error: "the judge gave no verdict",
        });
        // A stored payload is checked as at create: a bad one is refused, naming it.
        await expect(
          own.db.schedules.updateSchedule(ok.id, { payload: { ...evalPayload, expected_output: null } }),
        ).rejects.toThrow(/payload: expected_output is required/);
      } finally {
        await own.close();
      }
    });
  });
}
