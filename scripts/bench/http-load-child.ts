/**
 * The load generator of the HTTP figures (http-overhead.ts), in a process of its own so its
 * event loop and the runtime's never wait on each other.
 *
 *   node --import tsx http-load-child.ts <LoadConfig json>   -> one LoadResult JSON line on stdout
 *
 * Open loop: request i is due at start + i / rate whatever happened to the earlier ones, and its
 * latency counts from that due time, not from when it went out. A closed loop (send, wait, send)
 * slows down with the server and hides its queueing ("coordinated omission"); this one does not.
 * Several targets take turns request by request, so they share one window of machine time and
 * a drift in what else runs on the machine falls on all of them alike.
 */
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

/** One kind of request in the mix. */
export interface LoadTarget {
  /** e.g. http://127.0.0.1:8787/sessions/abc */
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
  /** every answer's body must contain this, so a figure cannot come from error pages */
  expectBody: string;
}

export interface LoadConfig {
  /** sent in turn: request i is of target i mod targets.length, so each gets rate / targets.length */
  targets: LoadTarget[];
  /** requests per second in all, fixed */
  rate: number;
  /** unmeasured seconds at the same rate first (workerd compiles and warms the routes) */
  warmupSeconds: number;
  seconds: number;
  timeoutMs: number;
  /**
   * Most requests in flight at once (default: no cap). A request due while the cap is reached
   * waits for a slot, and the wait counts in its latency (from its due time, as any lateness).
   */
  maxInFlight?: number;
}

export interface TargetResult {
  /** requests due in the measured window */
  sent: number;
  /** measured requests answered as expected: due time (or send time, when the timer fired early) -> last byte of the body */
  latency_ms: number[];
  /** how late each of them went out (0 when on time; context: it is part of latency_ms) */
  send_lag_ms: number[];
  /** failed measured requests by reason */
  errors: Record<string, number>;
  /** the first failure of each reason: status and the start of the body, or the network error */
  first_errors: Record<string, string>;
}

export interface LoadResult {
  /** in the order of `targets` */
  targets: TargetResult[];
  /** when the first request was due, in epoch milliseconds (to line the load up with other clocks) */
  t0_epoch_ms: number;
}

type Outcome = { ok: true; end: number } | { ok: false; reason: string; detail: string };

// Keep-alive, no socket cap: a request due while others are in flight opens a connection
// rather than queueing in the client, where the wait would not be the server's. An idle
// connection is closed by us after 1 s, before the server's keep-alive timeout can close it
// under a request just sent on it ("socket hang up": the client's race, not the server's failure).
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 1000 });

function send(cfg: LoadTarget, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(cfg.url, { method: cfg.method, headers: cfg.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (e) => resolve({ ok: false, reason: "response_error", detail: e.message }));
      res.on("end", () => {
        const end = performance.now();
        const body = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== cfg.expectStatus)
          return resolve({ ok: false, reason: `status_${res.statusCode}`, detail: body.slice(0, 300) });
        if (!body.includes(cfg.expectBody))
          return resolve({ ok: false, reason: "unexpected_body", detail: body.slice(0, 300) });
        resolve({ ok: true, end });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on("error", (e) =>
      resolve({ ok: false, reason: e.message.startsWith("no answer") ? "timeout" : "network", detail: e.message }),
    );
    req.end(cfg.body);
  });
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2] ?? "") as LoadConfig;
  const interval = 1000 / cfg.rate;
  const warm = Math.round(cfg.warmupSeconds * cfg.rate);
  const total = warm + Math.round(cfg.seconds * cfg.rate);
  const results: TargetResult[] = cfg.targets.map(() => ({
    sent: 0,
    latency_ms: [],
    send_lag_ms: [],
    errors: {},
    first_errors: {},
  }));
  const t0 = performance.now() + 20;
  const inFlight: Promise<void>[] = [];
  const cap = cfg.maxInFlight ?? Infinity;
  let active = 0;
  const slots: (() => void)[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (active >= cap) await new Promise<void>((resolve) => slots.push(resolve));
    active++;
    // Node's timers tick in whole milliseconds and may fire up to 1 ms early: a request sent
    // before it was due is timed from when it went out, one sent late from when it was due.
    const sentAt = performance.now();
    const start = Math.min(due, sentAt);
    const k = i % cfg.targets.length;
    const result = i >= warm ? results[k]! : undefined;
    if (result) result.sent++;
    inFlight.push(
      send(cfg.targets[k]!, cfg.timeoutMs).then((o) => {
        active--;
        slots.shift()?.();
        if (!result) return;
        if (o.ok) {
          result.latency_ms.push(o.end - start);
          result.send_lag_ms.push(Math.max(0, sentAt - due));
        } else {
          result.errors[o.reason] = (result.errors[o.reason] ?? 0) + 1;
          result.first_errors[o.reason] ??= o.detail;
        }
      }),
    );
  }
  await Promise.all(inFlight);
  const out: LoadResult = { targets: results, t0_epoch_ms: performance.timeOrigin + t0 };
  await new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(out)}\n`, () => resolve()));
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`[bench load] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  // Keep-alive sockets would hold the process open.
  .finally(() => process.exit());
