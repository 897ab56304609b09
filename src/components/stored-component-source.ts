import type { Component, ComponentRef, ComponentSource } from "../agent/component.js";
import { currentPublishedConfig } from "./current-published-config.js";
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
      const found =
        version === "current"
          ? await currentPublishedConfig(db.components, ref.id, { componentType: ref.type })
          : await pinned(db, ref, version);
      if (!found) return undefined;
      return (await buildStoredComponent(found.row, found.config, registry, db.components)).withDb(db);
    },
  };
}

/** The component and the config version a job pinned, whatever its stage (access was decided when it was queued). */
async function pinned(db: Db, ref: Pick<ComponentRef, "type" | "id">, version: number) {
  const row = await db.components.getComponent(ref.id, { componentType: ref.type });
  const config = row ? await db.components.getConfig(ref.id, version) : null;
  return row && config ? { row, config } : null;
}
