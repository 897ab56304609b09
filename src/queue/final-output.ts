import type { RunOutput } from "../agent/run-output.js";

/** Takes every event of a run and returns its final output (the generator's return value). */
export async function finalOutput(events: AsyncGenerator<unknown, RunOutput>): Promise<RunOutput> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}
