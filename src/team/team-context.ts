import type { Component, ComponentRef } from "../agent/component.js";
import type { ToolContext } from "../tools/tool.js";
import type { TeamRunState } from "./team-run-state.js";

/** What the leader's tools know of their team: its members, and each run's state by run id. */
export interface TeamToolHost {
  readonly ref: ComponentRef;
  readonly members: readonly Component[];
  readonly determineInputForMembers: boolean;
  readonly streamMemberEvents: boolean;
  /** the state of the team run a tool call belongs to */
  stateOf(ctx: ToolContext): TeamRunState;
}
