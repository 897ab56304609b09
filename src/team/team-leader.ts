import { Agent, type AgentOptions, type ContinueOptions } from "../agent/agent.js";
import type { ComponentRef } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import type { EngineConfig } from "../agent/run-engine.js";
import type { PendingCall } from "../agent/tool-runner.js";

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

  /** Resumes the paused team run `output` by answering its held delegate calls with `answers` (by tool call id). */
  answerHeldCalls(
    output: RunOutput,
    answers: Map<string, string>,
    stream: boolean,
  ): AsyncGenerator<RunEvent, RunOutput> {
    const calls: PendingCall[] = output.tools
      .filter((t) => answers.has(t.tool_call_id))
      .map((execution) => ({
        execution,
        tool: undefined,
        answer: { text: answers.get(execution.tool_call_id)!, error: false },
      }));
    return this.resumePaused(output, calls, stream);
  }
}
