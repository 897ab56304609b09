import type { JobRecord, JobStore, Lease } from "./types.js";
import { publicError } from "../public-error.js";
import type { Outcome } from "./executor.js";
import { errorMessage } from "../errors.js";

/** How often a busy dispatcher looks for jobs whose last attempt's worker died. */
const SWEEP_INTERVAL_MS = 1_000;

export interface DispatcherOptions {
  store: JobStore & { expireExhaustedJobs(): Promise<JobRecord[]> };
  /** runs the job under `lease` (which it may use to record the job's end with its own last write) */
  execute: (job: JobRecord, lease: Lease) => Promise<Outcome>;
  /** names this dispatcher in `locked_by`; one per process or Durable Object instance */
  workerId: string;
  /** jobs run at once (agno's AGNO_BACKGROUND_MAX_CONCURRENCY, default 32) */
  concurrency?: number;
  /** a lease not renewed for this long is claimed again elsewhere (default 30 s) */
  leaseSeconds?: number;
  /** seconds before retry N (default 2^N, at most 5 minutes) */
  backoff?: (attempt: number) => number;
  /**
   * While jobs run, free slots are claimed this many at a time (default concurrency / 8), or
   * whatever is free once `claimWaitMs` (default 20) has passed since the last claim: a queue
   * of short jobs then claims in batches, not once per job that ends
   */
  claimBatch?: number;
  claimWaitMs?: number;
  /**
   * Called once a job has reached its end (COMPLETED, FAILED or CANCELLED; not when it waits to
   * retry), after that end is stored: what depends on the job (a schedule's attempt) settles now.
   * Its failure is logged, never the job's.
   */
  onJobEnded?: (job: JobRecord) => Promise<void>;
}

/**
 * Claims due jobs with a lease, runs them with bounded concurrency, renews their leases while
 * they run, and records how each ended with a write fenced by its attempt: a worker whose lease
 * was taken over can no longer complete or retry the job. Host-neutral: the JobQueue Durable
 * Object drives it from its alarm; a Node process could drive it from a timer.
 */
export class Dispatcher {
  private readonly running = new Map<string, Promise<void>>();
  private readonly concurrency: number;
  private readonly leaseSeconds: number;
  private readonly backoff: (attempt: number) => number;
  private readonly claimBatch: number;
  private readonly claimWaitMs: number;
  private lastSweep = 0;
  private lastClaim = 0;
  /** the last fill() held free slots back for a batch: they may be claimed once the wait is over */
  private deferred = false;
  /** settles when the next job ends: one promise for every waiter, not a race over every running job */
  private ended = signal();

  constructor(private readonly opts: DispatcherOptions) {
    this.concurrency = opts.concurrency ?? 32;
    this.leaseSeconds = opts.leaseSeconds ?? 30;
    this.backoff = opts.backoff ?? ((attempt) => Math.min(300, 2 ** attempt));
    this.claimBatch = Math.max(1, opts.claimBatch ?? Math.floor(this.concurrency / 8));
    this.claimWaitMs = opts.claimWaitMs ?? 20;
  }

  get active(): number {
    return this.running.size;
  }

  /**
   * Fails jobs whose last attempt's worker died, then claims and starts what fits; returns how
   * many started (0 also when the free slots wait for more to claim together: call again soon).
   */
  async fill(): Promise<number> {
    // fill() runs after every job that ends; dead workers' jobs need looking for only now and then.
    if (Date.now() - this.lastSweep >= SWEEP_INTERVAL_MS) {
      this.lastSweep = Date.now();
      const expired = await this.opts.store.expireExhaustedJobs();
      for (const job of expired) await this.notifyEnded(job);
    }
    const free = this.concurrency - this.running.size;
    if (free <= 0) return 0;
    // A claim is a statement whatever it returns: with jobs running, wait for a few free slots
    // (briefly: a slow job must not keep a slot idle) instead of claiming one per job that ends.
    this.deferred = this.running.size > 0 && free < this.claimBatch && Date.now() - this.lastClaim < this.claimWaitMs;
    if (this.deferred) return 0;
    this.lastClaim = Date.now();
    const jobs = await this.opts.store.claimJobs({
      workerId: this.opts.workerId,
      limit: free,
      leaseSeconds: this.leaseSeconds,
    });
    for (const job of jobs) {
      const work = this.work(job).finally(() => {
        this.running.delete(job.id);
        const ended = this.ended;
        this.ended = signal();
        ended.resolve();
      });
      this.running.set(job.id, work);
    }
    return jobs.length;
  }

  /** Settles when any running job ends (at once when none runs), or when slots fill() held back may be claimed. */
  async next(): Promise<void> {
    if (this.running.size === 0) return;
    if (!this.deferred) return this.ended.promise;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, Math.max(0, this.lastClaim + this.claimWaitMs - Date.now()))),
    );
    await Promise.race([this.ended.promise, waited]).finally(() => timer && clearTimeout(timer));
  }

  /** Settles when every running job has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  private async work(job: JobRecord): Promise<void> {
    const lease: Lease = { id: job.id, attempt: job.attempt, workerId: this.opts.workerId };
    const store = this.opts.store;
    const renew = setInterval(
      () => void store.heartbeatJob(lease, this.leaseSeconds).catch(() => false),
      (this.leaseSeconds * 1000) / 3,
    );
    let outcome: Outcome;
    try {
      outcome = await this.opts.execute(job, lease);
    } catch (error) {
      // Stored on the job and shown by /queue/jobs: the public form only (the details are logged under its ref).
      outcome = { status: "FAILED", error: publicError(error, `job ${job.id}`).message, retryable: true };
    } finally {
      clearInterval(renew);
    }
    if (outcome.recorded) return this.notifyEnded(job);
    try {
      if (outcome.waitSeconds !== undefined) {
        await store.retryJob(lease, outcome.waitSeconds, outcome.error ?? "waiting", { notAnAttempt: true });
      } else if (outcome.status === "FAILED" && outcome.retryable && job.attempt < job.max_attempts) {
        await store.retryJob(lease, this.backoff(job.attempt), outcome.error ?? "failed");
      } else if (await store.finishJob(lease, outcome)) {
        await this.notifyEnded(job);
      }
    } catch (error) {
      // The record write failed: the lease lapses and the job is claimed again (at-least-once).
      console.error(`job ${job.id}: outcome not recorded: ${errorMessage(error)}`);
    }
  }

  /** Tells `onJobEnded` about a job whose end is stored. */
  private async notifyEnded(job: JobRecord): Promise<void> {
    try {
      await this.opts.onJobEnded?.(job);
    } catch (error) {
      console.error(`job ${job.id}: onJobEnded failed: ${errorMessage(error)}`);
    }
  }
}

/** A promise and the function that settles it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
