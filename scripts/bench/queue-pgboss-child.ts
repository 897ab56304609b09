/**
 * pg-boss's side of the queue figure (queue.ts), in processes of its own, pg-boss imported from
 * scripts/bench/peers:
 *
 *   node --import tsx queue-pgboss-child.ts worker <WorkerConfig json>
 *     installs pg-boss's schema, creates the queue and starts `workers` work() loops fetching
 *     `batchSize` jobs each poll, whose handler does nothing; prints "ready", runs until SIGTERM.
 *   node --import tsx queue-pgboss-child.ts producer <ProducerConfig json>
 *     sends jobs at a fixed rate, open loop as http-load-child.ts does (latency from the due time
 *     to send() resolved; pg-boss's pool, 10 connections, caps the sends in flight), and prints
 *     one LoadResult JSON line.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { LoadResult, TargetResult } from "./http-load-child.js";
import { importPeer } from "./peers.js";

export interface WorkerConfig {
  url: string;
  schema: string;
  queue: string;
  workers: number;
  batchSize: number;
  pollingIntervalSeconds: number;
}

export interface ProducerConfig {
  url: string;
  schema: string;
  queue: string;
  rate: number;
  seconds: number;
}

/** The members of pg-boss 10 the bench uses. */
interface PgBoss {
  start(): Promise<unknown>;
  stop(opts?: { graceful?: boolean; wait?: boolean; timeout?: number }): Promise<void>;
  createQueue(name: string): Promise<void>;
  send(name: string, data: object): Promise<string | null>;
  work(
    name: string,
    opts: { batchSize: number; pollingIntervalSeconds: number },
    handler: (jobs: unknown[]) => Promise<void>,
  ): Promise<string>;
  on(event: "error", fn: (e: Error) => void): void;
}
type PgBossClass = new (opts: Record<string, unknown>) => PgBoss;

async function boss(opts: Record<string, unknown>): Promise<PgBoss> {
  const mod = await importPeer<{ default: PgBossClass }>("pg-boss");
  const b = new mod.default(opts);
  b.on("error", (e) => process.stderr.write(`[bench pg-boss] ${e.message}\n`));
  await b.start();
  return b;
}

async function worker(cfg: WorkerConfig): Promise<void> {
  // No cron (schedule) and no maintenance loop: neither is on a job's path.
  const b = await boss({ connectionString: cfg.url, schema: cfg.schema, schedule: false, supervise: false });
  await b.createQueue(cfg.queue);
  for (let i = 0; i < cfg.workers; i++) {
    await b.work(
      cfg.queue,
      { batchSize: cfg.batchSize, pollingIntervalSeconds: cfg.pollingIntervalSeconds },
      async () => {},
    );
  }
  process.stdout.write("ready\n");
  await new Promise<void>((resolve) => process.once("SIGTERM", () => resolve()));
  await b.stop({ graceful: false, wait: true, timeout: 2000 });
}

async function producer(cfg: ProducerConfig): Promise<void> {
  const b = await boss({
    connectionString: cfg.url,
    schema: cfg.schema,
    schedule: false,
    supervise: false,
    migrate: false,
  });
  const result: TargetResult = { sent: 0, latency_ms: [], send_lag_ms: [], errors: {}, first_errors: {} };
  const interval = 1000 / cfg.rate;
  const total = Math.round(cfg.seconds * cfg.rate);
  const t0 = performance.now() + 20;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sentAt = performance.now();
    const start = Math.min(due, sentAt); // as http-load-child.ts: lateness counts
    result.sent++;
    inFlight.push(
      (async () => {
        try {
          if ((await b.send(cfg.queue, { i })) === null) throw new Error("send() returned no id");
          result.latency_ms.push(performance.now() - start);
          result.send_lag_ms.push(Math.max(0, sentAt - due));
        } catch (e) {
          result.errors.send = (result.errors.send ?? 0) + 1;
          result.first_errors.send ??= (e as Error).message;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  const out: LoadResult = { targets: [result], t0_epoch_ms: performance.timeOrigin + t0 };
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(out)}\n`, () => resolve()));
  await b.stop({ graceful: false, wait: true, timeout: 2000 });
}

const [role, json] = process.argv.slice(2);
(role === "worker" ? worker(JSON.parse(json!) as WorkerConfig) : producer(JSON.parse(json!) as ProducerConfig))
  .catch((e: unknown) => {
    process.stderr.write(`[bench pg-boss] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  .finally(() => process.exit());
