import { sql, type SQL } from "drizzle-orm";
import { NotFoundError, StatusConflictError, ValidationError } from "../../errors.js";
import type { JobListOptions, JobRecord, JobStatus, Lease, QueueStats } from "../../queue/types.js";
import { jobSortField } from "../../queue/job-sort-field.js";
import { num, numOrNull, str } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { nowSeconds as now } from "../../time.js";

const COLUMNS =
  "id, component_type, job_type, component_id, session_id, user_id, payload, status, attempt, max_attempts, idempotency_key, request_hash, available_at, locked_by, locked_at, lease_expires_at, error, created_at, updated_at, completed_at";

export function toJob(row: Record<string, unknown>): JobRecord {
  return {
    id: String(row.id),
    component_type: row.component_type as JobRecord["component_type"],
    job_type: String(row.job_type),
    component_id: String(row.component_id),
    session_id: str(row.session_id),
    user_id: str(row.user_id),
    payload: (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload) as JobRecord["payload"],
    status: row.status as JobStatus,
    attempt: num(row.attempt),
    max_attempts: num(row.max_attempts),
    idempotency_key: str(row.idempotency_key),
    request_hash: str(row.request_hash),
    available_at: num(row.available_at),
    locked_by: str(row.locked_by),
    locked_at: numOrNull(row.locked_at),
    lease_expires_at: numOrNull(row.lease_expires_at),
    error: str(row.error),
    created_at: num(row.created_at),
    updated_at: numOrNull(row.updated_at),
    completed_at: numOrNull(row.completed_at),
  };
}

/** `agno_jobs`: every transition is one conditional statement, fenced by the lease's attempt. */
export class JobTable {
  constructor(
    private readonly exec: Exec,
    readonly table: SQL,
  ) {}

  cols(): SQL {
    return sql.raw(COLUMNS);
  }

  async byIdempotencyKey(exec: Exec, userId: string | null, key: string): Promise<JobRecord | null> {
    const [row] = await exec(
      sql`SELECT ${this.cols()} FROM ${this.table} WHERE COALESCE(user_id, '') = ${userId ?? ""} AND idempotency_key = ${key}`,
    );
    return row ? toJob(row) : null;
  }

  /**
   * Leases due jobs: new or retrying ones whose time has come, and running ones whose worker
   * stopped renewing. SKIP LOCKED lets several dispatchers claim at once without overlap.
   * Fair share: a due job's share is its rank among its owner's due jobs (no owner: one shared
   * principal) plus the jobs the owner already has running, and the claim takes the lowest
   * shares first, each by due time. So a user with less in flight goes first, and one user's
   * backlog delays another user's job by at most one claim, however the claims are sized. A job
   * ranked past `limit` among its owner's cannot be among the first `limit`, so only the others
   * are joined and sorted.
   */
  async claim(workerId: string, limit: number, leaseSeconds: number): Promise<JobRecord[]> {
    const t = now();
    const dueIn = (alias: string) => {
      const a = sql.raw(alias);
      return sql`((${a}.status = 'PENDING' AND ${a}.available_at <= ${t}) OR (${a}.status = 'RUNNING' AND ${a}.lease_expires_at < ${t} AND ${a}.attempt < ${a}.max_attempts))`;
    };
    const rows = await this.exec(sql`
      UPDATE ${this.table} AS j SET status = 'RUNNING', attempt = j.attempt + 1, locked_by = ${workerId}, locked_at = ${t},
        lease_expires_at = ${t + leaseSeconds}, updated_at = ${t}
      WHERE j.id IN (
        SELECT c.id FROM ${this.table} c JOIN (
          SELECT r.id, r.due_rank + COALESCE(held.n, 0) AS share FROM (
            SELECT d.id, COALESCE(d.user_id, '') AS owner, ROW_NUMBER() OVER (PARTITION BY COALESCE(d.user_id, '') ORDER BY d.available_at, d.created_at) AS due_rank
            FROM ${this.table} d WHERE d.status IN ('PENDING', 'RUNNING') AND ${dueIn("d")}) r
          LEFT JOIN (
            SELECT COALESCE(user_id, '') AS owner, COUNT(*) AS n FROM ${this.table} WHERE status = 'RUNNING' AND lease_expires_at >= ${t} GROUP BY 1
          ) held ON held.owner = r.owner
          WHERE r.due_rank <= ${limit}) ranked ON ranked.id = c.id
        WHERE ${dueIn("c")}
        ORDER BY ranked.share, c.available_at, c.created_at LIMIT ${limit} FOR UPDATE OF c SKIP LOCKED)
      RETURNING ${sql.raw(
        COLUMNS.split(", ")
          .map((c) => `j.${c}`)
          .join(", "),
      )}`);
    return rows.map(toJob);
  }

  /** Running jobs whose last attempt's worker died: they fail rather than run again. */
  async expireExhausted(): Promise<JobRecord[]> {
    const t = now();
    const rows = await this.exec(sql`
      UPDATE ${this.table} SET status = 'FAILED', error = COALESCE(error, 'the worker of its last attempt stopped (lease expired)'),
        locked_by = NULL, lease_expires_at = NULL, completed_at = ${t}, updated_at = ${t}
      WHERE status = 'RUNNING' AND lease_expires_at < ${t} AND attempt >= max_attempts
      RETURNING ${this.cols()}`);
    return rows.map(toJob);
  }

  private fence(lease: Lease): SQL {
    return sql`id = ${lease.id} AND attempt = ${lease.attempt} AND locked_by = ${lease.workerId} AND status = 'RUNNING'`;
  }

  async heartbeat(lease: Lease, leaseSeconds: number): Promise<boolean> {
    const t = now();
    const rows = await this.exec(
      sql`UPDATE ${this.table} SET lease_expires_at = ${t + leaseSeconds}, updated_at = ${t} WHERE ${this.fence(lease)} RETURNING id`,
    );
    return rows.length === 1;
  }

  async finish(lease: Lease, status: "COMPLETED" | "FAILED" | "CANCELLED", error: string | null): Promise<boolean> {
    const rows = await this.exec(this.finishStatement(lease, status, error));
    return rows.length === 1;
  }

  /** The fenced UPDATE that ends a job, on its own or inside another statement (`onlyIf` its other write landed). */
  finishStatement(
    lease: Lease,
    status: "COMPLETED" | "FAILED" | "CANCELLED",
    error: string | null,
    onlyIf: SQL = sql`true`,
  ): SQL {
    const t = now();
    return sql`
      UPDATE ${this.table} SET status = ${status}, error = ${error}, locked_by = NULL, lease_expires_at = NULL, completed_at = ${t}, updated_at = ${t}
      WHERE ${this.fence(lease)} AND ${onlyIf} RETURNING id`;
  }

  async retry(lease: Lease, delaySeconds: number, error: string, notAnAttempt = false): Promise<boolean> {
    const t = now();
    const rows = await this.exec(sql`
      UPDATE ${this.table} SET status = 'PENDING', error = ${error}, locked_by = NULL, lease_expires_at = NULL, available_at = ${t + delaySeconds}, updated_at = ${t},
        attempt = attempt - ${notAnAttempt ? 1 : 0}
      WHERE ${this.fence(lease)} RETURNING id`);
    return rows.length === 1;
  }

  /** A PENDING job becomes CANCELLED; says what the job was, and which run it runs. */
  async cancel(id: string): Promise<{ outcome: "cancelled" | "running" | "finished"; runId: string | null }> {
    const t = now();
    const [row] = await this.exec(sql`
      UPDATE ${this.table} SET status = 'CANCELLED', completed_at = ${t}, updated_at = ${t} WHERE id = ${id} AND status = 'PENDING' RETURNING payload->>'run_id' AS run_id`);
    // A job that runs no component (a knowledge ingestion) has no run to cancel with it.
    if (row) return { outcome: "cancelled", runId: str(row.run_id) };
    const job = await this.get(id);
    if (!job) throw new NotFoundError(`job ${id} not found`);
    return { outcome: job.status === "RUNNING" ? "running" : "finished", runId: job.payload.run_id ?? null };
  }

  async requeue(exec: Exec, id: string): Promise<JobRecord> {
    const t = now();
    const [row] = await exec(sql`
      UPDATE ${this.table} SET status = 'PENDING', max_attempts = attempt + 1, available_at = ${t}, error = NULL, completed_at = NULL, updated_at = ${t}
      WHERE id = ${id} AND status IN ('FAILED', 'CANCELLED') RETURNING ${this.cols()}`);
    if (row) return toJob(row);
    // Inside the caller's transaction: never another connection while it is open.
    const [current] = await exec(sql`SELECT status FROM ${this.table} WHERE id = ${id}`);
    if (!current) throw new NotFoundError(`job ${id} not found`);
    throw new StatusConflictError(
      `job ${id} is ${String(current.status)}: only FAILED or CANCELLED jobs are requeued`,
      String(current.status),
    );
  }

  async nextDue(): Promise<number | null> {
    const [row] = await this.exec(sql`
      SELECT MIN(CASE WHEN status = 'PENDING' THEN available_at ELSE lease_expires_at + 1 END) AS due
      FROM ${this.table} WHERE status = 'PENDING' OR status = 'RUNNING'`);
    return row?.due === null || row?.due === undefined ? null : Number(row.due);
  }

  async get(id: string): Promise<JobRecord | null> {
    const [row] = await this.exec(sql`SELECT ${this.cols()} FROM ${this.table} WHERE id = ${id}`);
    return row ? toJob(row) : null;
  }

  async forRun(runId: string): Promise<JobRecord | null> {
    const [row] = await this.exec(
      sql`SELECT ${this.cols()} FROM ${this.table} WHERE payload->>'run_id' = ${runId} ORDER BY created_at DESC LIMIT 1`,
    );
    return row ? toJob(row) : null;
  }

  async list(opts: JobListOptions): Promise<{ data: JobRecord[]; total_count: number }> {
    const { statuses, limit, page } = opts;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw new ValidationError("limit must be 1..1000", "limit");
    if (!Number.isInteger(page) || page < 1) throw new ValidationError("page must be 1 or more", "page");
    const where = statuses
      ? sql`WHERE status IN (${sql.join(
          [...statuses, ""].map((s) => sql`${s}`),
          sql`, `,
        )})`
      : sql``;
    const rows = await this.exec(
      sql`SELECT ${this.cols()}, COUNT(*) OVER () AS total FROM ${this.table} ${where} ORDER BY ${orderOf(opts)} LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    );
    const total =
      rows.length > 0
        ? Number(rows[0]!.total)
        : Number((await this.exec(sql`SELECT COUNT(*) AS n FROM ${this.table} ${where}`))[0]?.n ?? 0);
    return { data: rows.map(toJob), total_count: total };
  }

  async stats(): Promise<QueueStats> {
    const t = now();
    const rows = await this.exec(sql`
      SELECT status, COUNT(*) AS n, MIN(CASE WHEN status = 'PENDING' AND available_at <= ${t} THEN available_at END) AS oldest
      FROM ${this.table} GROUP BY status`);
    const count = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
    const oldest = rows.find((r) => r.status === "PENDING")?.oldest;
    return {
      pending: count("PENDING"),
      running: count("RUNNING"),
      completed: count("COMPLETED"),
      failed: count("FAILED"),
      cancelled: count("CANCELLED"),
      oldest_pending_age_seconds: oldest === null || oldest === undefined ? 0 : Math.max(0, t - Number(oldest)),
    };
  }
}

/** A listing's ORDER BY (see JobListOptions): the field, then id; text by code point, as MemoryDb orders it. */
function orderOf(opts: JobListOptions): SQL {
  const field = jobSortField(opts.sortBy);
  if (!field) return sql`id`;
  const direction = sql.raw(opts.sortOrder === "asc" ? "ASC" : "DESC");
  const column =
    field === "updated_at"
      ? sql`COALESCE(updated_at, created_at)`
      : TEXT_SORT_FIELDS.has(field)
        ? sql`${sql.identifier(field)} COLLATE "C"`
        : sql.identifier(field);
  return sql`${column} ${direction}, id`;
}

/** The text columns of the jobs table that a listing can sort by. */
const TEXT_SORT_FIELDS = new Set<string>([
  "component_type",
  "job_type",
  "component_id",
  "session_id",
  "user_id",
  "status",
  "idempotency_key",
  "locked_by",
  "error",
]);
