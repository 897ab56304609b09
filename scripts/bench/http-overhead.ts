/**
 * The request-overhead figures of BENCHMARKS.md (`npm run bench -- http`): the runtime as a user
 * starts it (`npm run dev`: wrangler dev over src/index.ts, the embedded Postgres), under a
 * fixed-rate load from a second process (http-load-child.ts), on loopback.
 *
 *   GET /health                    no auth, no query: the floor (wrangler dev, workerd, HTTP, client)
 *   GET /sessions/{id}             auth + routing + one session read; security key, and JWT
 *                                  HS256 / RS256 / ES256: the difference is the verification
 *   POST /agents/assistant/runs    stream=false, against the scripted model, which answers at once
 *
 * src/index.ts uses JWT auth whenever JWT_VERIFICATION_KEYS is set, so the security key and the
 * JWTs need two runtimes. Both run at once and the reads of both take turns in one load, so a
 * change in what else runs on this shared machine cannot pass for JWT cost; each runtime's reads
 * are also taken over its own /health floor. The runs come after, with the JWT runtime stopped.
 * JWT verification is also timed in process (jwt-verify.ts).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelServer, type ModelServer } from "../../test/support/model-server.js";
import { scriptModel } from "../../test/support/model-script.js";
import type { LoadConfig, LoadResult, LoadTarget, TargetResult } from "./http-load-child.js";
import { startRuntime, type Runtime } from "./http-runtime.js";
import { JWT_ALGS, makeJwtMaterial } from "./jwt-keys.js";
import { benchJwtVerify } from "./jwt-verify.js";
import { emit, log, mean, median, percentile, round } from "./util.js";

/** A rate from the environment, read when the group runs (a bad value must not stop the other groups). */
function rate(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number of requests per second`);
  return value;
}

/**
 * Requests per second of the read mix, in all: 8 slots at 6/s each, 600 samples per figure in
 * 100 s (1,800 for the security key's reads, which take three slots).
 * Every read opens its own Postgres connection (a Pool per request, as Workers require) through
 * the proxy into PGlite, which runs one query at a time: on this 2-core machine, shared with
 * other work, one runtime's reads saturate near 50/s, and past that an open-loop load only
 * measures the backlog. BENCH_HTTP_READ_RATE overrides it on a bigger machine.
 */
const READ_RATE = () => rate("BENCH_HTTP_READ_RATE", 48);
const READ_SECONDS = 100;
/**
 * Runs per second (BENCH_HTTP_RUN_RATE), 200 samples in 40 s. A stored run is several
 * transactions, which the embedded Postgres runs one at a time (pglite-wire-server.ts: one
 * connection holds the backend for a whole transaction); at 5/s a run overlaps the next only
 * when it takes 200 ms.
 */
const RUN_RATE = () => rate("BENCH_HTTP_RUN_RATE", 5);
const RUN_SECONDS = 40;
const WARMUP_SECONDS = 5;
const TIMEOUT_MS = 30_000;
const ANSWER = "bench-answer-ok";
const TSX = import.meta.resolve("tsx");
const LOAD_CHILD = fileURLToPath(new URL("./http-load-child.ts", import.meta.url));

/** What a target is, as its line says it. */
interface Label {
  /** `reads` (the read mix) or `runs` (runs with /health) */
  phase: "reads" | "runs";
  route: string;
  auth: string;
  /** which runtime served it: the one with OS_SECURITY_KEY or the one with JWT_VERIFICATION_KEYS */
  runtime: "security_key" | "jwt";
}
interface Figure extends Label {
  median_ms: number;
  p99_ms: number;
}

/** Runs one load child to completion and returns what it printed. */
function load(cfg: LoadConfig): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, LOAD_CHILD, JSON.stringify(cfg)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    const timer = setTimeout(
      () => child.kill("SIGKILL"),
      (cfg.warmupSeconds + cfg.seconds) * 1000 + cfg.timeoutMs + 30_000,
    );
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`load child exited with ${code ?? signal}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch {
        reject(new Error(`load child printed no result: ${out.slice(0, 300)}`));
      }
    });
  });
}

/** The samples of every slot of the mix that carries the same label. */
function merged(slots: TargetResult[]): TargetResult {
  const out: TargetResult = { sent: 0, latency_ms: [], send_lag_ms: [], errors: {}, first_errors: {} };
  for (const t of slots) {
    out.sent += t.sent;
    out.latency_ms.push(...t.latency_ms);
    out.send_lag_ms.push(...t.send_lag_ms);
    for (const [kind, count] of Object.entries(t.errors)) out.errors[kind] = (out.errors[kind] ?? 0) + count;
    out.first_errors = { ...t.first_errors, ...out.first_errors };
  }
  return out;
}

/**
 * One open-loop load over `slots` (taking turns) and one line per distinct label: a label may
 * take several slots, to weigh the mix. Fails after emitting when any request failed: a figure
 * over the requests that happened to succeed means nothing.
 */
async function measure(
  slots: [Label, LoadTarget][],
  rate: number,
  seconds: number,
  runtimes: Runtime[],
): Promise<Figure[]> {
  const labels = [...new Map(slots.map(([l]) => [JSON.stringify(l), l])).values()];
  log(
    `  ${labels.map((l) => `${l.route} (${l.auth}, ${l.runtime})`).join(", ")}: ${rate} req/s in all, ${WARMUP_SECONDS} s warm-up + ${seconds} s`,
  );
  const loadBefore = loadavg()[0]!;
  const reloadsBefore = runtimes.reduce((n, rt) => n + rt.reloads(), 0);
  const r = await load({
    targets: slots.map(([, t]) => t),
    rate,
    warmupSeconds: WARMUP_SECONDS,
    seconds,
    timeoutMs: TIMEOUT_MS,
  });
  const loadAfter = loadavg()[0]!;
  const reloads = runtimes.reduce((n, rt) => n + rt.reloads(), 0) - reloadsBefore;
  if (reloads)
    log(
      `  wrangler rebuilt the Worker ${reloads} time(s) during this load (a file under src/ changed): these figures include the reloads`,
    );
  const failures: string[] = [];
  const figures = labels.map((label) => {
    const mine = slots.flatMap(([l], i) => (JSON.stringify(l) === JSON.stringify(label) ? [r.targets[i]!] : []));
    const t = merged(mine);
    const errors = Object.values(t.errors).reduce((a, b) => a + b, 0);
    if (errors || !t.latency_ms.length)
      failures.push(
        `${label.route} (${label.auth}): ${errors} of ${t.sent} failed ${JSON.stringify(t.errors)}; first of each: ${JSON.stringify(t.first_errors)}`,
      );
    const xs = t.latency_ms.length ? t.latency_ms : [NaN];
    const lags = t.send_lag_ms.length ? t.send_lag_ms : [NaN];
    const fig: Figure = { ...label, median_ms: round(median(xs), 3), p99_ms: round(percentile(xs, 99), 3) };
    emit({
      bench: "http_overhead",
      ...fig,
      mean_ms: round(mean(xs), 3),
      max_ms: round(Math.max(...xs), 3),
      n: t.latency_ms.length,
      sent: t.sent,
      errors,
      ...(errors && { error_kinds: t.errors }),
      rate_rps: round((rate * mine.length) / slots.length, 2),
      mix_rate_rps: rate,
      warmup_s: WARMUP_SECONDS,
      seconds,
      send_lag_median_ms: round(median(lags), 3),
      send_lag_p99_ms: round(percentile(lags, 99), 3),
      server: "wrangler dev (npm run dev)",
      db: "pglite",
      loadavg_1m: [round(loadBefore), round(loadAfter)],
      ...(reloads && { worker_reloads: reloads }),
    });
    return fig;
  });
  if (failures.length) {
    for (const rt of runtimes) log(`runtime output (tail, without successful requests):\n${rt.output().slice(-4000)}`);
    throw new Error(`failed requests:\n${failures.join("\n")}`);
  }
  return figures;
}

/** The session the reads fetch: created once through the API, as a client would (no runs: the read is one row). */
async function createSession(url: string, authorization: string): Promise<string> {
  const sessionId = `bench-http-${randomBytes(4).toString("hex")}`;
  const res = await fetch(`${url}/sessions`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ session_id: sessionId, agent_id: "assistant", session_name: "bench" }),
  });
  if (res.status !== 201) throw new Error(`POST /sessions answered ${res.status}: ${await res.text()}`);
  return sessionId;
}

const health = (url: string): LoadTarget => ({
  url: `${url}/health`,
  method: "GET",
  headers: {},
  expectStatus: 200,
  expectBody: '"status":"ok"',
});
const sessionRead = (url: string, sessionId: string, authorization: string): LoadTarget => ({
  url: `${url}/sessions/${sessionId}`,
  method: "GET",
  headers: { authorization },
  expectStatus: 200,
  expectBody: `"session_id":"${sessionId}"`,
});

const by = (figures: Figure[], runtime: string, route: string, auth: string) =>
  figures.find((f) => f.runtime === runtime && f.route === route && f.auth === auth)!;

export async function benchHttp(): Promise<void> {
  const readRate = READ_RATE();
  const runRate = RUN_RATE();
  const material = await makeJwtMaterial();
  await benchJwtVerify(material); // first, before the runtimes load the machine

  const dataRoot = mkdtempSync(join(tmpdir(), "agno-bench-http-"));
  // Also when a Ctrl-C ends the process (http-runtime.ts stops the runtimes, then exits).
  const removeData = () => rmSync(dataRoot, { recursive: true, force: true, maxRetries: 5 });
  process.once("exit", removeData);
  const runtimes: Runtime[] = [];
  let modelServer: ModelServer | undefined;
  try {
    modelServer = await startModelServer();
    // One plain answer per run. No session_id: each run starts its own session, so no run reads a growing history.
    // The run phase alternates run, /health: runs are the even requests (as the load child counts them).
    const runs = Math.ceil((Math.round(WARMUP_SECONDS * 2 * runRate) + Math.round(RUN_SECONDS * 2 * runRate)) / 2);
    const script = await scriptModel(
      modelServer.url,
      Array.from({ length: runs }, () => ({ text: ANSWER })),
    );
    const model = { MODEL: "openai:bench-model", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "sk-bench" };
    const securityKey = randomBytes(32).toString("base64url");
    const keyAuth = `Bearer ${securityKey}`;

    log(
      "HTTP overhead: two runtimes (npm run dev, fresh data folders): OS_SECURITY_KEY, and JWT_VERIFICATION_KEYS = HS256 secret, RS256 PEM, ES256 JWK",
    );
    const keyRt = await startRuntime({ ...model, OS_SECURITY_KEY: securityKey }, join(dataRoot, "security-key"));
    runtimes.push(keyRt);
    const jwtRt = await startRuntime(
      { ...model, JWT_VERIFICATION_KEYS: JSON.stringify(material.verificationKeys) },
      join(dataRoot, "jwt"),
    );
    runtimes.push(jwtRt);
    const keySession = await createSession(keyRt.url, keyAuth);
    const jwtSession = await createSession(jwtRt.url, `Bearer ${material.tokens.HS256}`);

    // Both runtimes get the same load: a /health and three reads per round each; the key's three
    // read slots make one figure, the JWT runtime's are one per algorithm.
    const keyReadSlot: [Label, LoadTarget] = [
      { phase: "reads", route: "GET /sessions/{id}", auth: "security_key", runtime: "security_key" },
      sessionRead(keyRt.url, keySession, keyAuth),
    ];
    const reads = await measure(
      [
        [{ phase: "reads", route: "GET /health", auth: "none", runtime: "security_key" }, health(keyRt.url)],
        [{ phase: "reads", route: "GET /health", auth: "none", runtime: "jwt" }, health(jwtRt.url)],
        ...JWT_ALGS.flatMap((alg): [Label, LoadTarget][] => [
          keyReadSlot,
          [
            { phase: "reads", route: "GET /sessions/{id}", auth: `jwt_${alg.toLowerCase()}`, runtime: "jwt" },
            sessionRead(jwtRt.url, jwtSession, `Bearer ${material.tokens[alg]}`),
          ],
        ]),
      ],
      readRate,
      READ_SECONDS,
      runtimes,
    );
    const keyFloor = by(reads, "security_key", "GET /health", "none");
    const keyRead = by(reads, "security_key", "GET /sessions/{id}", "security_key");
    const jwtFloor = by(reads, "jwt", "GET /health", "none");
    // Medians only: a difference of two p99s over a few hundred samples each is noise, not a figure.
    emit({
      bench: "http_session_read_above_floor",
      auth: "security_key",
      median_ms: round(keyRead.median_ms - keyFloor.median_ms, 3),
    });
    for (const alg of JWT_ALGS) {
      const read = by(reads, "jwt", "GET /sessions/{id}", `jwt_${alg.toLowerCase()}`);
      emit({
        bench: "http_jwt_cost_per_request",
        alg,
        route: "GET /sessions/{id}",
        baseline: "security_key",
        // each runtime's read over its own floor, so a difference between the two floors is not counted
        median_ms: round(read.median_ms - jwtFloor.median_ms - (keyRead.median_ms - keyFloor.median_ms), 3),
        median_raw_difference_ms: round(read.median_ms - keyRead.median_ms, 3),
      });
    }

    // The runs without the reads, and with the JWT runtime stopped (its idle workerd and PGlite would
    // only add noise); /health takes turns with them, so their floor is taken in the same window.
    await jwtRt.stop();
    const [run, runFloor] = await measure(
      [
        [
          { phase: "runs", route: "POST /agents/assistant/runs", auth: "security_key", runtime: "security_key" },
          {
            url: `${keyRt.url}/agents/assistant/runs`,
            method: "POST",
            headers: { authorization: keyAuth, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ message: "Say the bench answer.", stream: "false" }).toString(),
            expectStatus: 200,
            expectBody: ANSWER,
          },
        ],
        [{ phase: "runs", route: "GET /health", auth: "none", runtime: "security_key" }, health(keyRt.url)],
      ],
      2 * runRate,
      RUN_SECONDS,
      [keyRt],
    );
    emit({ bench: "http_run_above_floor", stream: false, median_ms: round(run!.median_ms - runFloor!.median_ms, 3) });

    // The run figure must come from real model calls: one per run, none cut off.
    const requests = await script.requests();
    if (requests.length !== runs) throw new Error(`${requests.length} model requests for ${runs} runs`);
    if (requests.some((q) => q.disconnected)) throw new Error("a model request was cut off");
  } finally {
    for (const rt of runtimes) await rt.stop();
    await modelServer?.stop();
    removeData();
    process.removeListener("exit", removeData);
  }
}
