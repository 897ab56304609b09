/**
 * The turn-taking of the team and workflow figures: every contender runs in a child process of
 * its own (orchestration-child.ts), all started at once to do their warm-ups, then asked for
 * batches of timed runs one after the other, the order rotated each turn, so load on this shared
 * machine falls on all of them alike instead of on whichever ran at the time.
 */
import { Child, Skipped } from "./agents.js";
import type { OrchestrationConfig, OrchestrationSummary } from "./orchestration-child.js";
import { log, median } from "./util.js";

export interface Entry {
  /** how the logs and the skip reasons name it, e.g. `agno-edge+pglite` */
  label: string;
  framework: string;
  config: OrchestrationConfig;
}

export interface Outcome {
  entry: Entry;
  samples: number[];
  summary?: OrchestrationSummary;
  skipped?: string;
}

const SCRIPT = new URL("./orchestration-child.ts", import.meta.url);

const rotated = <T>(xs: T[], r: number): T[] => xs.map((_, i) => xs[(i + r) % xs.length]!);

/** `runs` timed runs per entry (each config's `n`), in `batches` turns, after the config's warm-ups. */
export async function runInterleaved(entries: Entry[], runs: number, batches: number): Promise<Outcome[]> {
  const outcomes = entries.map((entry) => ({ entry, samples: [] as number[] }) as Outcome & { child?: Child });
  try {
    for (const o of outcomes) o.child = new Child("run", o.entry.framework, o.entry.config, SCRIPT);
    for (const o of outcomes) {
      try {
        await o.child!.next("ready");
      } catch (e) {
        if (!(e instanceof Skipped)) throw e;
        log(`  ${o.entry.label} skipped: ${e.message}`);
        o.skipped = e.message;
        o.child!.kill();
        o.child = undefined;
      }
    }
    const active = outcomes.filter((o) => o.child);
    for (let r = 0; r < batches; r++) {
      for (const o of rotated(active, r)) {
        o.child!.send({ kind: "batch", runs: runs / batches });
        o.samples.push(...(await o.child!.next("batch")).samples_ms);
      }
      log(
        `  turn ${r + 1}/${batches}: ${active.map((o) => `${o.entry.label} ${median(o.samples).toFixed(3)}`).join(", ")} ms (median so far)`,
      );
    }
    for (const o of active) {
      o.child!.send({ kind: "finish" });
      o.summary = (await o.child!.next("done")).summary as unknown as OrchestrationSummary;
    }
  } finally {
    for (const o of outcomes) o.child?.kill();
  }
  return outcomes.map(({ entry, samples, summary, skipped }) => ({ entry, samples, summary, skipped }));
}
