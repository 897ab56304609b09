import { Agent, type AgentOptions, type ContinueOptions } from "../agent/agent.js";
import type { ComponentRef } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import type { EngineConfig } from "../agent/run-engine.js";

/**
 * A team's leader: an agent whose runs are the team's (stored and streamed under the team's
 * identity, in a team session) and whose engine carries the team's hooks. Everything an agent
 * does for its runs (history, state, memory, media, offload, hooks, cancellation) it does here.
 */
export class TeamLeader extends Agent {
  constructor(
    opts: AgentOptions,
    private readonly hooks: Partial<EngineConfig>,
  ) {
    super(opts);
  }

  override get ref(): ComponentRef {
    return { type: "team", id: this.id, name: this.name };
  }

  protected override engineHooks(): Partial<EngineConfig> {
    return this.hooks;
  }

  /** A continue of the team run as the agent does it (its events, and the output as the return value). */
  continueEvents(runId: string, opts: ContinueOptions): AsyncGenerator<RunEvent, RunOutput> {
    return this.resumeRun(runId, opts);
  }
}
