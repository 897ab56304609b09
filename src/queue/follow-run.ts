import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import { errorMessage } from "../errors.js";
import type { RunFollower } from "../interfaces/run-follower.js";
import type { Outcome } from "./executor.js";

/** Posts the run's end through the follower: undefined when posted, else the outcome that retries the posting. */
export async function postEnd(follower: RunFollower, output: RunOutput): Promise<Outcome | undefined> {
  try {
    await follower.onEnd(output);
    return undefined;
  } catch (error) {
    return { status: "FAILED", error: `the answer could not be posted: ${errorMessage(error)}`, retryable: true };
  }
}

/** The run's events, each shown to the follower first (whose failures never stop the run). */
export async function* followed<T extends RunEvent, R>(
  events: AsyncGenerator<T, R>,
  follower: RunFollower | undefined,
): AsyncGenerator<T, R> {
  if (!follower?.onEvent) return yield* events;
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    try {
      await follower.onEvent(next.value);
    } catch (error) {
      console.error(`a chat interface could not show an event of the run: ${errorMessage(error)}`);
    }
    yield next.value;
  }
}
