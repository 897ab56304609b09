import type { Component } from "../agent/component.js";
import { ValidationError } from "../errors.js";

/** The one agent, team or workflow an interface is put in front of; none or several is a configuration error. */
export function oneComponent(
  interfaceName: string,
  opts: { agent?: Component; team?: Component; workflow?: Component },
): Component {
  const given = [opts.agent, opts.team, opts.workflow].filter((c) => c !== undefined);
  if (given.length !== 1)
    throw new ValidationError(`${interfaceName} needs exactly one of agent, team or workflow`, "agent");
  return given[0]!;
}
