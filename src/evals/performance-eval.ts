import type { EvalRunWrite } from "../db/port.js";
import { EvalError } from "./eval-error.js";
import type { EvalRun } from "./accuracy-eval.js";
import { statsOf, type Stats } from "./eval-stats.js";
import type { EvalCommonOptions } from "./eval-target.js";

/** Run times in seconds and memory in MiB, with agno's PerformanceResult statistics (0 where nothing was measured). */
export interface PerformanceResult {
  run_times: number[];
  avg_run_time: number;
  min_run_time: number;
  max_run_time: number;
  std_dev_run_time: number;
  median_run_time: number;
  p95_run_time: number;
  memory_usages: number[];
  avg_memory_usage: number;
  min_memory_usage: number;
  max_memory_usage: number;
  std_dev_memory_usage: number;
  median_memory_usage: number;
  p95_memory_usage: number;
  /**
   * Whether memory was measured. It is where the runtime reports its heap (Node's
   * `process.memoryUsage`): the growth of the heap over one call, not agno's tracemalloc peak.
   * A Worker's runtime reports nothing, so there the memory figures are 0 and this is false.
   */
  memory_measured: boolean;
}

export interface PerformanceEvalOptions extends EvalCommonOptions {
  /** what is timed: one call is one iteration */
  func: () => unknown;
  /** measured calls (agno's default: 50) */
  numIterations?: number;
  /** calls made first and not measured (agno's default: 10) */
  warmupRuns?: number;
  measureRuntime?: boolean;
  measureMemory?: boolean;
  /** the component `func` runs, stored with each run */
  agentId?: string | null;
  teamId?: string | null;
  modelId?: string | null;
  modelProvider?: string | null;
  /** the stored component name (agno stores the function's name) */
  evaluatedComponentName?: string | null;
}

const MIB = 1024 * 1024;

/** The heap in use, in bytes, where the runtime reports it; undefined in a Worker. */
function heapUsed(): number | undefined {
  const proc = (globalThis as { process?: { memoryUsage?: () => { heapUsed: number } } }).process;
  try {
    const used = proc?.memoryUsage?.().heapUsed;
    return typeof used === "number" && used > 0 ? used : undefined;
  } catch {
    return undefined;
  }
}

const statFields = (prefix: "run_time" | "memory_usage", s: Stats | undefined) => ({
  [`avg_${prefix}`]: s?.avg ?? 0,
  [`min_${prefix}`]: s?.min ?? 0,
  [`max_${prefix}`]: s?.max ?? 0,
  [`std_dev_${prefix}`]: s?.stdDev ?? 0,
  [`median_${prefix}`]: s?.median ?? 0,
  [`p95_${prefix}`]: s?.p95 ?? 0,
});

/** agno's PerformanceResult of the measurements. */
export function performanceResult(runTimes: number[], memory: number[], measured: boolean): PerformanceResult {
  return {
    run_times: runTimes,
    ...statFields("run_time", statsOf(runTimes)),
    memory_usages: memory,
    ...statFields("memory_usage", statsOf(memory)),
    memory_measured: measured,
  } as PerformanceResult;
}

/**
 * agno's PerformanceEval: `func` is called `warmupRuns` times unmeasured, then `numIterations`
 * times timed (wall time, `performance.now()`) and, in a separate pass as agno does, measured for
 * memory where the runtime reports it. Each `run()` is a run of its own. A Worker's clock moves
 * only across I/O, so there a `func` that does none (no model call, no fetch) times as 0.
 *
 * @example
 * const { result } = await new PerformanceEval({ func: () => agent.run("Hi"), numIterations: 5, warmupRuns: 1 }).run();
 * console.log(result.avg_run_time);
 */
export class PerformanceEval {
  readonly options: PerformanceEvalOptions;

  constructor(options: PerformanceEvalOptions) {
    for (const [field, value] of [
      ["numIterations", options.numIterations ?? 50],
      ["warmupRuns", options.warmupRuns ?? 10],
    ] as const)
      if (!Number.isInteger(value) || value < (field === "numIterations" ? 1 : 0))
        throw new EvalError(`${field} must be a whole number${field === "numIterations" ? " of at least 1" : ""}`);
    this.options = options;
  }

  async run(): Promise<EvalRun<PerformanceResult>> {
    const o = this.options;
    const runId = o.runId ?? crypto.randomUUID();
    const iterations = o.numIterations ?? 50;
    const warmups = o.warmupRuns ?? 10;
    for (let i = 0; i < warmups; i++) await o.func();
    const runTimes: number[] = [];
    if (o.measureRuntime ?? true)
      for (let i = 0; i < iterations; i++) {
        const started = performance.now();
        await o.func();
        runTimes.push((performance.now() - started) / 1000);
      }
    const memory: number[] = [];
    let measured = false;
    if ((o.measureMemory ?? true) && heapUsed() !== undefined) {
      measured = true;
      for (let i = 0; i < iterations; i++) {
        const before = heapUsed()!;
        await o.func();
        memory.push(Math.max(0, (heapUsed()! - before) / MIB));
      }
    }
    const result = performanceResult(runTimes, memory, measured);
    const write: EvalRunWrite = {
      run_id: runId,
      eval_type: "performance",
      // agno stores the statistics under `result` and each measured run under `runs`.
      eval_data: {
        result: Object.fromEntries(Object.entries(result).filter(([k]) => k !== "run_times" && k !== "memory_usages")),
        runs: runTimes.map((runtime, i) => ({ runtime, memory: memory[i] ?? null })),
      },
      eval_input: { num_iterations: iterations, warmup_runs: warmups },
      name: o.name ?? null,
      user_id: o.userId ?? null,
      agent_id: o.agentId ?? null,
      team_id: o.teamId ?? null,
      model_id: o.modelId ?? null,
      model_provider: o.modelProvider ?? null,
      evaluated_component_name: o.evaluatedComponentName ?? (o.func.name || null),
    };
    const record = o.db ? await o.db.evals.create(write) : null;
    return { runId, result, record, failures: [] };
  }
}
