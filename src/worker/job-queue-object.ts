import { DurableObject } from "cloudflare:workers";
import type { Component, ComponentSource } from "../agent/component.js";
import type { QueueDb } from "../db/port.js";
import { DatabaseUnavailableError } from "../errors.js";
import { Dispatcher } from "../queue/dispatcher.js";
import { executeJob } from "../queue/execute-job.js";
import type { OSInterface } from "../interfaces/os-interface.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { MediaStorage } from "../offload/media-storage.js";
import { GroupEnqueue } from "../queue/group-enqueue.js";
import type { EnqueueRunInput } from "../queue/types.js";
import type { JobHandler } from "../queue/job-handler.js";
import { settleScheduleRunOnJobEnd } from "../scheduler/job-end.js";
import { replyOf, type EnqueueReply } from "./queue-rpc.js";
import type { Tracer } from "../tracing/tracer.js";

/** What the queue needs from the deployment: its components (the registry) and a way to reach its database. */
export interface QueueServices {
  components: ComponentSource | readonly Component[];
  /** the knowledge bases whose ingestion jobs it runs, and where their uploads are kept */
  knowledge?: readonly Knowledge[];
  media?: MediaStorage;
  /** the interfaces: the chat interfaces among them answer the runs they queued */
  interfaces?: readonly OSInterface[];
  /** the other kinds of job the components enqueue (their toolkits'), by job type */
  handlers?: readonly JobHandler[];
  /** traces each job (AGNO_TRACING); flushed as each job ends */
  tracer?: Tracer;
  db: QueueDb;
  concurrency: number;
  leaseSeconds: number;
}

/** How often an idle queue looks for work nobody announced (expired leases, delayed retries). */
const IDLE_POLL_MS = 15_000;
/** How often a busy queue looks again. */
const BUSY_POLL_MS = 1_000;
/** How long one alarm keeps claiming before it hands over to the next. */
const ALARM_SLICE_MS = 20_000;
/** While the database is unavailable, the alarm retries after 1 s, 2 s, 4 s, … up to this. */
const OUTAGE_BACKOFF_CAP_MS = 30_000;

/**
 * The JobQueue Durable Object: it coordinates, Postgres is the truth. `wake()` (after an
 * enqueue, and from the cron) arms its alarm; the alarm claims due jobs with a lease and runs
 * them with bounded concurrency, and always re-arms itself, also when it throws, so a failing
 * wake-up never stops the queue. If the object is evicted or crashes mid-run, the jobs' leases
 * lapse and whichever instance wakes next claims them again: at-least-once execution.
 */
export abstract class JobQueueObject<Env> extends DurableObject<Env> {
  private dispatcher: Dispatcher | undefined;
  private services: QueueServices | undefined;
  private readonly enqueues = new GroupEnqueue(() => this.built().db.jobs);
  /** the alarm is claiming and running jobs: a new job needs a nudge, not an alarm */
  private pumping = false;
  private nudge: (() => void) | undefined;
  /** consecutive alarms that found the database unavailable (0 when it answered last) */
  private outages = 0;

  /** The deployment's components and database, built from `env` (once per object instance). */
  protected abstract queueServices(env: Env): QueueServices;

  /**
   * Called after an enqueue: a running pump is nudged to claim at once (no storage call), else the
   * alarm is set to fire now. Safe against a pump that is just ending: `pumping` turns false before
   * the alarm reads when the next job is due, so a job committed before this check is seen by that
   * read and the alarm is set for it.
   */
  async wake(): Promise<void> {
    if (this.pumping) this.nudge?.();
    else await this.arm(Date.now());
  }

  /**
   * Commits a background run over this object's long-lived connections and wakes the queue in
   * the same call: the Worker's request then opens no database connection of its own (a new
   * Postgres connection per enqueue cost more than the enqueue) and makes one RPC, not two.
   */
  async enqueue(input: EnqueueRunInput): Promise<EnqueueReply> {
    // Enqueues that arrive while others are being written are committed together.
    const reply = replyOf(await this.enqueues.enqueue(input));
    if (reply.ok && reply.created) await this.wake();
    return reply;
  }

  /** For tests and operators: jobs this instance is running now. */
  async activeJobs(): Promise<number> {
    return this.dispatcher?.active ?? 0;
  }

  override async alarm(): Promise<void> {
    try {
      this.pumping = true;
      await this.pump();
      this.outages = 0;
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError)) throw error;
      // Not a crash: the alarm comes back later and later (capped), and claims again once the
      // database answers. Jobs keep their place in it meanwhile; nothing is lost.
      this.outages++;
    } finally {
      this.pumping = false;
      if (this.outages > 0) {
        const delay = Math.min(OUTAGE_BACKOFF_CAP_MS, 1_000 * 2 ** (this.outages - 1));
        console.warn(`job queue: the database is unavailable; claiming again in ${delay / 1000} s`);
        await this.arm(Date.now() + delay);
      } else {
        const busy = this.dispatcher !== undefined && this.dispatcher.active > 0;
        await this.arm(Math.min(Date.now() + (busy ? BUSY_POLL_MS : IDLE_POLL_MS), await this.nextDue()));
      }
    }
  }

  private async pump(): Promise<void> {
    const dispatcher = this.ensureDispatcher();
    const until = Date.now() + ALARM_SLICE_MS;
    while (Date.now() < until) {
      const started = await dispatcher.fill();
      if (started === 0 && dispatcher.active === 0) return;
      await this.settled(dispatcher);
    }
  }

  /** Until a job ends (or held slots may be claimed), a new job is nudged in, or 250 ms pass. */
  private settled(dispatcher: Dispatcher): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    return new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 250);
      this.nudge = resolve;
      void dispatcher.next().then(resolve);
    }).finally(() => timer && clearTimeout(timer));
  }

  private ensureDispatcher(): Dispatcher {
    if (!this.dispatcher) {
      const services = this.built();
      this.dispatcher = new Dispatcher({
        store: services.db.jobs,
        execute: (job, lease) => {
          const ran = executeJob(job, lease, services, services.db, services.db.jobs);
          // The job's spans go out once it has ended, beside the next jobs (a flush never rejects).
          if (services.tracer) void ran.finally(() => services.tracer?.flush()).catch(() => undefined);
          return ran;
        },
        workerId: `do:${this.ctx.id.toString().slice(0, 16)}:${crypto.randomUUID().slice(0, 8)}`,
        concurrency: services.concurrency,
        leaseSeconds: services.leaseSeconds,
        // A schedule's attempt shows how its job ended as soon as it has, not at the next tick.
        onJobEnded: settleScheduleRunOnJobEnd(services.db.schedules),
      });
    }
    return this.dispatcher;
  }

  /** The deployment's services, built on first use (an enqueue or the first alarm) and kept. */
  private built(): QueueServices {
    return (this.services ??= this.queueServices(this.env));
  }

  /** When the database says the next job falls due (a retry's delay, a lapsing lease). */
  private async nextDue(): Promise<number> {
    try {
      const due = await this.services?.db.jobs.nextDueAt();
      return due === null || due === undefined ? Infinity : Math.max(Date.now(), due * 1000);
    } catch {
      return Infinity; // the poll interval still holds
    }
  }

  private async arm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
