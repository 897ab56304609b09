/**
 * The workflow figures of BENCHMARKS.md: what a step of a workflow of function steps costs,
 * agno-edge side by side with Mastra workflows and a LangGraph.js StateGraph, in memory
 * (workflow-frameworks.ts); agno-edge also with its runs stored on each Postgres target. Each
 * contender runs a workflow of 10 steps and one of 1 step: per step is the 10-step median over
 * 10, and the marginal step is the difference of the two medians over 9 (what one more step
 * adds, without the run's fixed cost). The floor: the same functions awaited in a plain loop.
 */
import { randomUUID } from "node:crypto";
import { compare, type AgentDbTarget } from "./agents.js";
import { runInterleaved, type Entry, type Outcome } from "./interleaved-runs.js";
import type { OrchestrationConfig } from "./orchestration-child.js";
import { ensurePeers } from "./peers.js";
import { emit, log, mean, median, percentile, round } from "./util.js";

const BATCHES = 10;
/** Timed runs per contender; BENCH_WORKFLOW_RUNS lowers it to try a change quickly. */
const RUNS = Number(process.env.BENCH_WORKFLOW_RUNS || 300);
const WARMUP = 30;
const STEPS = 10;
const PEERS = ["mastra", "langgraph"] as const;

export async function benchWorkflows(opts: { dbTargets: AgentDbTarget[]; wsProxy: string }): Promise<void> {
  if (!Number.isInteger(RUNS) || RUNS <= 0 || RUNS % BATCHES)
    throw new Error(`BENCH_WORKFLOW_RUNS=${RUNS}: a positive multiple of ${BATCHES}`);
  const installed = ensurePeers(log);
  if (!installed.ok)
    for (const peer of PEERS) emit({ bench: "workflow_step_overhead", framework: peer, skipped: installed.reason });
  const config = (steps: number, db?: AgentDbTarget): OrchestrationConfig => ({
    kind: "workflow",
    n: RUNS,
    warmup: WARMUP,
    steps,
    ...(db && {
      db: { ...db, wsProxy: opts.wsProxy, schema: `bench_workflow_${process.pid}_${randomUUID().slice(0, 8)}` },
    }),
  });
  const contenders: { label: string; framework: string; db?: AgentDbTarget }[] = [
    ...["plain-functions", "agno-edge", ...(installed.ok ? PEERS : [])].map((framework) => ({
      label: framework,
      framework,
    })),
    ...opts.dbTargets.map((db) => ({ label: `agno-edge+${db.name}`, framework: "agno-edge", db })),
    // As the queue runs it: a checkpoint saved in the run row as each step ends.
    ...opts.dbTargets.map((db) => ({ label: `agno-edge-durable+${db.name}`, framework: "agno-edge-durable", db })),
  ];
  const entries: Entry[] = contenders.flatMap((c) =>
    [STEPS, 1].map((steps) => ({ label: `${c.label}/${steps}`, framework: c.framework, config: config(steps, c.db) })),
  );
  log(
    `workflow runs: ${entries.map((e) => e.label).join(", ")}; ${WARMUP} warm-ups each, then ${BATCHES} turns of ${RUNS / BATCHES} runs`,
  );
  const outcomes = await runInterleaved(entries, RUNS, BATCHES);
  const find = (label: string, steps: number): Outcome => outcomes.find((o) => o.entry.label === `${label}/${steps}`)!;

  let ours: { per_step_ms: number; marginal_step_ms: number } | undefined;
  const perStep = new Map<string, number>();
  const marginal = new Map<string, number>();
  for (const c of contenders) {
    const [long, short] = [find(c.label, STEPS), find(c.label, 1)];
    const db = c.db?.name ?? "none";
    const bench = c.framework === "plain-functions" ? "workflow_step_floor" : "workflow_step_overhead";
    if (!long.summary || !short.summary) {
      emit({ bench, framework: c.framework, db, skipped: long.skipped ?? short.skipped });
      continue;
    }
    const { framework, package: pkg, version, storage, runs: _runs, ...checked } = long.summary;
    const [m10, m1] = [median(long.samples), median(short.samples)];
    const line = {
      bench,
      framework,
      package: pkg,
      version,
      ...(bench === "workflow_step_overhead" && { db }),
      ...(storage !== undefined && { storage }),
      steps: STEPS,
      step: "a function adding 1 to the number it is handed",
      n: long.samples.length,
      warmup: WARMUP,
      run_median_ms: round(m10, 4),
      run_p99_ms: round(percentile(long.samples, 99), 4),
      run_mean_ms: round(mean(long.samples), 4),
      per_step_ms: round(m10 / STEPS, 4),
      one_step_run_median_ms: round(m1, 4),
      marginal_step_ms: round((m10 - m1) / (STEPS - 1), 4),
      ...checked,
    };
    if (framework === "agno-edge" && db === "none") ours = line;
    else if (bench === "workflow_step_overhead" && framework !== "agno-edge") {
      perStep.set(framework, line.per_step_ms);
      marginal.set(framework, line.marginal_step_ms);
    }
    emit(line);
  }
  compare("workflow_step_overhead", "per_step_ms", ours?.per_step_ms, perStep, { db: "none" });
  compare("workflow_step_overhead", "marginal_step_ms", ours?.marginal_step_ms, marginal, { db: "none" });
}
