import type { Component } from "../agent/component.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import { TEAM_MODES, type TeamMode } from "../team/team-mode.js";
import { Team } from "../team/team.js";
import type { ComponentRegistry } from "./component-registry.js";
import { modelSpecOf } from "./validate-config.js";

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
  const spec = modelSpecOf(c.model);
  if (spec === undefined || !registry.models.has(spec))
    throw new ValidationError(
      `team ${component.component_id} v${config.version}: model ${spec ?? "(none)"} is not allowed by this deployment`,
      "model",
    );
  if (c.mode !== undefined && !TEAM_MODES.includes(c.mode as TeamMode))
    throw new ValidationError(
      `team ${component.component_id} v${config.version}: mode must be one of ${TEAM_MODES.join(", ")}`,
      "mode",
    );
  if (members.length === 0)
    throw new ValidationError(`team ${component.component_id} v${config.version}: a team needs members`, "members");
  const instructions =
    typeof c.instructions === "string"
      ? c.instructions
      : Array.isArray(c.instructions)
        ? c.instructions.filter((i): i is string => typeof i === "string")
        : undefined;
  return new Team({
    id: component.component_id,
    name: typeof c.name === "string" ? c.name : (component.name ?? component.component_id),
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    model: registry.modelInstances.get(spec) ?? spec,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(c.mode !== undefined ? { mode: c.mode as TeamMode } : {}),
    members,
  });
}
