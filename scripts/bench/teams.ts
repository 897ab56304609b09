/**
 * The team figures of BENCHMARKS.md: what a coordinate-mode team (a leader and two members)
 * costs per run and per delegation above the model calls it makes, agno-edge side by side with
 * Mastra's supervisor agent and LangGraph.js's supervisor (team-frameworks.ts), against the
 * scripted model server, which answers at once. Each run: the leader delegates to one member,
 * the member answers, the leader answers: 3 model calls, in every framework. The floor is the
 * same 3 requests made by hand with fetch (per wire: streamed or one JSON body); a framework's
 * median minus the floor of its own wire is its overhead. In memory for all; agno-edge also
 * stores its runs on each Postgres target (PostgresDb, through the WebSocket proxy).
 */
import { randomUUID } from "node:crypto";
import { startModelServer } from "../../test/support/model-server.js";
import { compare, type AgentDbTarget } from "./agents.js";
import { runInterleaved, type Entry } from "./interleaved-runs.js";
import type { OrchestrationConfig } from "./orchestration-child.js";
import { ensurePeers } from "./peers.js";
import { TEAM_MODEL_CALLS } from "./team-frameworks.js";
import { emit, log, mean, median, percentile, round } from "./util.js";

const BATCHES = 10;
/** Timed runs per contender; BENCH_TEAM_RUNS lowers it to try a change quickly. */
const RUNS = Number(process.env.BENCH_TEAM_RUNS || 200);
const WARMUP = 20;
/** delegations per run (the leader sends one task to one member) */
const DELEGATIONS = 1;
const PEERS = ["mastra", "langgraph"] as const;

export async function benchTeams(opts: { dbTargets: AgentDbTarget[]; wsProxy: string }): Promise<void> {
  if (!Number.isInteger(RUNS) || RUNS <= 0 || RUNS % BATCHES)
    throw new Error(`BENCH_TEAM_RUNS=${RUNS}: a positive multiple of ${BATCHES}`);
  const installed = ensurePeers(log);
  const server = await startModelServer();
  const config = (db?: AgentDbTarget): OrchestrationConfig => ({
    kind: "team",
    n: RUNS,
    warmup: WARMUP,
    modelServerUrl: server.url,
    ...(db && {
      db: { ...db, wsProxy: opts.wsProxy, schema: `bench_team_${process.pid}_${randomUUID().slice(0, 8)}` },
    }),
  });
  const entries: Entry[] = [
    ...["raw-fetch-json", "raw-fetch-sse", "agno-edge", ...(installed.ok ? PEERS : [])].map((framework) => ({
      label: framework,
      framework,
      config: config(),
    })),
    ...opts.dbTargets.map((db) => ({ label: `agno-edge+${db.name}`, framework: "agno-edge", config: config(db) })),
  ];
  if (!installed.ok)
    for (const peer of PEERS) emit({ bench: "team_run_overhead", framework: peer, skipped: installed.reason });
  log(
    `team runs: ${entries.map((e) => e.label).join(", ")}; ${WARMUP} warm-ups each, then ${BATCHES} turns of ${RUNS / BATCHES} runs`,
  );
  let outcomes;
  try {
    outcomes = await runInterleaved(entries, RUNS, BATCHES);
  } finally {
    await server.stop();
  }

  const floors = new Map<string, number>();
  for (const o of outcomes)
    if (o.entry.framework.startsWith("raw-fetch") && o.summary) floors.set(String(o.summary.wire), median(o.samples));
  let ours: { median_ms: number; median_above_floor_ms?: number; per_delegation_above_floor_ms?: number } | undefined;
  const peerMedians = new Map<string, number>();
  const peerAbove = new Map<string, number>();
  for (const o of outcomes) {
    const db = o.entry.config.db?.name ?? "none";
    const floor = o.entry.framework.startsWith("raw-fetch");
    if (!o.summary) {
      emit({
        bench: floor ? "team_run_floor" : "team_run_overhead",
        framework: o.entry.framework,
        db,
        skipped: o.skipped,
      });
      continue;
    }
    const { framework, package: pkg, version, storage, runs: _runs, wire, ...checked } = o.summary;
    const m = median(o.samples);
    const floorMs = floors.get(String(wire));
    const above = !floor && floorMs !== undefined ? m - floorMs : undefined;
    const line = {
      bench: floor ? "team_run_floor" : "team_run_overhead",
      framework,
      package: pkg,
      version,
      ...(!floor && { db }),
      ...(storage !== undefined && { storage }),
      shape: "leader + 2 members; leader delegates to one member, then answers",
      model_calls_per_run: TEAM_MODEL_CALLS,
      delegations_per_run: DELEGATIONS,
      n: o.samples.length,
      warmup: WARMUP,
      median_ms: round(m, 3),
      p99_ms: round(percentile(o.samples, 99), 3),
      mean_ms: round(mean(o.samples), 3),
      ...(above !== undefined && {
        floor_median_ms: round(floorMs!, 3),
        median_above_floor_ms: round(above, 3),
        per_delegation_above_floor_ms: round(above / DELEGATIONS, 3),
      }),
      model_wire: wire,
      ...checked,
    };
    if (framework === "agno-edge" && db === "none") ours = line;
    else if (framework !== "agno-edge" && !floor) {
      peerMedians.set(framework, line.median_ms);
      if (line.median_above_floor_ms !== undefined) peerAbove.set(framework, line.median_above_floor_ms);
    }
    emit(line);
  }
  compare("team_run_overhead", "median_ms", ours?.median_ms, peerMedians, { db: "none" });
  compare("team_run_overhead", "median_above_floor_ms", ours?.median_above_floor_ms, peerAbove, { db: "none" });
}
