import type { Db } from "../db/port.js";
import type { Component, ComponentRunInput } from "../agent/component.js";
import type { RunOutput, RunRequirement } from "../agent/run-output.js";
import { addMemberMetrics } from "./team-metrics.js";

/** A member run the team started, and its output once it ended (or paused). */
export interface MemberRun {
  member: Component;
  runId: string;
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
  ) {}

  /**
   * Puts the member runs on the team run (agno's `member_responses`), adds the newly ended ones'
   * metrics, and hands over the member requirements that pause it.
   */
  collect(output: RunOutput): RunRequirement[] {
    const ended = this.memberRuns.flatMap((r) => (r.output ? [r.output] : []));
    if (ended.length > 0 || output.member_responses) output.member_responses = ended;
    for (const run of ended) {
      if (this.counted.has(run.run_id)) continue;
      this.counted.add(run.run_id);
      addMemberMetrics(output.metrics, run);
    }
    return this.pending.splice(0);
  }
}
