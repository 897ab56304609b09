import type { Db } from "../db/port.js";
import type { Component, ComponentRunInput } from "../agent/component.js";
import type { RunOutput, RunRequirement } from "../agent/run-output.js";
import { addMemberMetrics } from "./team-metrics.js";

/** A member run the team started, and its output once it ended (or paused). */
export interface MemberRun {
  /** unset for a member run a continued team run took over from its stored row */
  member?: Component;
  runId: string;
  /** the leader's tool call that started it */
  toolCallId?: string;
  output?: RunOutput;
}

/**
 * What one team run keeps beside its transcript while it runs: the member runs its tools started,
 * the member requirements that pause it, its task rounds. The leader's tools and engine hooks
 * find it by the team run's id.
 */
export class TeamRunState {
  readonly memberRuns: MemberRun[] = [];
  /** member requirements not yet on the team run (collect moves them there, which pauses it) */
  readonly pending: RunRequirement[] = [];
  /** member runs whose metrics the team run already holds */
  private readonly counted = new Set<string>();
  /** `tasks` mode: how many times the leader has answered */
  rounds = 0;

  constructor(
    readonly input: Pick<ComponentRunInput, "message" | "media" | "metadata" | "stream">,
    readonly db: Db | undefined,
    /** the members as this binding of the team has them (its storage bound to each) */
    readonly members: readonly Component[],
    /** agno's share_member_interactions: each member is told what the members before it were asked and answered */
    readonly shareInteractions = false,
  ) {}

  /** what the members asked so far in this run were given and answered (agno's team run context) */
  readonly interactions: Array<{ member: string; task: string; response: string }> = [];

  /** What a member is sent for `task`: with shared interactions, the earlier ones before it. */
  memberInput(task: string): string {
    if (!this.shareInteractions || this.interactions.length === 0) return task;
    const lines = this.interactions.map((i) => `Member: ${i.member}\nTask: ${i.task}\nResponse: ${i.response}\n`);
    return `<member_interaction_context>\nSee below interactions with other team members.\n${lines.join("\n")}\n</member_interaction_context>\n\n${task}`;
  }

  /** Takes over the member runs a paused team run stored (their metrics are already in it), when it continues. */
  adopt(outputs: readonly RunOutput[]): void {
    for (const output of outputs) {
      this.memberRuns.push({ runId: output.run_id, output });
      this.counted.add(output.run_id);
    }
  }

  /**
   * Puts the member runs on the team run (agno's `member_responses`), adds the newly ended ones'
   * metrics, and hands over the member requirements that pause it.
   */
  collect(output: RunOutput): RunRequirement[] {
    const ended = this.memberRuns.flatMap((r) => (r.output ? [r.output] : []));
    for (const run of this.memberRuns) {
      const call = run.toolCallId && output.tools.find((t) => t.tool_call_id === run.toolCallId);
      if (call) call.child_run_id = run.runId;
    }
    if (ended.length > 0 || output.member_responses) output.member_responses = ended;
    for (const run of ended) {
      if (this.counted.has(run.run_id)) continue;
      this.counted.add(run.run_id);
      addMemberMetrics(output.metrics, run);
    }
    return this.pending.splice(0);
  }
}
