import { Agent, type AgentOptions } from "../agent/agent.js";
import type { ComponentRef } from "../agent/component.js";
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
}
