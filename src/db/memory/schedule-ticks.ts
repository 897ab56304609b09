import { ConflictError } from "../../errors.js";
import type {
  DueRetry,
  NewScheduleRun,
  Schedule,
  ScheduleAdvance,
  ScheduleRun,
  ScheduleRunStatus,
  ScheduleTicks,
} from "../../scheduler/types.js";
import type { RunRow } from "../types.js";
import { compareIds, copy, stored, type MemoryTables, type ScheduleRunRow } from "./tables.js";

/**
 * The cron tick's work on schedules and their attempts in memory, with the Postgres adapter's
 * rules (see ScheduleTicks): claims lock schedules for `lockSeconds`, an advance applies only to
 * the next_run_at it claimed, and an attempt is recorded once per occurrence and attempt.
 */
export class MemoryScheduleTicks implements ScheduleTicks {
  constructor(protected readonly t: MemoryTables) {}

  async claimDueSchedules(o: {
    workerId: string;
    dueBy: number;
    now: number;
    limit: number;
    lockSeconds: number;
  }): Promise<Schedule[]> {
    return [...this.t.schedules.values()]
      .filter(
        (s) =>
          s.enabled &&
          s.next_run_at !== null &&
          s.next_run_at <= o.dueBy &&
          (s.locked_at === null || s.locked_at <= o.now - o.lockSeconds),
      )
      .sort((a, b) => a.next_run_at! - b.next_run_at! || compareIds(a.id, b.id))
      .slice(0, Math.max(0, o.limit))
      .map((s) => copy(this.putSchedule({ ...s, locked_by: o.workerId, locked_at: o.now })));
  }

  async settleClaims(
    workerId: string,
    advances: ScheduleAdvance[],
    runs: NewScheduleRun[],
    now: number,
  ): Promise<{ advanced: number; recorded: number }> {
    if (advances.length === 0 && runs.length === 0) return { advanced: 0, recorded: 0 };
    return this.t.transaction(() => {
      let advanced = 0;
      for (const a of advances) {
        const s = this.t.schedules.get(a.id);
        if (!s) continue;
        // Moves only a schedule still at its claimed next_run_at: an edit made meanwhile, or a
        // tick that got there first, wins. This worker's lock is released either way.
        const moving = s.next_run_at === a.claimed;
        if (!moving && s.locked_by !== workerId) continue;
        if (moving) advanced++;
        this.putSchedule({
          ...s,
          ...(moving
            ? {
                next_run_at: a.next,
                enabled: s.enabled && a.next !== null,
                disabled_reason: a.disabled_reason ?? s.disabled_reason,
              }
            : {}),
          locked_by: null,
          locked_at: null,
          updated_at: now,
        });
      }
      return { advanced, recorded: this.insertRuns(runs, now).length };
    });
  }

  async reconcileScheduleRuns(now: number): Promise<number> {
    return this.settleEnded(now);
  }

  async settleJobScheduleRuns(jobIds: string[], now: number): Promise<number> {
    if (jobIds.length === 0) return 0;
    return this.settleEnded(now, new Set(jobIds));
  }

  /** Gives running attempts whose job ended (of the jobs in `only`, when given) their final status. */
  private settleEnded(now: number, only?: Set<string>): number {
    let settled = 0;
    for (const sr of [...this.t.scheduleRuns.values()]) {
      if (only && (sr.job_id === null || !only.has(sr.job_id))) continue;
      const job = sr.status === "running" && sr.job_id !== null ? this.t.jobs.get(sr.job_id) : undefined;
      if (!job || !["COMPLETED", "FAILED", "CANCELLED"].includes(job.status)) continue;
      const schedule = this.t.schedules.get(sr.schedule_id);
      const run = sr.run_id === null ? undefined : this.t.runs.get(sr.run_id);
      // The run's status decides (a job ends COMPLETED for a paused run too); the job's, when the
      // run is gone or never started (a component this deployment no longer serves), or the job
      // runs no run (an eval).
      const status = run?.status ?? null;
      const outcome: ScheduleRunStatus =
        status === "COMPLETED" || (status === null && job.status === "COMPLETED")
          ? "success"
          : status === "PAUSED"
            ? "paused"
            : status === "CANCELLED" || job.status === "CANCELLED"
              ? "cancelled"
              : "failed";
      const ended = status === "COMPLETED" || status === "PAUSED" || (status === null && job.status === "COMPLETED");
      this.t.scheduleRuns.set(sr.id, {
        ...sr,
        status: outcome,
        completed_at: now,
        error: ended ? null : (job.error ?? contentText(run) ?? `the run ended ${status ?? job.status}`),
        output:
          status === "COMPLETED"
            ? { content: run!.run_data.content ?? null, content_type: run!.run_data.content_type ?? null }
            : null,
        requirements: status === "PAUSED" ? ((run!.run_data.requirements as unknown[] | undefined) ?? null) : null,
        next_attempt_at: outcome === "failed" ? this.retryAt(sr, schedule, now) : null,
      });
      settled++;
    }
    return settled;
  }

  async expireScheduleRuns(now: number): Promise<string[]> {
    const jobIds: string[] = [];
    for (const sr of [...this.t.scheduleRuns.values()]) {
      const s = this.t.schedules.get(sr.schedule_id);
      if (!s || sr.status !== "running" || sr.triggered_at === null || sr.triggered_at + s.timeout_seconds > now)
        continue;
      this.t.scheduleRuns.set(sr.id, {
        ...sr,
        status: "timeout",
        completed_at: now,
        error: `no result within timeout_seconds (${s.timeout_seconds} s): the run was cancelled`,
        next_attempt_at: this.retryAt(sr, s, now),
      });
      if (sr.job_id !== null) jobIds.push(sr.job_id);
    }
    return jobIds;
  }

  async dueScheduleRetries(now: number, limit: number): Promise<DueRetry[]> {
    return [...this.t.scheduleRuns.values()]
      .filter(
        (sr) =>
          sr.next_attempt_at !== null &&
          sr.next_attempt_at <= now &&
          sr.occurrence_key !== null &&
          this.t.schedules.get(sr.schedule_id)?.enabled === true,
      )
      .sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || compareIds(a.id, b.id))
      .slice(0, Math.max(0, limit))
      .map((sr) => ({
        parent: copy(sr) as DueRetry["parent"],
        schedule: copy(this.t.schedules.get(sr.schedule_id)!),
      }));
  }

  async recordScheduleRuns(runs: NewScheduleRun[], now: number, retried: string[] = []): Promise<ScheduleRun[]> {
    if (runs.length === 0 && retried.length === 0) return [];
    return this.t.transaction(() => {
      for (const id of retried) {
        const sr = this.t.scheduleRuns.get(id);
        if (sr) this.t.scheduleRuns.set(id, { ...sr, next_attempt_at: null });
      }
      return this.insertRuns(runs, now).map(withoutKey);
    });
  }

  /** Records attempts once per (occurrence, attempt): a repeated tick's insert is a no-op. */
  protected insertRuns(runs: NewScheduleRun[], now: number): ScheduleRunRow[] {
    const inserted: ScheduleRunRow[] = [];
    for (const r of runs) {
      const taken = [...this.t.scheduleRuns.values()].some(
        (x) => x.occurrence_key !== null && x.occurrence_key === r.occurrence_key && x.attempt === r.attempt,
      );
      if (taken) continue;
      if (this.t.scheduleRuns.has(r.id)) throw new ConflictError(`schedule run ${r.id} already exists`);
      const row: ScheduleRunRow = {
        id: r.id,
        schedule_id: r.schedule_id,
        attempt: r.attempt,
        triggered_at: r.triggered_at,
        completed_at: r.completed_at,
        status: r.status,
        status_code: r.status_code,
        run_id: r.run_id,
        session_id: r.session_id,
        error: r.error,
        input: r.input === null ? null : stored(r.input),
        output: null,
        requirements: null,
        user_id: r.user_id,
        created_at: now,
        scheduled_for: r.scheduled_for,
        job_id: r.job_id,
        next_attempt_at: r.next_attempt_at,
        occurrence_key: r.occurrence_key,
      };
      this.t.scheduleRuns.set(row.id, row);
      inserted.push(copy(row));
    }
    return inserted;
  }

  /** When a failed or timed-out attempt's retry falls due: while its schedule is enabled and retries remain. */
  private retryAt(sr: ScheduleRunRow, s: Schedule | undefined, now: number): number | null {
    return s?.enabled && sr.attempt <= s.max_retries ? now + s.retry_delay_seconds : null;
  }

  protected putSchedule(s: Schedule): Schedule {
    this.t.schedules.set(s.id, s);
    return s;
  }
}

/** An attempt as the port answers it: without the key that records it once. */
export function withoutKey({ occurrence_key: _key, ...run }: ScheduleRunRow): ScheduleRun {
  return run;
}

/** A run's content as text, as Postgres' `run_data->>'content'` reads it. */
function contentText(run: RunRow | undefined): string | null {
  const content = run?.run_data.content;
  if (content === undefined || content === null) return null;
  return typeof content === "string" ? content : JSON.stringify(content);
}
