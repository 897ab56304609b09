import type { Agent } from "../agent/agent.js";
import { currentPublishedConfig } from "./current-published-config.js";
import type { ComponentConfigRecord, ComponentRecord, ComponentStore } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import type { Team } from "../team/team.js";
import { buildStoredAgent } from "./build-agent.js";
import { buildStoredTeam } from "./build-team.js";
import type { ComponentRegistry } from "./component-registry.js";
import { buildStoredWorkflow } from "./build-workflow.js";
import { membersOf, stepsOf, type MemberRef, type StepRef } from "./validate-config.js";
import type { Workflow } from "../workflow/workflow.js";

/**
 * The runnable component a stored config builds: an agent; a team whose members resolve as agno
 * resolves them (a code-defined agent or team of that id, else the stored one's published config,
 * built the same way); or a workflow whose steps' agents and teams resolve alike. A member
 * without a published version, or a member cycle stored before validation could see it, is a 422.
 */
export async function buildStoredComponent(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  registry: ComponentRegistry,
  store: ComponentStore,
  within: ReadonlySet<string> = new Set(),
): Promise<Agent | Team | Workflow> {
  const id = component.component_id;
  const type = component.component_type;
  if (type === "agent") return buildStoredAgent(component, config, registry);
  const path = new Set([...within, id]);
  if (type === "workflow") {
    const { steps, problems } = stepsOf(config.config);
    if (problems.length)
      throw new ValidationError(`workflow ${id} v${config.version}: ${problems.join("; ")}`, "steps");
    const resolved: Array<{ step: StepRef; executor: Agent | Team }> = [];
    for (const step of steps)
      resolved.push({ step, executor: await member(`workflow ${id}`, "step", step.ref, registry, store, path) });
    return buildStoredWorkflow(component, config, resolved);
  }
  const { refs, problems } = membersOf(config.config);
  if (problems.length) throw new ValidationError(`team ${id} v${config.version}: ${problems.join("; ")}`, "members");
  const members: (Agent | Team)[] = [];
  for (const ref of refs) members.push(await member(`team ${id}`, "member", ref, registry, store, path));
  return buildStoredTeam(component, config, registry, members);
}

/** A team's member or a workflow step's agent or team: the code-defined one of that id, else the stored one's published config. */
async function member(
  owner: string,
  kind: "member" | "step",
  ref: MemberRef,
  registry: ComponentRegistry,
  store: ComponentStore,
  path: ReadonlySet<string>,
): Promise<Agent | Team> {
  const code = ref.type === "agent" ? registry.agents.get(ref.id) : registry.teams.get(ref.id);
  if (code) return code;
  const field = `${kind}s`;
  if (path.has(ref.id)) throw new ValidationError(`${owner}: member cycle ${[...path, ref.id].join(" -> ")}`, field);
  const found = await currentPublishedConfig(store, ref.id, { componentType: ref.type });
  if (!found) throw new ValidationError(`${owner}: ${kind} ${ref.type} ${ref.id} has no published version`, field);
  return (await buildStoredComponent(found.row, found.config, registry, store, path)) as Agent | Team;
}
