import type { Component, ComponentRef, ComponentSource } from "../agent/component.js";
import { findComponent } from "../agent/component.js";
import type { Db } from "../db/port.js";
import { buildStoredComponent } from "./build-stored-component.js";
import type { ComponentRegistry } from "./component-registry.js";

/**
 * `served` (the code-defined components) plus the stored ones, built through `registry` from the
 * config version a job names: what the durable queue runs a background run of a stored
 * component with. Access was decided when the run was requested (a draft only for its editor),
 * so the job builds the version it carries; a component deleted since is gone (undefined).
 */
export function storedComponentSource(
  served: ComponentSource | readonly Component[],
  registry: ComponentRegistry,
): ComponentSource {
  return {
    component: (ref) => findComponent(served, ref),
    async stored(ref: Pick<ComponentRef, "type" | "id">, version: number, db: Db) {
      const row = await db.components.getComponent(ref.id, { componentType: ref.type });
      const config = row ? await db.components.getConfig(ref.id, version) : null;
      if (!row || !config) return undefined;
      return (await buildStoredComponent(row, config, registry, db.components)).withDb(db);
    },
  };
}
