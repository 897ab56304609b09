import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";

/** A leader's event under agno's team name (`RunStarted` → `TeamRunStarted`); members' events pass as they are. */
function named(event: RunEvent, runId: string): RunEvent {
  if (event.run_id !== runId || event.event.startsWith("Team")) return event;
  return { ...event, event: `Team${event.event}` } as RunEvent;
}

/**
 * The team run `runId`'s events as agno names them, and its output; `end` runs once the run is
 * over (or its caller stopped reading), after the leader's run has been closed.
 */
export async function* teamEvents(
  events: AsyncGenerator<RunEvent, RunOutput>,
  runId: string,
  end: () => void,
): AsyncGenerator<RunEvent, RunOutput> {
  let over = false;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        over = true;
        return next.value;
      }
      yield named(next.value, runId);
    }
  } catch (error) {
    over = true;
    throw error;
  } finally {
    if (!over) await events.return(undefined as never).catch(() => undefined);
    end();
  }
}
