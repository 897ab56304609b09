/**
 * The agent figures of BENCHMARKS.md, agno-edge side by side with the TypeScript frameworks a
 * user would pick instead (Mastra, VoltAgent, LangGraph.js; installed from scripts/bench/peers):
 *
 * 3. agent construction: mean time per `new Agent(...)` with one tool, and retained heap per agent;
 * 4. run overhead: median and p99 of one run (model asks for the tool, tool runs, model answers)
 *    against the scripted model server, which answers at once; without storage, and with each
 *    Postgres target for agno-edge (PostgresDb) and Mastra (its PostgresStore from @mastra/pg).
 *
 * Every framework is measured in child processes of its own (agent-child.ts). The parent holds
 * the model server (and PGlite, which the runs with a db on that target store into), so a
 * child's event loop carries only the framework and its clients. This machine is shared and
 * small, so the frameworks take turns: construction is repeated in fresh processes round by
 * round, and runs go in batches, one framework after the other, until each has its 200.
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { startModelServer } from "../../test/support/model-server.js";
import type {
  ChildMessage,
  ConstructConfig,
  ConstructResult,
  ParentMessage,
  RunConfig,
  RunSummary,
} from "./agent-child.js";
import { PEERS, type DbConfig, type PeerName } from "./frameworks.js";
import { ensurePeers } from "./peers.js";
import { emit, log, mean, median, percentile, round } from "./util.js";

const CONSTRUCTIONS = 1000;
const CONSTRUCTION_WARMUP = 10;
/** agno's measurement (10 warm-ups, 1,000 timed constructions), each time in a fresh process. */
const CONSTRUCTION_PROCESSES = 7;
const RUN_BATCHES = 10;
/**
 * Timed runs per contender, in RUN_BATCHES turns. BENCH_AGENT_RUNS lowers it to try a change
 * quickly; the figures of BENCHMARKS.md use the default.
 */
const RUNS = runCount(process.env.BENCH_AGENT_RUNS, 200);
const RUN_WARMUP = 20;
/** BENCH_AGENT_ONLY=construction or =runs measures one of the two figures. */
const ONLY = process.env.BENCH_AGENT_ONLY || undefined;

function runCount(value: string | undefined, fallback: number): number {
  if (!value) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n % RUN_BATCHES)
    throw new Error(`BENCH_AGENT_RUNS=${value}: a positive multiple of ${RUN_BATCHES}`);
  return n;
}
/** Longest a child may take to answer: loading a framework or running a batch takes seconds, so this only catches a hung child. */
const CHILD_TIMEOUT_MS = 120_000;
/** Nothing listens there; construction sends no request. */
const DUMMY_BASE_URL = "http://127.0.0.1:9/v1";

/**
 * The children run with NODE_ENV=production, as a deployed agent would: VoltAgent otherwise
 * fetches a model registry from models.dev when imported (no network here) and logs at info
 * level, Mastra's logger likewise. agno-edge does not read NODE_ENV.
 */
const CHILD_ENV = { ...process.env, NODE_ENV: "production" };
const TSX = import.meta.resolve("tsx");

/** A framework that cannot load here: the reason goes out as a `skipped` line. */
export class Skipped extends Error {}

/** One agent-child.ts process (or another `script` speaking its protocol), its messages read in order. */
export class Child {
  private readonly inbox: ChildMessage[] = [];
  private waiter?: { resolve: (m: ChildMessage) => void; reject: (e: Error) => void };
  private ended?: Error;
  private readonly proc;

  constructor(
    readonly mode: "construct" | "run",
    readonly framework: string,
    config: ConstructConfig | RunConfig | object,
    script = new URL("./agent-child.ts", import.meta.url),
  ) {
    this.proc = fork(script, [mode, framework, JSON.stringify(config)], {
      execArgv: ["--expose-gc", "--import", TSX],
      env: CHILD_ENV,
      stdio: ["ignore", 2, 2, "ipc"],
    });
    this.proc.on("message", (m) => {
      const w = this.waiter;
      this.waiter = undefined;
      if (w) w.resolve(m as ChildMessage);
      else this.inbox.push(m as ChildMessage);
    });
    const end = (why: string) => {
      this.ended ??= new Error(`${mode} ${framework}: the child ${why}`);
      this.waiter?.reject(this.ended);
      this.waiter = undefined;
    };
    // "close", not "exit": by then every message the child sent has been delivered.
    this.proc.on("close", (code, signal) => end(`exited (${code ?? signal})`));
    this.proc.on("error", (e) => end(`failed: ${e.message}`));
  }

  /** The next message of the given kind; a load failure throws Skipped, any other failure an Error. */
  async next<K extends Extract<ChildMessage, { ok: true }>["kind"]>(
    kind: K,
  ): Promise<Extract<ChildMessage, { kind: K }>> {
    const message = await this.receive();
    if (!message.ok) {
      if (message.stage === "load") throw new Skipped(`cannot load on Node ${process.versions.node}: ${message.error}`);
      throw new Error(`${this.mode} ${this.framework}: ${message.error}`);
    }
    if (message.kind !== kind) throw new Error(`${this.mode} ${this.framework}: expected ${kind}, got ${message.kind}`);
    return message as Extract<ChildMessage, { kind: K }>;
  }

  /** The next message; a child silent for CHILD_TIMEOUT_MS is killed, so a hung framework cannot hang the bench. */
  private receive(): Promise<ChildMessage> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        this.kill();
        reject(new Error(`${this.mode} ${this.framework}: no answer from the child in ${CHILD_TIMEOUT_MS / 1000} s`));
      }, CHILD_TIMEOUT_MS);
      const settle = () => clearTimeout(timer);
      this.waiter = {
        resolve: (m) => (settle(), resolve(m)),
        reject: (e) => (settle(), reject(e)),
      };
    });
  }

  send(message: ParentMessage): void {
    this.proc.send(message);
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill();
  }
}

interface Best {
  framework: string;
  value: number;
}

/** One comparison line per metric: agno-edge against the best peer (lower is better). */
export function compare(
  bench: string,
  metric: string,
  ours: number | undefined,
  peers: Map<string, number>,
  extra: Record<string, unknown> = {},
): void {
  let best: Best | undefined;
  for (const [framework, value] of peers) if (!best || value < best.value) best = { framework, value };
  if (ours === undefined || !best) return;
  emit({
    bench: `${bench}_vs_peers`,
    ...extra,
    metric,
    "agno-edge": ours,
    best_peer: best.framework,
    best_peer_value: best.value,
    ratio_to_best_peer: round(ours / best.value, 3),
    ahead_of_every_peer: ours < best.value,
    peers_compared: [...peers.keys()],
  });
}

/** `xs` rotated by `r`: who goes first changes every round. */
const rotated = <T>(xs: T[], r: number): T[] => xs.map((_, i) => xs[(i + r) % xs.length]!);

// -- figure 3: construction ----------------------------------------------------------------

async function benchConstruction(frameworks: string[], skipped: Map<string, string>): Promise<void> {
  const config: ConstructConfig = { n: CONSTRUCTIONS, warmup: CONSTRUCTION_WARMUP, baseURL: DUMMY_BASE_URL };
  const results = new Map<string, ConstructResult[]>(frameworks.map((f) => [f, []]));
  log(
    `agent construction: ${frameworks.join(", ")}; ${CONSTRUCTIONS} after ${CONSTRUCTION_WARMUP} warm-ups, in ${CONSTRUCTION_PROCESSES} fresh processes each`,
  );
  for (let round_ = 0; round_ < CONSTRUCTION_PROCESSES; round_++) {
    for (const framework of rotated(frameworks, round_)) {
      if (skipped.has(framework)) continue;
      const child = new Child("construct", framework, config);
      try {
        const { result } = await child.next("construct");
        results.get(framework)!.push(result);
        log(
          `  ${framework}: mean ${mean(result.samples_us).toFixed(2)} us, ${result.heap_bytes_per_agent} heap bytes per agent`,
        );
      } catch (e) {
        if (!(e instanceof Skipped)) throw e;
        log(`  ${framework} skipped: ${e.message}`);
        skipped.set(framework, e.message);
      } finally {
        child.kill();
      }
    }
  }

  const means = new Map<string, number>();
  const bestMeans = new Map<string, number>();
  const medians = new Map<string, number>();
  const heaps = new Map<string, number>();
  let ours: { mean_us: number; best_mean_us: number; median_us: number; heap_bytes_per_agent: number } | undefined;
  for (const framework of frameworks) {
    const rs = results.get(framework)!;
    if (skipped.has(framework) || !rs.length) {
      emit({ bench: "agent_construction", framework, skipped: skipped.get(framework) });
      continue;
    }
    const perProcess = rs.map((r) => round(mean(r.samples_us)));
    const heapPerProcess = rs.map((r) => r.heap_bytes_per_agent);
    const pooled = rs.flatMap((r) => r.samples_us);
    const line = {
      bench: "agent_construction",
      framework,
      package: rs[0]!.package,
      version: rs[0]!.version,
      n: CONSTRUCTIONS,
      warmup: CONSTRUCTION_WARMUP,
      processes: rs.length,
      mean_us: median(perProcess),
      best_mean_us: Math.min(...perProcess),
      mean_us_per_process: perProcess,
      median_us: round(median(pooled)),
      p99_us: round(percentile(pooled, 99)),
      heap_bytes_per_agent: median(heapPerProcess),
      heap_bytes_per_process: heapPerProcess,
      model_and_tool: "built once, outside the loop",
    };
    if (framework === "agno-edge") {
      ours = line;
      emit(line);
    } else {
      means.set(framework, line.mean_us);
      bestMeans.set(framework, line.best_mean_us);
      medians.set(framework, line.median_us);
      heaps.set(framework, line.heap_bytes_per_agent);
      emit(
        ours
          ? {
              ...line,
              mean_ratio_to_agno_edge: round(line.mean_us / ours.mean_us, 2),
              heap_ratio_to_agno_edge: round(line.heap_bytes_per_agent / ours.heap_bytes_per_agent, 2),
            }
          : line,
      );
    }
  }
  // The loop of 1,000 is short for the fastest frameworks, so one preemption by another
  // process can double a process's mean: the best process's mean and the median are steadier.
  compare("agent_construction", "mean_us", ours?.mean_us, means);
  compare("agent_construction", "best_mean_us", ours?.best_mean_us, bestMeans);
  compare("agent_construction", "median_us", ours?.median_us, medians);
  compare("agent_construction", "heap_bytes_per_agent", ours?.heap_bytes_per_agent, heaps);
}

// -- figure 4: run overhead ----------------------------------------------------------------

export interface AgentDbTarget {
  name: "pglite" | "postgresql";
  url: string;
}

interface Contender {
  bench: "agent_run_overhead" | "agent_run_floor";
  /** the child's framework argument */
  framework: string;
  db: string;
  child?: Child;
  samples: number[];
  summary?: RunSummary;
}

/** `mastra`, or `mastra+pglite` with a db: how the logs name a contender, and the key of its skip reason. */
const label = (c: Contender) => (c.db === "none" ? c.framework : `${c.framework}+${c.db}`);

/**
 * The frameworks that run with a db too: agno-edge (through the Neon driver as on Workers, and
 * `agno-edge/pg`: node-postgres over TCP, as Mastra's store connects), and the peers whose
 * Postgres store the bench sets up.
 */
const WITH_DB: readonly string[] = ["agno-edge", "agno-edge/pg", "mastra"];
const ours = (framework: string) => framework === "agno-edge" || framework === "agno-edge/pg";

async function benchRuns(
  peers: readonly PeerName[],
  skipped: Map<string, string>,
  dbTargets: AgentDbTarget[],
  wsProxy: string,
): Promise<void> {
  const server = await startModelServer();
  const config: RunConfig = { n: RUNS, warmup: RUN_WARMUP, modelServerUrl: server.url };
  const contenders: Contender[] = [
    // The floor: the same two model round trips made by hand, no framework (context, not a contender).
    ...(["raw-fetch-json", "raw-fetch-sse"] as const).map((framework) => ({
      bench: "agent_run_floor" as const,
      framework,
      db: "none",
      samples: [],
    })),
    { bench: "agent_run_overhead", framework: "agno-edge", db: "none", samples: [] },
    ...peers.map((framework) => ({ bench: "agent_run_overhead" as const, framework, db: "none", samples: [] })),
    ...dbTargets.flatMap((db) =>
      WITH_DB.filter((f) => ours(f) || (peers as readonly string[]).includes(f)).map((framework) => ({
        bench: "agent_run_overhead" as const,
        framework,
        db: db.name,
        samples: [],
      })),
    ),
  ];
  try {
    log(
      `agent runs: ${contenders.map(label).join(", ")}; ${RUN_WARMUP} warm-ups each, then ${RUN_BATCHES} turns of ${RUNS / RUN_BATCHES} runs`,
    );
    // Start every child at once; each does its warm-up runs and reports ready.
    for (const c of contenders) {
      if (skipped.has(c.framework) || skipped.has(label(c))) continue;
      const target = dbTargets.find((d) => d.name === c.db);
      const db: DbConfig | undefined = target && {
        ...target,
        wsProxy,
        schema: `bench_agent_${process.pid}_${randomUUID().slice(0, 8)}`,
      };
      c.child = new Child("run", c.framework, { ...config, ...(db && { db }) });
    }
    for (const c of contenders) {
      if (!c.child) continue;
      try {
        await c.child.next("ready");
      } catch (e) {
        if (!(e instanceof Skipped)) throw e;
        log(`  ${label(c)} skipped: ${e.message}`);
        skipped.set(label(c), e.message);
        c.child.kill();
        c.child = undefined;
      }
    }
    const active = contenders.filter((c) => c.child);
    for (let r = 0; r < RUN_BATCHES; r++) {
      for (const c of rotated(active, r)) {
        c.child!.send({ kind: "batch", runs: RUNS / RUN_BATCHES });
        c.samples.push(...(await c.child!.next("batch")).samples_ms);
      }
      log(
        `  turn ${r + 1}/${RUN_BATCHES}: ${active.map((c) => `${label(c)} ${median(c.samples).toFixed(1)}`).join(", ")} ms (median so far)`,
      );
    }
    for (const c of active) {
      c.child!.send({ kind: "finish" });
      c.summary = (await c.child!.next("done")).summary;
    }
  } finally {
    for (const c of contenders) c.child?.kill();
    await server.stop();
  }

  /**
   * What the two model round trips cost by themselves, per wire: the scripted server answers a
   * plain (JSON) request after `setTimeout(0)`, which Node makes at least 1 ms, and a streamed one
   * without a timer. A framework's median minus the floor of its own wire is its own overhead.
   */
  const floors = new Map<string, number>();
  for (const c of contenders)
    if (c.bench === "agent_run_floor" && c.summary) floors.set(c.summary.wire, median(c.samples));
  /** Per db ("none" or a target): agno-edge's figures, and each peer's. */
  const dbs = ["none", ...dbTargets.map((d) => d.name)];
  const perDb = <T>(make: () => T) => new Map(dbs.map((db) => [db, make()]));
  const medians = perDb(() => new Map<string, number>());
  const p99s = perDb(() => new Map<string, number>());
  const aboveFloor = perDb(() => new Map<string, number>());
  const ourLines = new Map<string, { median_ms: number; p99_ms: number; median_above_floor_ms?: number }>();
  const ourTcpLines = new Map<string, { median_ms: number; p99_ms: number; median_above_floor_ms?: number }>();
  for (const c of contenders) {
    if (!c.summary) {
      emit({
        bench: c.bench,
        framework: c.framework,
        db: c.db,
        skipped: skipped.get(label(c)) ?? skipped.get(c.framework),
      });
      continue;
    }
    const s = c.summary;
    const line = {
      bench: c.bench,
      framework: s.framework,
      package: s.package,
      version: s.version,
      ...(c.bench === "agent_run_overhead" && { db: c.db }),
      ...(c.framework === "agno-edge/pg" && { driver: "node-postgres" }),
      ...(s.storage && { storage: s.storage }),
      n: c.samples.length,
      warmup: RUN_WARMUP,
      median_ms: round(median(c.samples), 3),
      p99_ms: round(percentile(c.samples, 99), 3),
      mean_ms: round(mean(c.samples), 3),
      ...(c.bench === "agent_run_overhead" &&
        floors.has(s.wire) && {
          median_above_floor_ms: round(median(c.samples) - floors.get(s.wire)!, 3),
          floor_median_ms: round(floors.get(s.wire)!, 3),
        }),
      model_wire: s.wire,
      model_requests: s.model_requests,
      tool_calls: s.tool_calls,
      ...(s.stored_conversations !== undefined && { stored_conversations: s.stored_conversations }),
    };
    if (c.bench === "agent_run_floor" || ours(c.framework)) {
      if (c.bench === "agent_run_overhead") (c.framework === "agno-edge" ? ourLines : ourTcpLines).set(c.db, line);
      emit(line);
    } else {
      medians.get(c.db)!.set(c.framework, line.median_ms);
      p99s.get(c.db)!.set(c.framework, line.p99_ms);
      if (line.median_above_floor_ms !== undefined) aboveFloor.get(c.db)!.set(c.framework, line.median_above_floor_ms);
      const ourLine = ourLines.get(c.db);
      emit(
        ourLine
          ? {
              ...line,
              median_ratio_to_agno_edge: round(line.median_ms / ourLine.median_ms, 2),
              p99_ratio_to_agno_edge: round(line.p99_ms / ourLine.p99_ms, 2),
            }
          : line,
      );
    }
  }
  // One set of comparisons per db: with storage, agno-edge meets only the peers that stored too.
  for (const db of dbs) {
    for (const [our, extra] of [
      [ourLines.get(db), { db }],
      [ourTcpLines.get(db), { db, driver: "node-postgres" }],
    ] as const) {
      if (!our) continue;
      compare("agent_run_overhead", "median_ms", our.median_ms, medians.get(db)!, extra);
      compare("agent_run_overhead", "p99_ms", our.p99_ms, p99s.get(db)!, extra);
      compare("agent_run_overhead", "median_above_floor_ms", our.median_above_floor_ms, aboveFloor.get(db)!, extra);
    }
  }
}

/**
 * Figures 3 and 4. `dbTargets` are the Postgres servers the agno-edge and Mastra agents also run
 * with a db against (PGlite always, served on a TCP port; the real server when BENCH_DATABASE_URL
 * is set): agno-edge through `wsProxy`, Mastra directly. A peer that cannot be installed or
 * loaded here gets a `skipped` line with the reason.
 */
export async function benchAgents(opts: { dbTargets: AgentDbTarget[]; wsProxy: string }): Promise<void> {
  const skipped = new Map<string, string>();
  const installed = ensurePeers(log);
  if (!installed.ok) {
    log(`the peer frameworks are skipped: ${installed.reason}`);
    for (const peer of PEERS) skipped.set(peer, installed.reason);
  }
  if (ONLY && ONLY !== "construction" && ONLY !== "runs")
    throw new Error(`BENCH_AGENT_ONLY=${ONLY}: use construction or runs`);
  if (ONLY !== "runs") await benchConstruction(["agno-edge", ...PEERS], skipped);
  if (ONLY !== "construction") await benchRuns(PEERS, skipped, opts.dbTargets, opts.wsProxy);
}
