import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import type {
  Schedule,
  ScheduleInput,
  ScheduleRun,
  ScheduleScope,
  ScheduleStore,
  ScheduleUpdate,
} from "../../scheduler/types.js";
import { prepareCreate, prepareUpdate } from "../../scheduler/validate.js";
import { scheduleCapReached } from "../enqueue-rules.js";
import { pageOf, resolvePage } from "../pagination.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import { MemoryScheduleTicks, withoutKey } from "./schedule-ticks.js";
import { compareIds, copy, now, stored, userMatches } from "./tables.js";

/**
 * Cron schedules in memory (`db.schedules`), with the Postgres adapter's rules: the same
 * validation, per-user scope on every call, names unique per owner (no owner: one shared
 * namespace), the per-user cap, and the cron tick's work (MemoryScheduleTicks).
 */
export class MemoryScheduleStore extends MemoryScheduleTicks implements ScheduleStore {
  async createSchedule(
    input: ScheduleInput,
    owner: { userId: string | null },
    limits: { maxPerUser?: number } = {},
  ): Promise<Schedule> {
    if (owner.userId !== null) validateId(owner.userId, "user_id");
    const ts = now();
    const s = prepareCreate(input, ts);
    const held = [...this.t.schedules.values()].filter((x) => x.user_id === owner.userId).length;
    if (limits.maxPerUser !== undefined && held >= limits.maxPerUser)
      throw scheduleCapReached(owner.userId, limits.maxPerUser);
    this.checkNameFree(owner.userId, s.name);
    const row: Schedule = {
      id: crypto.randomUUID(),
      name: s.name,
      description: s.description,
      method: s.method,
      endpoint: s.endpoint,
      payload: s.payload === null ? null : stored(s.payload),
      cron_expr: s.cron_expr,
      timezone: s.timezone,
      timeout_seconds: s.timeout_seconds,
      max_retries: s.max_retries,
      retry_delay_seconds: s.retry_delay_seconds,
      enabled: s.enabled,
      next_run_at: s.next_run_at,
      locked_by: null,
      locked_at: null,
      user_id: owner.userId,
      managed_by: null,
      target_type: null,
      target_id: null,
      created_by_run_id: null,
      created_by_session_id: null,
      updated_by_run_id: null,
      updated_by_session_id: null,
      disabled_reason: null,
      created_at: ts,
      updated_at: ts,
    };
    return copy(this.putSchedule(row));
  }

  async getSchedule(id: string, scope: ScheduleScope = {}): Promise<Schedule | null> {
    validateId(id, "schedule_id");
    const s = this.visible(id, scope);
    return s ? copy(s) : null;
  }

  async listSchedules(
    opts: { enabled?: boolean; limit?: number; page?: number } = {},
    scope: ScheduleScope = {},
  ): Promise<Page<Schedule>> {
    const p = resolvePage(opts);
    const matching = [...this.t.schedules.values()]
      .filter((s) => userMatches(s.user_id, scope) && (opts.enabled === undefined || s.enabled === opts.enabled))
      .sort((a, b) => b.created_at - a.created_at || compareIds(a.id, b.id));
    return pageOf(matching.slice(p.offset, p.offset + p.limit).map(copy), matching.length, p);
  }

  async updateSchedule(id: string, changes: Record<string, unknown>, scope: ScheduleScope = {}): Promise<Schedule> {
    if (typeof changes !== "object" || changes === null || Array.isArray(changes))
      throw new ValidationError("changes must be an object of schedule fields", "body");
    const current = await this.getSchedule(id, { userId: scope.userId });
    if (!current) throw new NotFoundError(`schedule ${id} not found`);
    return this.write(current, prepareUpdate(current, changes, now()));
  }

  async enableSchedule(id: string, scope: ScheduleScope = {}): Promise<Schedule> {
    return this.updateSchedule(id, { enabled: true }, scope);
  }

  async disableSchedule(id: string, scope: ScheduleScope = {}, reason: string | null = null): Promise<Schedule> {
    return this.updateSchedule(id, { enabled: false, ...(reason === null ? {} : { disabled_reason: reason }) }, scope);
  }

  /** The schedule and its run history. */
  async deleteSchedule(id: string, scope: ScheduleScope = {}): Promise<void> {
    validateId(id, "schedule_id");
    if (!this.visible(id, { userId: scope.userId })) throw new NotFoundError(`schedule ${id} not found`);
    this.t.schedules.delete(id);
    for (const sr of [...this.t.scheduleRuns.values()]) if (sr.schedule_id === id) this.t.scheduleRuns.delete(sr.id);
  }

  async listScheduleRuns(
    scheduleId: string,
    opts: { limit?: number; page?: number } = {},
    scope: ScheduleScope = {},
  ): Promise<Page<ScheduleRun>> {
    const p = resolvePage(opts);
    if (!(await this.getSchedule(scheduleId, scope))) throw new NotFoundError(`schedule ${scheduleId} not found`);
    const runs = [...this.t.scheduleRuns.values()]
      .filter((r) => r.schedule_id === scheduleId)
      .sort((a, b) => b.created_at - a.created_at || b.attempt - a.attempt || compareIds(a.id, b.id));
    return pageOf(
      runs.slice(p.offset, p.offset + p.limit).map((r) => copy(withoutKey(r))),
      runs.length,
      p,
    );
  }

  async getScheduleRun(scheduleId: string, runId: string, scope: ScheduleScope = {}): Promise<ScheduleRun | null> {
    validateId(scheduleId, "schedule_id");
    validateId(runId, "run_id");
    const run = this.t.scheduleRuns.get(runId);
    return run && run.schedule_id === scheduleId && this.visible(scheduleId, scope) ? copy(withoutKey(run)) : null;
  }

  /** Writes the checked changes; a name another schedule of the owner holds is a 409. */
  private write(current: Schedule, update: ScheduleUpdate): Schedule {
    const entries = Object.entries(update).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return current;
    const row = this.t.schedules.get(current.id);
    if (!row) throw new NotFoundError(`schedule ${current.id} not found`);
    if (update.name !== undefined && update.name !== row.name) this.checkNameFree(row.user_id, update.name);
    const changed = Object.fromEntries(entries.map(([k, v]) => [k, k === "payload" && v !== null ? stored(v) : v]));
    return copy(this.putSchedule({ ...row, ...changed, updated_at: now() }));
  }

  private checkNameFree(userId: string | null, name: string): void {
    for (const s of this.t.schedules.values())
      if (s.user_id === userId && s.name === name) throw new ConflictError(`a schedule named ${name} already exists`);
  }

  /** The schedule, if the scope may see it (SPEC U1). */
  private visible(id: string, scope: ScheduleScope): Schedule | undefined {
    const s = this.t.schedules.get(id);
    return s && userMatches(s.user_id, scope) ? s : undefined;
  }
}
