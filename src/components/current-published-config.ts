import type {
  ComponentConfigRecord,
  ComponentRecord,
  ComponentStore,
  ComponentType,
} from "../db/ports/component-store.js";

/**
 * A live stored component (one `userId` may see, when given) with the config its current version
 * names, when that config is published: what runs a stored component by id without a version (a
 * team's member, a workflow's step, a schedule's occurrence, a queued continue). Null otherwise.
 */
export async function currentPublishedConfig(
  store: ComponentStore,
  id: string,
  opts: { componentType: ComponentType; userId?: string },
): Promise<{ row: ComponentRecord; config: ComponentConfigRecord } | null> {
  const row = await store.getComponent(id, opts);
  if (row?.current_version == null) return null;
  const config = await store.getConfig(id, row.current_version);
  return config?.stage === "published" ? { row, config } : null;
}
