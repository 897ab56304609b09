import { sql } from "drizzle-orm";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { prepareCreate, prepareUpdate } from "../../scheduler/validate.js";
import type {
  Schedule,
  ScheduleInput,
  ScheduleRun,
  ScheduleScope,
  ScheduleStore,
  ScheduleUpdate,
} from "../../scheduler/types.js";
import { scheduleCapReached } from "../enqueue-rules.js";
import { pageOf, resolvePage } from "../pagination.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import { columns, RUN_COLUMNS, SCHEDULE_COLUMNS, scopeFilter, toSchedule, toScheduleRun } from "./schedule-rows.js";
import { PostgresScheduleTicks } from "./schedule-ticks.js";
import { pgJson } from "../../json-limits.js";
import { rethrowUnavailable } from "./unavailable.js";
import { nowSeconds as now } from "../../time.js";

/** Postgres reports a broken unique key as 23505, also when drizzle wraps the driver's error. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === "23505") return true;
  return false;
}

/**
 * Schedules on Postgres (`db.schedules`): agno's CRUD with per-user scope on every call, plus the
 * cron tick's statements (PostgresScheduleTicks). Input is validated here, so an SDK caller
 * gets the same 422s as HTTP.
 *
 * @example
 * const s = await db.schedules.createSchedule(
 *   { name: "digest", cron_expr: "0 8 * * 1-5", timezone: "Europe/Berlin", endpoint: "/agents/assistant/runs", payload: { message: "Daily digest" } },
 *   { userId: "u1" });
 * await db.schedules.updateSchedule(s.id, { cron_expr: "0 9 * * 1-5" }, { userId: "u1" });
 */
export class PostgresScheduleStore extends PostgresScheduleTicks implements ScheduleStore {
  /**
   * The cap is checked in the insert's own statement, so concurrent creates of one owner may
   * overshoot it by at most their number (as the queue's depth limit).
   */
  async createSchedule(
    input: ScheduleInput,
    owner: { userId: string | null },
    limits: { maxPerUser?: number } = {},
  ): Promise<Schedule> {
    if (owner.userId !== null) validateId(owner.userId, "user_id");
    const ts = now();
    const s = prepareCreate(input, ts);
    await this.d.ready();
    const mine = owner.userId === null ? sql`user_id IS NULL` : sql`user_id = ${owner.userId}`;
    const room =
      limits.maxPerUser === undefined
        ? sql`true`
        : sql`(SELECT COUNT(*) FROM ${this.d.schedules} WHERE ${mine}) < ${limits.maxPerUser}`;
    try {
      const [row] = await this.d.exec(sql`
        INSERT INTO ${this.d.schedules} AS s (id, name, description, method, endpoint, payload, cron_expr, timezone, timeout_seconds, max_retries,
          retry_delay_seconds, enabled, next_run_at, user_id, created_at, updated_at)
        SELECT ${crypto.randomUUID()}, ${s.name}, ${s.description}, ${s.method}, ${s.endpoint}, ${s.payload === null ? null : pgJson(s.payload)}::jsonb,
          ${s.cron_expr}, ${s.timezone}, ${s.timeout_seconds}, ${s.max_retries}, ${s.retry_delay_seconds}, ${s.enabled}, ${s.next_run_at},
          ${owner.userId}, ${ts}, ${ts}
        WHERE ${room}
        RETURNING ${columns(SCHEDULE_COLUMNS, "s")}`);
      if (!row) throw scheduleCapReached(owner.userId, limits.maxPerUser);
      return toSchedule(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`a schedule named ${s.name} already exists`);
      throw error;
    }
  }

  async getSchedule(id: string, scope: ScheduleScope = {}): Promise<Schedule | null> {
    validateId(id, "schedule_id");
    await this.d.ready();
    const [row] = await this.d.exec(
      sql`SELECT ${columns(SCHEDULE_COLUMNS, "s")} FROM ${this.d.schedules} s WHERE s.id = ${id} AND ${scopeFilter(scope, "s")}`,
    );
    return row ? toSchedule(row) : null;
  }

  async listSchedules(
    opts: { enabled?: boolean; limit?: number; page?: number } = {},
    scope: ScheduleScope = {},
  ): Promise<Page<Schedule>> {
    const p = resolvePage(opts);
    await this.d.ready();
    const where = sql`${scopeFilter(scope, "s")} ${opts.enabled === undefined ? sql`` : sql`AND s.enabled = ${opts.enabled}`}`;
    const [rows, [total]] = await Promise.all([
      this.d.exec(
        sql`SELECT ${columns(SCHEDULE_COLUMNS, "s")} FROM ${this.d.schedules} s WHERE ${where} ORDER BY s.created_at DESC, s.id LIMIT ${p.limit} OFFSET ${p.offset}`,
      ),
      this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.schedules} s WHERE ${where}`),
    ]);
    return pageOf(rows.map(toSchedule), Number(total?.n ?? 0), p);
  }

  async updateSchedule(id: string, changes: Record<string, unknown>, scope: ScheduleScope = {}): Promise<Schedule> {
    if (typeof changes !== "object" || changes === null || Array.isArray(changes))
      throw new ValidationError("changes must be an object of schedule fields", "body");
    const current = await this.getSchedule(id, { userId: scope.userId });
    if (!current) throw new NotFoundError(`schedule ${id} not found`);
    const update = prepareUpdate(current, changes, now());
    return this.write(current, update);
  }

  async enableSchedule(id: string, scope: ScheduleScope = {}): Promise<Schedule> {
    return this.updateSchedule(id, { enabled: true }, scope);
  }

  async disableSchedule(id: string, scope: ScheduleScope = {}, reason: string | null = null): Promise<Schedule> {
    return this.updateSchedule(id, { enabled: false, ...(reason === null ? {} : { disabled_reason: reason }) }, scope);
  }

  async deleteSchedule(id: string, scope: ScheduleScope = {}): Promise<void> {
    validateId(id, "schedule_id");
    await this.d.ready();
    const [row] = await this.d.exec(sql`
      WITH gone AS (DELETE FROM ${this.d.schedules} s WHERE s.id = ${id} AND ${scopeFilter({ userId: scope.userId }, "s")} RETURNING s.id),
      history AS (DELETE FROM ${this.d.scheduleRuns} WHERE schedule_id IN (SELECT id FROM gone))
      SELECT COUNT(*) AS n FROM gone`);
    if (Number(row?.n ?? 0) === 0) throw new NotFoundError(`schedule ${id} not found`);
  }

  async listScheduleRuns(
    scheduleId: string,
    opts: { limit?: number; page?: number } = {},
    scope: ScheduleScope = {},
  ): Promise<Page<ScheduleRun>> {
    const p = resolvePage(opts);
    if (!(await this.getSchedule(scheduleId, scope))) throw new NotFoundError(`schedule ${scheduleId} not found`);
    const [rows, [total]] = await Promise.all([
      this.d
        .exec(sql`SELECT ${columns(RUN_COLUMNS, "r")} FROM ${this.d.scheduleRuns} r WHERE r.schedule_id = ${scheduleId}
        ORDER BY r.created_at DESC, r.attempt DESC, r.id LIMIT ${p.limit} OFFSET ${p.offset}`),
      this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.scheduleRuns} WHERE schedule_id = ${scheduleId}`),
    ]);
    return pageOf(rows.map(toScheduleRun), Number(total?.n ?? 0), p);
  }

  async getScheduleRun(scheduleId: string, runId: string, scope: ScheduleScope = {}): Promise<ScheduleRun | null> {
    validateId(scheduleId, "schedule_id");
    validateId(runId, "run_id");
    await this.d.ready();
    const [row] = await this.d.exec(sql`
      SELECT ${columns(RUN_COLUMNS, "r")} FROM ${this.d.scheduleRuns} r JOIN ${this.d.schedules} s ON s.id = r.schedule_id
      WHERE r.id = ${runId} AND r.schedule_id = ${scheduleId} AND ${scopeFilter(scope, "s")}`);
    return row ? toScheduleRun(row) : null;
  }

  /** Writes the checked changes; a name another schedule of the owner holds is a 409. */
  private async write(current: Schedule, update: ScheduleUpdate): Promise<Schedule> {
    const entries = Object.entries(update).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return current;
    const sets = entries.map(([k, v]) =>
      k === "payload" ? sql`payload = ${v === null ? null : pgJson(v)}::jsonb` : sql`${sql.raw(k)} = ${v}`,
    );
    try {
      const [row] = await this.d.exec(sql`
        UPDATE ${this.d.schedules} s SET ${sql.join(sets, sql`, `)}, updated_at = ${now()} WHERE s.id = ${current.id}
        RETURNING ${columns(SCHEDULE_COLUMNS, "s")}`);
      if (!row) throw new NotFoundError(`schedule ${current.id} not found`);
      return toSchedule(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`a schedule named ${String(update.name)} already exists`);
      throw error;
    }
  }
}

// A database that cannot be reached is a DatabaseUnavailableError from every method, wherever it failed.
rethrowUnavailable(PostgresScheduleStore);
