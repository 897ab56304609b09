import type { ComponentRef } from "../agent/component.js";
import type { ToolContext } from "../tools/tool.js";
import type { TeamRunState } from "./team-run-state.js";

/** What the leader's tools know of their team: each run's state (its members among it) by run id. */
export interface TeamToolHost {
  readonly ref: ComponentRef;
  readonly determineInputForMembers: boolean;
  readonly streamMemberEvents: boolean;
  /** the state of the team run a tool call belongs to */
  stateOf(ctx: ToolContext): TeamRunState;
}
