import type { Agent } from "../agent/agent.js";
import type { Component, ComponentRef, ComponentSource } from "../agent/component.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import type { JobQueueLimits } from "../queue/job-enqueuer.js";
import { checkUniqueIds } from "../os/unique-ids.js";
import type { Team } from "../team/team.js";
import type { Workflow } from "../workflow/workflow.js";

/**
 * The components a deployment serves, built once per isolate (per env) and read by everything
 * that runs them: the HTTP app, the JobQueue object and the cron tick. Storage is wired into the
 * components here, so a background run behaves as the same run over HTTP would.
 */
export class ComponentRegistry implements ComponentSource {
  readonly agents: Agent[];
  readonly teams: Team[];
  readonly workflows: Workflow[];
  /** every component it serves: agents, then teams, then workflows */
  readonly components: Component[];

  constructor(
    agents: Agent[],
    readonly storage: { media?: MediaStorage; results?: ObjectStorage } = {},
    more: { teams?: Team[]; workflows?: Workflow[]; queue?: JobQueueLimits } = {},
  ) {
    const { media, results } = storage;
    const queue = more.queue;
    this.agents = agents
      .map((a) => (media && !a.mediaStorage ? a.withMediaStorage(media) : a))
      .map((a) => (results && !a.resultStorage ? a.withOffloadStorage(results) : a))
      // With the durable queue bound, the agents' tools may enqueue jobs (ToolContext.enqueueJob).
      .map((a) => (queue && !a.jobQueue ? a.withJobQueue(queue) : a));
    // Teams and workflows are served as given: their media and result storage are their members' own.
    this.teams = [...(more.teams ?? [])];
    this.workflows = [...(more.workflows ?? [])];
    checkUniqueIds("agents", this.agents);
    checkUniqueIds("teams", this.teams);
    checkUniqueIds("workflows", this.workflows);
    this.components = [...this.agents, ...this.teams, ...this.workflows];
  }

  agent(id: string): Agent | undefined {
    return this.agents.find((a) => a.id === id);
  }

  /** The component `ref` names (its type and id), if this deployment serves it. */
  component(ref: Pick<ComponentRef, "type" | "id">): Component | undefined {
    return this.components.find((c) => c.ref.type === ref.type && c.ref.id === ref.id);
  }

  /** The longest heartbeat interval of the components (a run is stale only after three of its own). */
  heartbeatSeconds(floor: number): number {
    return Math.max(floor, ...this.components.map((c) => c.heartbeatSeconds));
  }
}
