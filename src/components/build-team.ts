import type { Component } from "../agent/component.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import { TEAM_MODES, type TeamMode } from "../team/team-mode.js";
import { Team } from "../team/team.js";
import type { ComponentRegistry } from "./component-registry.js";
import { storedBasics } from "./stored-basics.js";

/**
 * A Team built from a stored config through the registry (agno's Team.from_dict with a registry):
 * the leader's model by its spec, its instructions, its mode, and `members` already resolved by
 * the caller (code-defined components, or stored ones built from their published configs), in
 * the order the config lists them. A model the registry does not hold or an unknown mode is a 422.
 */
export function buildStoredTeam(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  registry: ComponentRegistry,
  members: Component[],
): Team {
  const c = config.config;
  const basics = storedBasics("team", component, config, registry);
  if (c.mode !== undefined && !TEAM_MODES.includes(c.mode as TeamMode))
    throw new ValidationError(
      `team ${component.component_id} v${config.version}: mode must be one of ${TEAM_MODES.join(", ")}`,
      "mode",
    );
  if (members.length === 0)
    throw new ValidationError(`team ${component.component_id} v${config.version}: a team needs members`, "members");
  return new Team({
    ...basics,
    ...(c.mode !== undefined ? { mode: c.mode as TeamMode } : {}),
    members,
  });
}
