import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";

/**
 * A leader's event under agno's team name (`RunStarted` → `TeamRunStarted`). The leader's events
 * are the only ones with a team id and an agent event's name: members' pass as they are (an
 * agent's carry its agent id, a sub-team's were named by its own team already).
 */
function named(event: RunEvent): RunEvent {
  if (event.team_id === undefined || event.event.startsWith("Team")) return event;
  return { ...event, event: `Team${event.event}` } as RunEvent;
}

/**
 * A team run's events as agno names them, and its output; `end` runs once the run is over (or
 * its caller stopped reading), after the leader's run has been closed, with the run ids the
 * leader's events carried (a continue that forks runs under a new one).
 */
export async function* teamEvents(
  events: AsyncGenerator<RunEvent, RunOutput>,
  end: (runIds: Set<string>) => void,
  /** an event to stream right after TeamRunStarted (a `tasks` team's first round) */
  afterStart?: (started: RunEvent) => RunEvent,
): AsyncGenerator<RunEvent, RunOutput> {
  let over = false;
  const runIds = new Set<string>();
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        over = true;
        return next.value;
      }
      const event = named(next.value);
      if (event !== next.value) runIds.add(event.run_id);
      yield event;
      // Only the leader's own start: a sub-team's passes through here already named.
      if (afterStart && event !== next.value && event.event === "TeamRunStarted") yield afterStart(event);
    }
  } catch (error) {
    over = true;
    throw error;
  } finally {
    if (!over) await events.return(undefined as never).catch(() => undefined);
    end(runIds);
  }
}
