import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import type { StoredOrigin } from "../agent/stored-origin.js";
import { ValidationError } from "../errors.js";
import type { Model } from "../models/model.js";
import type { ComponentRegistry } from "./component-registry.js";
import { modelSpecOf } from "./validate-config.js";

/** What an agent and a team built from a stored config share: identity, model, instructions. */
export interface StoredBasics {
  id: string;
  name: string;
  description?: string;
  model: Model | string;
  instructions?: string | string[];
  stored: StoredOrigin;
}

/** The version a component is built from, and its stage. */
export function storedOrigin(config: ComponentConfigRecord): StoredOrigin {
  return { version: config.version, stage: config.stage === "published" ? "published" : "draft" };
}

/**
 * The options every stored component starts from: its id and name, its description, its model
 * by spec (the served components' own instance when one matches) and its instructions. A model
 * the registry does not hold is a 422 naming the component and version.
 */
export function storedBasics(
  kind: "agent" | "team",
  component: ComponentRecord,
  config: ComponentConfigRecord,
  registry: ComponentRegistry,
): StoredBasics {
  const c = config.config;
  const spec = modelSpecOf(c.model);
  if (spec === undefined || !registry.models.has(spec))
    throw new ValidationError(
      `${kind} ${component.component_id} v${config.version}: model ${spec ?? "(none)"} is not allowed by this deployment`,
      "model",
    );
  const instructions =
    typeof c.instructions === "string"
      ? c.instructions
      : Array.isArray(c.instructions)
        ? c.instructions.filter((i): i is string => typeof i === "string")
        : undefined;
  return {
    id: component.component_id,
    name: typeof c.name === "string" ? c.name : (component.name ?? component.component_id),
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    model: registry.modelInstances.get(spec) ?? spec,
    ...(instructions !== undefined ? { instructions } : {}),
    stored: storedOrigin(config),
  };
}
