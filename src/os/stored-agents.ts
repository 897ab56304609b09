import type { Context } from "hono";
import { currentPublishedConfig } from "../components/current-published-config.js";
import type { Agent } from "../agent/agent.js";
import { buildStoredAgent } from "../components/build-agent.js";
import { buildStoredComponent } from "../components/build-stored-component.js";
import type { Team } from "../team/team.js";
import type { ComponentRegistry } from "../components/component-registry.js";
import type { Db } from "../db/port.js";
import type { ComponentType } from "../db/ports/component-store.js";
import type { Workflow } from "../workflow/workflow.js";
import { NotFoundError } from "../errors.js";
import { componentFor, storedComponent } from "./agent-runs.js";
import { hasScope, principalOf, scopedUserId } from "./auth/scopes.js";
import type { OSEnv } from "./context.js";
import { mayReadDrafts } from "./routes/components.js";

/**
 * Agents built from published configs, per isolate. A published version never changes, so the
 * key names the version and nothing needs invalidating: publishing moves the component's current
 * version, which each request reads from the database, so every isolate runs the new version on
 * its next request (the cache only saves rebuilding). Drafts change, so they are never cached.
 */
const builtBy = new WeakMap<ComponentRegistry, Map<string, Agent>>();
const MAX_CACHED = 500;

/** Per registry: a build holds the deployment's own model instances and tools. */
function cached(registry: ComponentRegistry, key: string, make: () => Agent): Agent {
  let built = builtBy.get(registry);
  if (!built) builtBy.set(registry, (built = new Map()));
  let agent = built.get(key);
  if (!agent) {
    agent = make();
    if (built.size >= MAX_CACHED) built.delete(built.keys().next().value!);
    built.set(key, agent);
  }
  return agent;
}

/**
 * The stored component of `type` a run names and the config it runs: its current (published)
 * config, or `version`. A draft version runs only for a caller who may edit the component (its
 * owner, or an unscoped caller, with `components:write`); to anyone else it is absent (404), as
 * its config is.
 */
async function storedConfigFor(c: Context<OSEnv>, type: ComponentType, id: string, version?: number) {
  const db: Db | undefined = c.env.dbs[0];
  if (!db) throw new NotFoundError(`${type} ${id} not found`);
  const scoped = scopedUserId(c);
  const row = await db.components.getComponent(id, { userId: scoped, componentType: type });
  if (!row) throw new NotFoundError(`${type} ${id} not found`);
  const v = version ?? row.current_version;
  const config = v === null ? null : await db.components.getConfig(id, v);
  const editor = mayReadDrafts(row, scoped) && hasScope(principalOf(c), "components", "write");
  if (!config || (config.stage !== "published" && !editor))
    throw new NotFoundError(
      version === undefined ? `${type} ${id} has no published version` : `${type} ${id} v${version} not found`,
    );
  return { db, row, config };
}

/** The stored agent a run names, bound to the request's database (see storedConfigFor for which version). */
export async function storedAgentFor(
  c: Context<OSEnv>,
  registry: ComponentRegistry,
  agentId: string,
  version?: number,
): Promise<StoredAgent> {
  const { db, row, config } = await storedConfigFor(c, "agent", agentId, version);
  const agent =
    config.stage === "published"
      ? cached(registry, `${db.id}|${agentId}|${config.version}`, () => buildStoredAgent(row, config, registry))
      : buildStoredAgent(row, config, registry);
  return { agent: agent.withDb(db), version: config.version };
}

/**
 * Whether `ref` is a live stored component the caller may see with a current published version:
 * what runs when a job names the component without a version (a schedule's occurrence, a queued
 * continue), so such a job is only accepted for one.
 */
export async function publishedStoredExists(
  c: Context<OSEnv>,
  ref: { type: ComponentType; id: string },
): Promise<boolean> {
  const db: Db | undefined = c.env.dbs[0];
  if (!db) return false;
  return (
    (await currentPublishedConfig(db.components, ref.id, { componentType: ref.type, userId: scopedUserId(c) })) !== null
  );
}

/** What a stored team or workflow builds. */
type Composite = { team: Team; workflow: Workflow };

/**
 * The stored team or workflow a run names, bound to the request's database, with the version it
 * was built from. Built per request, not cached: its stored members or steps run their current
 * published configs, which a publish moves without touching this component's own version.
 */
export async function storedCompositeFor<K extends keyof Composite>(
  c: Context<OSEnv>,
  registry: ComponentRegistry,
  type: K,
  id: string,
  version?: number,
): Promise<{ component: Composite[K]; version: number }> {
  const { db, row, config } = await storedConfigFor(c, type, id, version);
  const built = (await buildStoredComponent(row, config, registry, db.components)) as Composite[K];
  return { component: built.withDb(db) as Composite[K], version: config.version };
}

/** The published stored teams or workflows this caller may see, beside the code-defined ones (`/teams`, `/workflows`, `/config`). */
export async function storedCompositesFor<K extends keyof Composite>(
  c: Context<OSEnv>,
  registry: ComponentRegistry,
  type: K,
): Promise<Composite[K][]> {
  const db: Db | undefined = c.env.dbs[0];
  if (!db) return [];
  const page = await db.components.listComponents({
    componentType: type,
    stage: "published",
    userId: scopedUserId(c),
    excludeIds: registry.codeIds(type),
    limit: 100,
  });
  const out: Composite[K][] = [];
  for (const row of page.data) {
    const config = await db.components.getConfig(row.component_id);
    if (!config) continue;
    try {
      const built = (await buildStoredComponent(row, config, registry, db.components)) as Composite[K];
      out.push(built.withDb(db) as Composite[K]);
    } catch {
      // As for agents: a component the deployment can no longer build is left out; running it names why.
    }
  }
  return out;
}

/** A stored agent bound to the request's database, and the config version it was built from (a background run pins it). */
export interface StoredAgent {
  agent: Agent;
  version: number;
}

/** The published stored agents this caller may see, beside the code-defined ones (`/agents`, `/config`). */
export async function storedAgentsFor(c: Context<OSEnv>, registry: ComponentRegistry): Promise<Agent[]> {
  const db: Db | undefined = c.env.dbs[0];
  if (!db) return [];
  const page = await db.components.listComponents({
    componentType: "agent",
    stage: "published",
    userId: scopedUserId(c),
    excludeIds: registry.codeIds("agent"),
    limit: 100,
  });
  const agents: Agent[] = [];
  for (const row of page.data) {
    const config = await db.components.getConfig(row.component_id);
    if (!config) continue;
    try {
      agents.push(
        cached(registry, `${db.id}|${row.component_id}|${config.version}`, () =>
          buildStoredAgent(row, config, registry),
        ).withDb(db),
      );
    } catch {
      // A stored config the deployment can no longer build is left out of the listing; running it names why.
    }
  }
  return agents;
}

/**
 * How the team or workflow routes find the component a request names: the code-defined one of
 * `list`, else (with a registry) the stored one. `any` gives the component and, when stored, the
 * version it was built from (its current config, or `version`; a background run pins it);
 * `withDb` is `any` for routes that read storage (503 without a database).
 */
export function compositeLookup<K extends keyof Composite>(
  type: K,
  list: readonly Composite[K][],
  registry: ComponentRegistry | undefined,
) {
  // Team and Workflow each serve themselves (Served<T>); a union of them does not type as one.
  const code = list as readonly Team[];
  const stored = (id: string) => registry !== undefined && !list.some((x) => x.id === id);
  return {
    async any(c: Context<OSEnv>, id: string, version?: number): Promise<{ component: Composite[K]; version?: number }> {
      if (!stored(id)) return { component: componentFor(c, type, code, id) as unknown as Composite[K] };
      return storedCompositeFor(c, registry!, type, id, version);
    },
    async withDb(c: Context<OSEnv>, id: string): Promise<{ component: Composite[K]; db: Db }> {
      if (!stored(id)) return storedComponent(c, type, code, id) as unknown as { component: Composite[K]; db: Db };
      const { component } = await storedCompositeFor(c, registry!, type, id);
      return { component, db: component.db! };
    },
  };
}
