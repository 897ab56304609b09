/**
 * One team or workflow contender in a process of its own (started by teams.ts or workflows.ts
 * with `node --import tsx`), speaking agent-child.ts's protocol: warm-up runs, `ready`, one
 * `batch` of timed runs per request, then `done` with what the runs did, checked.
 *
 *   orchestration-child.ts run <framework> <config json>
 */
import { errorMessage } from "../../src/errors.js";
import type { DbConfig } from "./frameworks.js";
import { loadTeam, TEAM_ANSWER, type TeamRunner } from "./team-frameworks.js";
import { loadWorkflow, type WorkflowRunner } from "./workflow-frameworks.js";

export interface OrchestrationConfig {
  kind: "team" | "workflow";
  n: number;
  warmup: number;
  /** teams: where the scripted model server listens */
  modelServerUrl?: string;
  /** workflows: how many function steps in a row */
  steps?: number;
  db?: DbConfig;
}

export interface OrchestrationSummary {
  framework: string;
  package: string;
  version: string;
  storage?: string;
  runs: number;
  [checked: string]: unknown;
}

type Runner = TeamRunner | WorkflowRunner;

async function load(framework: string, cfg: OrchestrationConfig): Promise<{ runner: Runner; expected: unknown }> {
  if (cfg.kind === "team")
    return {
      runner: await loadTeam(framework, cfg.modelServerUrl!, cfg.warmup + cfg.n, cfg.db),
      expected: TEAM_ANSWER,
    };
  return { runner: await loadWorkflow(framework, cfg.steps!, cfg.db), expected: cfg.steps };
}

/** The parent's requests, queued from the start so none is missed between two awaits. */
const queue: ({ kind: "batch"; runs: number } | { kind: "finish" })[] = [];
let wake: (() => void) | undefined;
process.on("message", (m) => {
  queue.push(m as (typeof queue)[number]);
  wake?.();
});
async function nextRequest() {
  while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
  return queue.shift()!;
}

const send = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
const describe = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));

async function main(): Promise<void> {
  const [, framework, json] = process.argv.slice(2);
  const cfg = JSON.parse(json ?? "{}") as OrchestrationConfig;
  let runner: Runner;
  let expected: unknown;
  try {
    ({ runner, expected } = await load(framework ?? "", cfg));
  } catch (e) {
    return send({ ok: false, stage: "load", error: errorMessage(e) });
  }
  let runs = 0;
  let closed = false;
  async function timed(count: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const result = await runner.run();
      samples.push(performance.now() - started);
      runs++;
      if (result !== expected)
        throw new Error(`run ${runs} answered ${JSON.stringify(result)}, not ${JSON.stringify(expected)}`);
    }
    return samples;
  }
  try {
    await timed(cfg.warmup);
    await send({ ok: true, kind: "ready" });
    for (;;) {
      const request = await nextRequest();
      if (request.kind === "finish") {
        if (runs !== cfg.warmup + cfg.n) throw new Error(`${runs} runs made; ${cfg.warmup + cfg.n} planned`);
        const summary: OrchestrationSummary = {
          framework: runner.framework,
          package: runner.package,
          version: runner.version,
          ...(runner.storage && { storage: runner.storage }),
          runs,
          ...(await runner.check(runs)),
        };
        // Closed (its schema dropped) before answering: the parent ends the process once it has the answer.
        closed = true;
        await runner.close();
        return await send({ ok: true, kind: "done", summary });
      }
      await send({ ok: true, kind: "batch", samples_ms: await timed(request.runs) });
    }
  } catch (e) {
    await send({ ok: false, stage: "measure", error: describe(e) });
  } finally {
    if (!closed) await runner.close();
  }
}

main()
  .catch((e: unknown) => {
    process.stderr.write(`[bench child] ${describe(e)}\n`);
    process.exitCode = 1;
  })
  // Some frameworks leave timers or sockets behind: the answer is sent, so leave.
  .finally(() => process.exit());
