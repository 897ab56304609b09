import type { Agent } from "../agent/agent.js";
import type { ComponentConfigRecord, ComponentRecord, ComponentStore } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import type { Team } from "../team/team.js";
import { buildStoredAgent } from "./build-agent.js";
import { buildStoredTeam } from "./build-team.js";
import type { ComponentRegistry } from "./component-registry.js";
import { membersOf } from "./validate-config.js";

/**
 * The runnable component a stored config builds: an agent, or a team whose members resolve as
 * agno resolves them (a code-defined agent or team of that id, else the stored one's published
 * config, built the same way). A member without a published version, a member cycle stored
 * before validation could see it, or a workflow (not runnable from data yet) is a 422.
 */
export async function buildStoredComponent(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  registry: ComponentRegistry,
  store: ComponentStore,
  within: ReadonlySet<string> = new Set(),
): Promise<Agent | Team> {
  const id = component.component_id;
  if (component.component_type === "agent") return buildStoredAgent(component, config, registry);
  if (component.component_type !== "team")
    throw new ValidationError(`${component.component_type} ${id}: stored workflows cannot run yet`, "component_type");
  const { refs, problems } = membersOf(config.config);
  if (problems.length) throw new ValidationError(`team ${id} v${config.version}: ${problems.join("; ")}`, "members");
  const path = new Set([...within, id]);
  const members: (Agent | Team)[] = [];
  for (const ref of refs) {
    const code = ref.type === "agent" ? registry.agents.get(ref.id) : registry.teams.get(ref.id);
    if (code) {
      members.push(code);
      continue;
    }
    if (path.has(ref.id))
      throw new ValidationError(`team ${id}: member cycle ${[...path, ref.id].join(" -> ")}`, "members");
    const row = await store.getComponent(ref.id, { componentType: ref.type });
    const current = row?.current_version == null ? null : await store.getConfig(ref.id, row.current_version);
    if (!row || !current || current.stage !== "published")
      throw new ValidationError(`team ${id}: member ${ref.type} ${ref.id} has no published version`, "members");
    members.push(await buildStoredComponent(row, current, registry, store, path));
  }
  return buildStoredTeam(component, config, registry, members);
}
