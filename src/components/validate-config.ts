import type { ComponentStore, ComponentType } from "../db/ports/component-store.js";
import type { ComponentLinkInput } from "../db/ports/component-store.js";
import type { ComponentRegistry } from "./component-registry.js";

/** The model spec a config names: `"provider:id"`, or agno's `{provider, id}`. */
export function modelSpecOf(model: unknown): string | undefined {
  if (typeof model === "string") return model;
  if (model && typeof model === "object") {
    const m = model as { provider?: unknown; id?: unknown };
    if (typeof m.provider === "string" && typeof m.id === "string") return `${m.provider}:${m.id}`;
  }
  return undefined;
}

/** A tool entry's name: a string, or agno's `{name}` dict. */
export function toolNameOf(tool: unknown): string | undefined {
  if (typeof tool === "string") return tool;
  if (tool && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string")
    return (tool as { name: string }).name;
  return undefined;
}

/** A team member a stored config names. */
export interface MemberRef {
  type: "agent" | "team";
  id: string;
}

/** The members a team config names, and what is wrong with its list. */
export function membersOf(config: Record<string, unknown>): { refs: MemberRef[]; problems: string[] } {
  const refs: MemberRef[] = [];
  const problems: string[] = [];
  const members = config.members;
  if (members === undefined || members === null) return { refs, problems };
  if (!Array.isArray(members)) return { refs, problems: ["members: must be a list"] };
  members.forEach((m, i) => {
    const r = m as { type?: unknown; agent_id?: unknown; team_id?: unknown };
    if (r?.type === "agent" && typeof r.agent_id === "string") refs.push({ type: "agent", id: r.agent_id });
    else if (r?.type === "team" && typeof r.team_id === "string") refs.push({ type: "team", id: r.team_id });
    else problems.push(`members.${i}: must be {"type": "agent", "agent_id": …} or {"type": "team", "team_id": …}`);
  });
  return { refs, problems };
}

/** A workflow step a stored config names (agno's Step.to_dict keys), with the member it runs. */
export interface StepRef {
  /** its index in the config's list */
  position: number;
  ref: MemberRef;
  name?: string;
  stepId?: string;
  description?: string;
  maxRetries?: number;
  skipOnFailure?: boolean;
}

/** The steps a workflow config names, and what is wrong with its list (each problem by position). */
export function stepsOf(config: Record<string, unknown>): { steps: StepRef[]; problems: string[] } {
  const steps: StepRef[] = [];
  const problems: string[] = [];
  const list = config.steps;
  if (list === undefined || list === null) return { steps, problems };
  if (!Array.isArray(list)) return { steps, problems: ["steps: must be a list"] };
  list.forEach((entry, i) => {
    const s = (entry ?? {}) as Record<string, unknown>;
    const ref: MemberRef | undefined =
      typeof s.agent_id === "string" && s.agent_id
        ? { type: "agent", id: s.agent_id }
        : typeof s.team_id === "string" && s.team_id
          ? { type: "team", id: s.team_id }
          : undefined;
    const bad: string[] = [];
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) bad.push(`steps.${i}: must be an object`);
    else if (!ref) bad.push(`steps.${i}: must name an agent_id or a team_id`);
    if (s.type !== undefined && s.type !== null && s.type !== "Step")
      bad.push(`steps.${i}.type: only "Step" runs from a stored config`);
    for (const key of ["name", "step_id", "description"] as const)
      if (s[key] !== undefined && s[key] !== null && typeof s[key] !== "string")
        bad.push(`steps.${i}.${key}: must be a string`);
    const retries = s.max_retries;
    if (
      retries !== undefined &&
      retries !== null &&
      !(Number.isInteger(retries) && (retries as number) >= 0 && (retries as number) <= 10)
    )
      bad.push(`steps.${i}.max_retries: must be a whole number from 0 to 10`);
    if (s.skip_on_failure !== undefined && s.skip_on_failure !== null && typeof s.skip_on_failure !== "boolean")
      bad.push(`steps.${i}.skip_on_failure: must be true or false`);
    problems.push(...bad);
    if (bad.length || !ref) return;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    steps.push({
      position: i,
      ref,
      name: str(s.name),
      stepId: str(s.step_id),
      description: str(s.description),
      maxRetries: typeof retries === "number" ? retries : undefined,
      skipOnFailure: typeof s.skip_on_failure === "boolean" ? s.skip_on_failure : undefined,
    });
  });
  return { steps, problems };
}

/** What a validated config records: its problems (empty when valid) and the links it pins. */
export interface ConfigCheck {
  problems: string[];
  links: ComponentLinkInput[];
}

/**
 * Checks a stored config against what the deployment allows, naming every problem (not just the
 * first): a model not in the registry, an unknown tool or knowledge base, a team member or
 * workflow step that is neither stored nor code-defined, and a cycle of team members. Members and
 * steps that are stored components become links pinning their current version (agno's
 * _resolve_member_links); code-defined ones resolve from the registry and get none.
 */
export async function validateComponentConfig(
  componentId: string,
  type: ComponentType,
  config: Record<string, unknown>,
  registry: ComponentRegistry,
  store: ComponentStore,
): Promise<ConfigCheck> {
  const problems: string[] = [];
  const links: ComponentLinkInput[] = [];
  if (config.model !== undefined && config.model !== null) {
    const spec = modelSpecOf(config.model);
    if (spec === undefined) problems.push('model: must be "provider:model_id" or {"provider", "id"}');
    else if (!registry.models.has(spec)) problems.push(`model: ${spec} is not allowed by this deployment`);
  }
  if (config.tools !== undefined && config.tools !== null) {
    if (!Array.isArray(config.tools)) problems.push("tools: must be a list");
    else
      config.tools.forEach((t, i) => {
        const name = toolNameOf(t);
        if (name === undefined) problems.push(`tools.${i}: must be a tool name or {"name": …}`);
        else if (!registry.tools.has(name)) problems.push(`tools.${i}: unknown tool ${name}`);
      });
  }
  if (config.knowledge !== undefined && config.knowledge !== null) {
    const name =
      typeof config.knowledge === "string" ? config.knowledge : (config.knowledge as { name?: unknown }).name;
    if (typeof name !== "string") problems.push('knowledge: must be a knowledge base name or {"name": …}');
    else if (!registry.knowledge.has(name)) problems.push(`knowledge: unknown knowledge base ${name}`);
  }
  if (type === "team") {
    const { refs, problems: shape } = membersOf(config);
    problems.push(...shape);
    for (const [position, ref] of refs.entries()) {
      if (ref.id === componentId) {
        problems.push(`members.${position}: a team cannot be its own member (cycle ${componentId} -> ${componentId})`);
        continue;
      }
      const stored = await store.getComponent(ref.id, { componentType: ref.type });
      const code = ref.type === "agent" ? registry.agents.has(ref.id) : registry.teams.has(ref.id);
      if (!stored && !code) {
        problems.push(`members.${position}: ${ref.type} ${ref.id} not found`);
        continue;
      }
      if (stored) {
        const cycle = ref.type === "team" ? await memberPath(ref.id, componentId, store, new Set()) : undefined;
        if (cycle) problems.push(`members.${position}: cycle ${[componentId, ...cycle].join(" -> ")}`);
        if (stored.current_version !== null)
          links.push({
            link_kind: "member",
            link_key: `member_${position}`,
            child_component_id: ref.id,
            child_version: stored.current_version,
            position,
            meta: { type: ref.type },
          });
      }
    }
  }
  if (type === "workflow") {
    const { steps, problems: shape } = stepsOf(config);
    problems.push(...shape);
    for (const { position, ref } of steps) {
      const stored = await store.getComponent(ref.id, { componentType: ref.type });
      const code = ref.type === "agent" ? registry.agents.has(ref.id) : registry.teams.has(ref.id);
      if (!stored && !code) problems.push(`steps.${position}: ${ref.type} ${ref.id} not found`);
      else if (stored?.current_version != null)
        links.push({
          link_kind: "step",
          link_key: `step_${position}`,
          child_component_id: ref.id,
          child_version: stored.current_version,
          position,
          meta: { type: ref.type },
        });
    }
  }
  return { problems, links };
}

/** The member path from stored team `from` to `target` through current configs, if there is one. */
async function memberPath(
  from: string,
  target: string,
  store: ComponentStore,
  seen: Set<string>,
): Promise<string[] | undefined> {
  if (from === target) return [from];
  if (seen.has(from)) return undefined;
  seen.add(from);
  const config = await store.getConfig(from);
  if (!config) return undefined;
  for (const ref of membersOf(config.config).refs) {
    if (ref.type !== "team" && ref.id !== target) continue;
    const rest = await memberPath(ref.id, target, store, seen);
    if (rest) return [from, ...rest];
  }
  return undefined;
}
