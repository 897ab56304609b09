import type { AgentOptions } from "../agent/agent.js";
import type { Component } from "../agent/component.js";
import type { TeamMode } from "./team-mode.js";

/**
 * A team: a leader (a model with instructions, like an agent) and its members, agents or teams.
 * Every option an agent has applies to the leader (history, session state, memory, tool-result
 * offload, media storage, structured output, hooks, its own tools); agno's team options are
 * added in camelCase.
 */
export interface TeamOptions extends Omit<AgentOptions, "model"> {
  /** the leader's model: a Model, or `"provider:model-id"` */
  model: AgentOptions["model"];
  /** agents or teams (each an Agent or a Team); their ids must differ */
  members: Component[];
  /**
   * how the leader works with the members (default: from respondDirectly / delegateToAllMembers,
   * else `coordinate`); when set it wins over those two flags, as in agno
   */
  mode?: TeamMode;
  /** agno's older flag for `route` */
  respondDirectly?: boolean;
  /** agno's older flag for `broadcast` */
  delegateToAllMembers?: boolean;
  /** false: members get the team's input as it came, not a task the leader wrote (default true) */
  determineInputForMembers?: boolean;
  /** `tasks` mode: how many rounds the leader gets to finish the task list (default 10) */
  maxIterations?: number;
  /** give the leader a `get_member_information` tool */
  getMemberInformationTool?: boolean;
  /** pass the members' events on to the team's caller (default true) */
  streamMemberEvents?: boolean;
}
