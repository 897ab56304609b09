import { Agent } from "../agent/agent.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import type { Tool } from "../tools/tool.js";
import type { ComponentRegistry } from "./component-registry.js";
import { modelSpecOf, toolNameOf } from "./validate-config.js";

/**
 * An Agent built from a stored config through the registry (agno's Agent.from_dict with a
 * registry): the model by its spec (the served components' own instance when one matches), tools
 * by name, instructions and identity from the config. Anything the registry does not hold is a
 * 422: a config stored before the deployment dropped a tool does not run with less than it says.
 */
export function buildStoredAgent(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  registry: ComponentRegistry,
): Agent {
  const c = config.config;
  const spec = modelSpecOf(c.model);
  if (spec === undefined || !registry.models.has(spec))
    throw new ValidationError(
      `agent ${component.component_id} v${config.version}: model ${spec ?? "(none)"} is not allowed by this deployment`,
      "model",
    );
  const tools: Tool[] = [];
  for (const entry of Array.isArray(c.tools) ? c.tools : []) {
    const name = toolNameOf(entry);
    const tool = name === undefined ? undefined : registry.tools.get(name);
    if (!tool)
      throw new ValidationError(
        `agent ${component.component_id} v${config.version}: unknown tool ${name ?? "(unnamed)"}`,
        "tools",
      );
    tools.push(tool);
  }
  const instructions =
    typeof c.instructions === "string"
      ? c.instructions
      : Array.isArray(c.instructions)
        ? c.instructions.filter((i): i is string => typeof i === "string")
        : undefined;
  return new Agent({
    id: component.component_id,
    name: typeof c.name === "string" ? c.name : (component.name ?? component.component_id),
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    model: registry.modelInstances.get(spec) ?? spec,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(tools.length ? { tools } : {}),
  });
}
