import type { Component } from "../agent/component.js";
import { ValidationError } from "../errors.js";
import type { OSInterface } from "./os-interface.js";

/**
 * Refuses, when the app is built, interfaces that could not work: two at one prefix (a job could
 * not tell which answers it), or one in front of a component the app does not serve (its runs
 * would find no component to run).
 */
export function checkInterfaces(interfaces: readonly OSInterface[], served: readonly Component[]): void {
  const prefixes = new Set<string>();
  for (const iface of interfaces) {
    // "" mounts at the root, as agno's AG-UI does by default (`/agui`).
    if (iface.prefix !== "" && (!/^\/[a-z0-9][a-z0-9/_-]*$/i.test(iface.prefix) || iface.prefix.endsWith("/")))
      throw new ValidationError(
        `interface ${iface.type}: prefix ${JSON.stringify(iface.prefix)} must look like "/slack"`,
        "interfaces",
      );
    if (prefixes.has(iface.prefix))
      throw new ValidationError(
        `two interfaces share the prefix ${iface.prefix}: give one another prefix`,
        "interfaces",
      );
    prefixes.add(iface.prefix);
    if (iface.components.length === 0)
      throw new ValidationError(`interface ${iface.type} at ${iface.prefix} serves no component`, "interfaces");
    for (const { type, id } of iface.components.map((c) => c.ref))
      if (!served.some((c) => c.ref.type === type && c.ref.id === id))
        throw new ValidationError(
          `interface ${iface.type} at ${iface.prefix} is in front of ${type} ${id}, which this AgentOS does not serve: add it to the ${type}s`,
          "interfaces",
        );
  }
}
