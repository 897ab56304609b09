import { sql, type SQL } from "drizzle-orm";
import { asError } from "../../errors.js";
import type {
  EnqueueJobInput,
  EnqueueOutcome,
  EnqueueRunInput,
  JobRecord,
  JobListOptions,
  JobStore,
  Lease,
  QueueStats,
} from "../../queue/types.js";
import type { RunRecord, RunRow } from "../types.js";
import { checkEnqueueIds } from "../enqueue-rules.js";
import { validateId, validateRun } from "../validate.js";
import { idList } from "./id-list.js";
import { enqueueRun } from "./enqueue.js";
import { enqueueRuns } from "./enqueue-batch.js";
import { enqueueJob } from "./enqueue-job.js";
import { enqueueIntoNewSession } from "./enqueue-new-session.js";
import type { JobTable } from "./jobs.js";
import { updateRunRowWith } from "./run-writer.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";
import { nowSeconds as now } from "../../time.js";

/** What the job store borrows from its PostgresDb: connections, the schema check, its tables. */
export interface JobStoreDeps {
  exec: Exec;
  transaction: <T>(fn: (tx: Exec) => Promise<T>) => Promise<T>;
  /** resolves once the database is known to hold the current layout */
  ready: () => Promise<void>;
  table: JobTable;
  sessions: SQL;
  runs: SQL;
  /** the database still holds agno 2.x run blobs */
  legacyPending: () => Promise<boolean>;
}

/** The durable queue's storage (`JobStore`) on Postgres: `agno_jobs`, with the runs it runs. */
export class PostgresJobStore implements JobStore {
  constructor(private readonly d: JobStoreDeps) {}

  async enqueueRun(input: EnqueueRunInput): Promise<{ job: JobRecord; created: boolean }> {
    checkEnqueueIds(input);
    await this.d.ready();
    const legacy = await this.d.legacyPending();
    const deps = { jobs: this.d.table, sessions: this.d.sessions, runs: this.d.runs, legacy };
    if (input.new_session && !legacy) {
      const outcome = await enqueueIntoNewSession(this.d.exec, input, deps);
      if (outcome !== "session_exists") return outcome;
    }
    return enqueueRun(this.d.transaction, input, deps);
  }

  async enqueueRuns(inputs: EnqueueRunInput[]): Promise<EnqueueOutcome[]> {
    const valid: EnqueueRunInput[] = [];
    const checked = inputs.map((input): EnqueueOutcome | number => {
      try {
        checkEnqueueIds(input);
        return valid.push(input) - 1;
      } catch (error) {
        return { error: asError(error) };
      }
    });
    await this.d.ready();
    const legacy = await this.d.legacyPending();
    const done = await enqueueRuns(this.d.transaction, valid, {
      jobs: this.d.table,
      sessions: this.d.sessions,
      runs: this.d.runs,
      legacy,
    });
    return checked.map((c) => (typeof c === "number" ? done[c]! : c));
  }

  async enqueueJob(input: EnqueueJobInput): Promise<{ job: JobRecord; created: boolean }> {
    validateId(input.id, "job_id");
    validateId(input.component_id, "component_id");
    if (input.user_id !== null) validateId(input.user_id, "user_id");
    await this.d.ready();
    return enqueueJob(this.d.exec, input, this.d.table);
  }

  async claimJobs(opts: { workerId: string; limit: number; leaseSeconds: number }): Promise<JobRecord[]> {
    await this.d.ready();
    return this.d.table.claim(opts.workerId, opts.limit, opts.leaseSeconds);
  }

  /** Jobs whose last attempt's worker died: failed, with their runs marked ERROR. */
  async expireExhaustedJobs(): Promise<JobRecord[]> {
    await this.d.ready();
    const failed = await this.d.table.expireExhausted();
    await this.setRunStatus(
      this.d.exec,
      failed.flatMap((j) => (j.payload.run_id ? [j.payload.run_id] : [])),
      "ERROR",
      ["PENDING", "RUNNING"],
    );
    return failed;
  }

  async heartbeatJob(lease: Lease, leaseSeconds: number): Promise<boolean> {
    return this.d.table.heartbeat(lease, leaseSeconds);
  }

  async finishJob(
    lease: Lease,
    outcome: { status: "COMPLETED" | "FAILED" | "CANCELLED"; error?: string },
  ): Promise<boolean> {
    return this.d.table.finish(lease, outcome.status, outcome.error ?? null);
  }

  async completeWithRun(
    lease: Lease,
    run: RunRecord,
    expectStatus: string[],
  ): Promise<{ row: RunRow; jobEnded: boolean } | null> {
    const checked = validateRun(run);
    await this.d.ready();
    // Before migration a run write takes upsertRun's full path (a 2.x blob's runs count in run_index).
    if (await this.d.legacyPending()) return null;
    const written = await updateRunRowWith(
      this.d.exec,
      { sessions: this.d.sessions, runs: this.d.runs },
      checked,
      expectStatus,
      (ifRunWritten) => this.d.table.finishStatement(lease, "COMPLETED", null, ifRunWritten),
    );
    return written && { row: written.row, jobEnded: written.alongsideWritten };
  }

  async retryJob(
    lease: Lease,
    delaySeconds: number,
    error: string,
    opts: { notAnAttempt?: boolean } = {},
  ): Promise<boolean> {
    return this.d.table.retry(lease, delaySeconds, error, opts.notAnAttempt === true);
  }

  async cancelJob(id: string): Promise<"cancelled" | "running" | "finished"> {
    validateId(id, "job_id");
    await this.d.ready();
    const { outcome, runId } = await this.d.table.cancel(id);
    // Its run is cancelled with it: a queued one never starts, a running one stops at its next
    // check, and the dispatcher then records the job as CANCELLED.
    if (outcome !== "finished" && runId)
      await this.setRunStatus(this.d.exec, [runId], "CANCELLED", ["PENDING", "RUNNING"]);
    return outcome;
  }

  async requeueJob(id: string): Promise<JobRecord> {
    validateId(id, "job_id");
    await this.d.ready();
    return this.d.transaction(async (tx) => {
      const job = await this.d.table.requeue(tx, id);
      // Its run goes back to waiting too, so the next attempt may start it.
      if (job.payload.run_id) await this.setRunStatus(tx, [job.payload.run_id], "PENDING");
      return job;
    });
  }

  async getJob(id: string): Promise<JobRecord | null> {
    validateId(id, "job_id");
    await this.d.ready();
    return this.d.table.get(id);
  }

  async nextDueAt(): Promise<number | null> {
    await this.d.ready();
    return this.d.table.nextDue();
  }

  async jobForRun(runId: string): Promise<JobRecord | null> {
    validateId(runId, "run_id");
    await this.d.ready();
    return this.d.table.forRun(runId);
  }

  async listJobs(opts: JobListOptions): Promise<{ data: JobRecord[]; total_count: number }> {
    await this.d.ready();
    return this.d.table.list(opts);
  }

  async queueStats(): Promise<QueueStats> {
    await this.d.ready();
    return this.d.table.stats();
  }

  /** Moves runs to `status` (column and stored RunOutput alike), only from `from` when given. */
  private async setRunStatus(exec: Exec, runIds: string[], status: string, from?: string[]): Promise<void> {
    if (runIds.length === 0) return;
    const ids = idList(runIds);
    const guard = from
      ? sql`AND status IN (${sql.join(
          from.map((f) => sql`${f}`),
          sql`, `,
        )})`
      : sql``;
    await exec(sql`UPDATE ${this.d.runs} SET status = ${status}, run_data = jsonb_set(run_data, '{status}', to_jsonb(${status}::text)), updated_at = ${now()}
      WHERE run_id IN (${ids}) ${guard}`);
  }
}

// A database that cannot be reached is a DatabaseUnavailableError from every method, wherever it failed.
rethrowUnavailable(PostgresJobStore);
