import { Agent } from "../agent/agent.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import type { Tool } from "../tools/tool.js";
import type { ComponentRegistry } from "./component-registry.js";
import { storedBasics } from "./stored-basics.js";
import { toolNameOf } from "./validate-config.js";

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
  const basics = storedBasics("agent", component, config, registry);
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
  return new Agent({
    ...basics,
    ...(tools.length ? { tools } : {}),
  });
}
