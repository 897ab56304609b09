import type { Agent } from "../agent/agent.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { Model } from "../models/model.js";
import type { Team } from "../team/team.js";
import type { Tool } from "../tools/tool.js";
import type { Workflow } from "../workflow/workflow.js";

/** One entry of `GET /registry`, agno's RegistryContentResponse. */
export interface RegistryResource {
  name: string;
  type: "tool" | "model" | "knowledge" | "agent" | "team" | "workflow";
  id?: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

export interface ComponentRegistryOptions {
  /** model specs a stored config may name (`provider:model_id`), besides the served agents' and teams' models */
  models?: string[];
  /** tools a stored config may name, besides the served agents' own */
  tools?: Tool[];
  knowledge?: Knowledge[];
  agents?: Agent[];
  teams?: Team[];
  workflows?: Workflow[];
}

/**
 * What this deployment lets a stored config use (agno's Registry): models by provider string,
 * tools by name with their argument schemas, knowledge bases by name, and the code-defined
 * agents, teams and workflows a team or workflow may reference. A config naming anything else
 * is refused (validateComponentConfig).
 */
export class ComponentRegistry {
  readonly models = new Map<string, { provider: string; id: string }>();
  /** the served components' own models by spec: a stored config naming one runs on the same instance */
  readonly modelInstances = new Map<string, Model>();
  readonly tools = new Map<string, Tool>();
  readonly knowledge = new Map<string, Knowledge>();
  readonly agents: ReadonlyMap<string, Agent>;
  readonly teams: ReadonlyMap<string, Team>;
  readonly workflows: ReadonlyMap<string, Workflow>;

  constructor(opts: ComponentRegistryOptions = {}) {
    const addModel = (spec: string) => {
      const at = spec.indexOf(":");
      if (at > 0) this.models.set(spec, { provider: spec.slice(0, at), id: spec.slice(at + 1) });
    };
    for (const spec of opts.models ?? []) addModel(spec);
    for (const c of [...(opts.agents ?? []), ...(opts.teams ?? [])]) {
      const m = (c as { model?: Model }).model;
      if (m) {
        addModel(`${m.provider}:${m.id}`);
        if (!this.modelInstances.has(`${m.provider}:${m.id}`)) this.modelInstances.set(`${m.provider}:${m.id}`, m);
      }
    }
    for (const t of opts.tools ?? []) this.tools.set(t.name, t);
    for (const a of opts.agents ?? [])
      for (const t of a.configuration.tools) if (!this.tools.has(t.name)) this.tools.set(t.name, t);
    for (const k of opts.knowledge ?? []) this.knowledge.set(k.name, k);
    this.agents = new Map((opts.agents ?? []).map((a) => [a.id, a]));
    this.teams = new Map((opts.teams ?? []).map((t) => [t.id, t]));
    this.workflows = new Map((opts.workflows ?? []).map((w) => [w.id, w]));
  }

  /** Every resource, sorted by type then name as agno lists them. */
  resources(): RegistryResource[] {
    const out: RegistryResource[] = [];
    for (const t of this.tools.values()) {
      const def = t.definition();
      out.push({
        name: t.name,
        type: "tool",
        ...(t.description ? { description: t.description } : {}),
        metadata: {
          class_path: "agno_edge.tools.Tool",
          is_toolkit: false,
          has_entrypoint: t.execute !== undefined,
          parameters: def.parameters,
        },
      });
    }
    for (const [spec, m] of this.models)
      out.push({
        name: m.id,
        type: "model",
        metadata: { class_path: `agno_edge.models.${m.provider}`, provider: m.provider, model_id: m.id, spec },
      });
    for (const k of this.knowledge.values())
      out.push({ name: k.name, type: "knowledge", metadata: { class_path: "agno_edge.knowledge.Knowledge" } });
    for (const a of this.agents.values())
      out.push({
        name: a.name ?? a.id,
        type: "agent",
        id: a.id,
        metadata: { id: a.id, class_path: "agno_edge.Agent" },
      });
    for (const t of this.teams.values())
      out.push({ name: t.name ?? t.id, type: "team", id: t.id, metadata: { id: t.id, class_path: "agno_edge.Team" } });
    for (const w of this.workflows.values())
      out.push({ name: w.name, type: "workflow", id: w.id, metadata: { id: w.id, class_path: "agno_edge.Workflow" } });
    return out.sort((a, b) =>
      a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type < b.type ? -1 : 1,
    );
  }

  /** the ids of code-defined components of a type (they shadow stored rows of the same id) */
  codeIds(type: "agent" | "team" | "workflow"): string[] {
    return [...(type === "agent" ? this.agents : type === "team" ? this.teams : this.workflows).keys()];
  }
}
