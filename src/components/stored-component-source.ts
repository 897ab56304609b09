import type { Component, ComponentRef, ComponentSource } from "../agent/component.js";
import { findComponent } from "../agent/component.js";
import type { Db } from "../db/port.js";
import { buildStoredComponent } from "./build-stored-component.js";
import type { ComponentRegistry } from "./component-registry.js";

/**
 * `served` (the code-defined components) plus the stored ones, built through `registry` from the
 * config version a job names, or the current published one when it names none (a schedule's
 * occurrence, a queued continue): what the durable queue runs stored components with. Access was
 * decided when the run was requested (a draft only for its editor), so the job builds the version
 * it carries; a component archived since is gone (undefined).
 */
export function storedComponentSource(
  served: ComponentSource | readonly Component[],
  registry: ComponentRegistry,
): ComponentSource {
  return {
    component: (ref) => findComponent(served, ref),
    async stored(ref: Pick<ComponentRef, "type" | "id">, version: number | "current", db: Db) {
      const row = await db.components.getComponent(ref.id, { componentType: ref.type });
      const wanted = version === "current" ? row?.current_version : version;
      const config = row && wanted != null ? await db.components.getConfig(ref.id, wanted) : null;
      if (!row || !config || (version === "current" && config.stage !== "published")) return undefined;
      return (await buildStoredComponent(row, config, registry, db.components)).withDb(db);
    },
  };
}
