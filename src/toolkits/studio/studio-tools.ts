import type { AuditStore } from "../../db/ports/audit-store.js";
import { componentAuditEntry } from "../../components/component-audit-entry.js";
import { z } from "zod";
import type { ComponentRegistry } from "../../components/component-registry.js";
import type { ComponentWriteEvent, ComponentWriteHook } from "../../components/component-write-hook.js";
import { validateComponentConfig } from "../../components/validate-config.js";
import { checkComponentId, componentIdFromName, MAX_COMPONENT_VERSION } from "../../db/component-rules.js";
import type {
  ComponentConfigRecord,
  ComponentRecord,
  ComponentStorage,
  ComponentType,
} from "../../db/ports/component-store.js";
import {
  BadRequestError,
  ComponentArchivedError,
  ComponentDependencyError,
  ComponentDraftRequiredError,
  ComponentVersionConflictError,
  NotFoundError,
  ValidationError,
  errorMessage,
} from "../../errors.js";
import { tool, Toolkit, type Tool, type ToolContext } from "../../tools/tool.js";
import { errorResult, okResult, type StudioErrorCode, type StudioResult } from "./studio-result.js";

export interface StudioToolsOptions {
  /** where components live: any Db (`db.components`); with its audit log (`db.audit`), each write is recorded there */
  db: ComponentStorage & Partial<AuditStore>;
  /**
   * What a config may use: the deployment's registry (`os.registry`, the one `GET /registry`
   * lists), or a function answering it, read at each call: the builder agent is made before the
   * AgentOS that serves it.
   */
  registry: ComponentRegistry | (() => ComponentRegistry);
  /**
   * The owner when the run has no user. A run's own user always wins; with neither, the toolkit
   * writes unscoped, as an admin does (components it creates are shared).
   */
  userId?: string;
  /** model spec (`provider:model_id`) used when a create names none; default the registry's first */
  defaultModelId?: string;
  /** cap on the components list_components returns (default 100); `db_total` shows a capped list */
  listLimit?: number;
  /** tools that pause the run for a human's confirmation (default agno's: archive_component, delete_version) */
  requiresConfirmationTools?: string[];
  /** called after each committed write, as AgentOSOptions.onComponentWrite is */
  onWrite?: ComponentWriteHook;
  /** called when a component's live version changes (publish, set current, archive, restore): invalidate caches here */
  onPublish?: (componentId: string) => void;
  include?: string[];
  exclude?: string[];
}

type Config = Record<string, unknown>;

const CONFLICT_LIKE: Array<[new (...args: never[]) => Error, StudioErrorCode]> = [
  [ComponentVersionConflictError, "version_conflict"],
  [ComponentArchivedError, "component_archived"],
  [ComponentDependencyError, "dependency_conflict"],
  [ComponentDraftRequiredError, "invalid_request"],
];

/** A thrown error as the envelope: typed catalog errors keep their code; anything else stays in the log. */
function fromError(e: unknown, fallback: string): StudioResult {
  if (e instanceof ComponentVersionConflictError)
    return errorResult("version_conflict", e.message, { current_version: e.current }, { retryable: true });
  for (const [type, code] of CONFLICT_LIKE) if (e instanceof type) return errorResult(code, (e as Error).message);
  if (e instanceof NotFoundError) return errorResult("component_not_found", e.message);
  if (e instanceof ValidationError || e instanceof BadRequestError) return errorResult("invalid_request", e.message);
  console.error(`${fallback}: ${errorMessage(e)}`);
  return errorResult("internal_error", fallback);
}

/** Several problems, one code: the specific one when every problem is of one kind (agno's model_not_found, tool_not_found). */
function problemsResult(id: string, problems: string[]): StudioResult {
  const code: StudioErrorCode = problems.every((p) => p.startsWith("model:"))
    ? "model_not_found"
    : problems.every((p) => p.startsWith("tools."))
      ? "tool_not_found"
      : "validation_failed";
  return errorResult(code, `Invalid config for ${id}: ${problems.join("; ")}`, { id, problems });
}

const text = z.string().max(10_000);
const idArg = z.string().min(1).max(255);
const versionArg = z.int().min(1).max(MAX_COMPONENT_VERSION);
const nameList = z.array(z.string().min(1).max(255)).max(128);
const stepSpec = z
  .object({
    name: z.string().max(255).optional(),
    agent_id: idArg.optional(),
    team_id: idArg.optional(),
  })
  .refine(
    (s) => (s.agent_id === undefined) !== (s.team_id === undefined),
    "a step names exactly one of agent_id, team_id",
  );

/** The text fields an edit clears with "" (agno's _CLEARABLE_TEXT, plus description). */
const CLEARABLE = ["description", "expected_output", "additional_context", "role"] as const;

/**
 * agno's StudioTools: the control plane an agent uses to build agents, teams and workflows as
 * stored, versioned data. Every tool answers with one envelope, `{ok, status, data | error,
 * warnings}`, so the model branches on `error.code` (`version_conflict`, `component_not_found`,
 * `validation_failed`, …) instead of parsing prose. Creates write version 1 as a draft unless
 * `publish`; edits append a new version (guarded by `expected_version`, the latest version read);
 * configs are checked against the deployment's registry before anything is written, and a refused
 * call writes nothing. Components are owned by the run's user: another owner's answer `not_owner`
 * (or not found when they are not visible), shared ones `shared_component`.
 *
 * @example
 * const builder = new Agent({ model, tools: [new StudioTools({ db, registry })] });
 */
export class StudioTools extends Toolkit {
  constructor(opts: StudioToolsOptions) {
    const { db } = opts;
    const reg = () => (typeof opts.registry === "function" ? opts.registry() : opts.registry);
    const store = db.components;
    const listLimit = opts.listLimit ?? 100;
    const confirm = new Set(opts.requiresConfirmationTools ?? ["archive_component", "delete_version"]);
    const actorOf = (ctx: ToolContext): string | undefined => ctx.userId ?? opts.userId ?? undefined;

    const wrote = async (actor: string | undefined, event: Omit<ComponentWriteEvent, "principal">) => {
      try {
        await db.audit?.record({ ...componentAuditEntry(event), principal: actor ?? null });
      } catch (error) {
        console.error(`audit of ${event.action} on component ${event.component_id} failed: ${errorMessage(error)}`);
      }
      if (!opts.onWrite) return;
      try {
        await opts.onWrite({ principal: actor ?? "admin", ...event });
      } catch (error) {
        console.error(`component write hook failed: ${errorMessage(error)}`);
      }
    };
    const published = (id: string) => {
      try {
        opts.onPublish?.(id);
      } catch (error) {
        console.error(`component publish hook failed: ${errorMessage(error)}`);
      }
    };

    const badId = (id: string): StudioResult | undefined => {
      try {
        checkComponentId(id);
        return undefined;
      } catch (e) {
        return errorResult("invalid_component_id", (e as Error).message, { component_id: id });
      }
    };

    /** The row the actor may see, or the envelope saying why not. */
    const readable = async (
      id: string,
      actor: string | undefined,
    ): Promise<{ row: ComponentRecord } | { err: StudioResult }> => {
      const bad = badId(id);
      if (bad) return { err: bad };
      const row = await store.getComponent(id, { userId: actor });
      if (row) return { row };
      const archived = await store.getComponent(id, { userId: actor, includeDeleted: true });
      if (archived?.deleted_at != null && mayEdit(archived, actor))
        return { err: errorResult("component_archived", `Component ${id} is archived; restore it first.`) };
      return { err: errorResult("component_not_found", `Component not found: ${id}`) };
    };
    /** agno's _check_component_access: writes stay owner-scoped even on a published component everyone reads. */
    const mayEdit = (row: ComponentRecord, actor: string | undefined) => actor === undefined || row.user_id === actor;
    const denied = (row: ComponentRecord, actor: string | undefined, verb: string): StudioResult | undefined => {
      if (mayEdit(row, actor)) return undefined;
      if (row.user_id === null)
        return errorResult(
          "shared_component",
          `Cannot ${verb} shared component '${row.component_id}': it has no owner; ask an operator.`,
        );
      return errorResult(
        "not_owner",
        `Cannot ${verb} component '${row.component_id}': it is owned by another user; ask them or an operator.`,
      );
    };
    const writable = async (id: string, actor: string | undefined, verb: string) => {
      const r = await readable(id, actor);
      if ("err" in r) return r;
      const refused = denied(r.row, actor, verb);
      return refused ? { err: refused } : r;
    };

    const check = (id: string, type: ComponentType, config: Config) =>
      validateComponentConfig(id, type, config, reg(), store);

    /** A member id as a config names it: its type from the catalog, else from the registry. */
    const memberRef = async (id: string) => {
      const stored = await store.getComponent(id);
      const type =
        stored?.component_type === "team" || (!stored && reg().teams.has(id) && !reg().agents.has(id))
          ? "team"
          : "agent";
      return type === "team" ? { type, team_id: id } : { type, agent_id: id };
    };

    const defaultModel = () => opts.defaultModelId ?? reg().models.keys().next().value;

    /** Applies an agent's, team's or workflow's flat arguments to a config: absent keeps, "" clears text, [] clears a list. */
    const apply = async (base: Config, a: Record<string, unknown>): Promise<Config> => {
      const next: Config = { ...base };
      if (typeof a.name === "string") next.name = a.name;
      if (typeof a.instructions === "string") next.instructions = a.instructions;
      if (typeof a.model_id === "string") {
        if (a.model_id === "") delete next.model;
        else next.model = a.model_id;
      }
      if (Array.isArray(a.tool_names)) next.tools = a.tool_names;
      for (const key of CLEARABLE)
        if (typeof a[key] === "string") {
          if (a[key] === "") delete next[key];
          else next[key] = a[key];
        }
      if (typeof a.markdown === "boolean") next.markdown = a.markdown;
      if (typeof a.tool_call_limit === "number") {
        if (a.tool_call_limit === 0) delete next.tool_call_limit;
        else next.tool_call_limit = a.tool_call_limit;
      }
      if (Array.isArray(a.member_ids)) next.members = await Promise.all((a.member_ids as string[]).map(memberRef));
      if (Array.isArray(a.steps)) next.steps = a.steps;
      return next;
    };

    const created = (component: ComponentRecord, config: ComponentConfigRecord, warnings: string[] = []) =>
      okResult(
        "created",
        {
          id: component.component_id,
          name: component.name,
          component_type: component.component_type,
          version: config.version,
          stage: config.stage,
          is_current: component.current_version === config.version,
        },
        warnings,
      );

    /** create_agent / create_team / create_workflow: validate, then one write of the component and version 1. */
    const create = async (type: ComponentType, a: Record<string, unknown>, ctx: ToolContext): Promise<StudioResult> => {
      const actor = actorOf(ctx);
      const name = a.name as string;
      const id = (a.component_id as string | undefined) ?? componentIdFromName(name);
      const bad = badId(id);
      if (bad) return bad;
      try {
        if (reg().codeIds(type).includes(id))
          return errorResult(
            "component_conflict",
            `Component id '${id}' is a code-defined ${type}; pass a different component_id.`,
            { existing_component_id: id, reason: "id" },
          );
        const existing = await store.getComponent(id, { includeDeleted: true });
        if (existing)
          return errorResult(
            "component_conflict",
            `Component id '${id}' is taken${existing.deleted_at !== null ? " (archived; its id stays reserved)" : ""}. Edit the existing component, or pass a different component_id.`,
            { existing_component_id: id, reason: "id" },
          );
        const base: Config = {};
        if (type !== "workflow") {
          const model = (a.model_id as string | undefined) ?? defaultModel();
          if (model === undefined) return errorResult("model_not_found", "Model not found: default");
          base.model = model;
        }
        const config = await apply(base, a);
        const { problems, links } = await check(id, type, config);
        if (problems.length) return problemsResult(id, problems);
        const stage = a.publish === true ? "published" : "draft";
        const out = await store.createComponentWithConfig({
          component_id: id,
          component_type: type,
          name,
          description: typeof a.description === "string" && a.description !== "" ? a.description : null,
          user_id: actor ?? null,
          config,
          stage,
          links: links.length ? links : null,
        });
        await wrote(actor, {
          action: "component.create",
          component_id: id,
          version: 1,
          before_version: null,
          after_version: out.component.current_version,
        });
        if (stage === "published") published(id);
        return created(out.component, out.config);
      } catch (e) {
        return fromError(e, `Failed to create ${type}`);
      }
    };

    /** edit_*: appends the next version built from the latest one (agno's edit ladder), guarded by expected_version. */
    const edit = async (
      type: ComponentType,
      id: string,
      a: Record<string, unknown>,
      ctx: ToolContext,
    ): Promise<StudioResult> => {
      const actor = actorOf(ctx);
      try {
        const r = await writable(id, actor, "edit");
        if ("err" in r) return r.err;
        if (r.row.component_type !== type)
          return errorResult(
            "invalid_request",
            `${id} is a ${r.row.component_type}, not a ${type}; use edit_${r.row.component_type}.`,
          );
        const latest = (await store.listConfigs(id, { includeConfig: true }))[0];
        const expected = a.expected_version as number | undefined;
        if (expected !== undefined && (latest?.version ?? null) !== expected)
          return errorResult(
            "version_conflict",
            `Latest version is ${latest?.version ?? "none"}, expected ${expected}; re-read with get_component and retry.`,
            { latest_version: latest?.version ?? null, current_version: r.row.current_version },
            { retryable: true },
          );
        const config = await apply(latest?.config ?? {}, a);
        const { problems, links } = await check(id, type, config);
        if (problems.length) return problemsResult(id, problems);
        const stage = a.publish === true ? "published" : "draft";
        const written = await store.createConfig(
          id,
          { config, stage, ...(type === "agent" ? {} : { links }) },
          { userId: actor, expectedLatestVersion: expected },
        );
        await wrote(actor, {
          action: "config.create",
          component_id: id,
          version: written.version,
          before_version: r.row.current_version,
          after_version: stage === "published" ? written.version : r.row.current_version,
        });
        if (stage === "published") published(id);
        return okResult("edited", {
          id,
          component_type: type,
          version: written.version,
          stage: written.stage,
          is_current: stage === "published",
        });
      } catch (e) {
        return fromError(e, `Failed to edit ${type}`);
      }
    };

    const agentFields = {
      instructions: text.optional().describe("System instructions"),
      model_id: z.string().max(255).optional().describe("Exact model spec from the registry (provider:model_id)"),
      tool_names: nameList.optional().describe("Exact tool names from the registry; include every tool asked for"),
      description: text.optional().describe("A description of the agent"),
      role: text.optional().describe("The agent's role when used as a team member"),
      markdown: z.boolean().optional().describe("Format responses as markdown"),
      expected_output: text.optional().describe("What a good answer looks like"),
      additional_context: text.optional().describe("Extra context appended to the system message"),
      tool_call_limit: z.int().min(0).max(1000).optional().describe("Maximum tool calls per run"),
    };
    const teamFields = {
      instructions: text.optional().describe("The team leader's instructions"),
      model_id: agentFields.model_id,
      member_ids: nameList.optional().describe("Ids of the member agents and teams (stored or code-defined)"),
      description: text.optional().describe("A description of the team"),
    };
    const workflowFields = {
      description: text.optional().describe("A description of the workflow"),
      steps: z.array(stepSpec).max(128).optional().describe("Steps in order, each naming an agent_id or a team_id"),
    };
    const createArgs = {
      name: z.string().min(1).max(255).describe("Display name; the id is minted from it unless component_id is given"),
      component_id: idArg.optional().describe("Explicit id; overrides the name mint"),
      publish: z
        .boolean()
        .default(false)
        .describe("True publishes version 1 at once; false leaves a draft that publish_component promotes"),
    };
    const editArgs = {
      name: z.string().min(1).max(255).optional().describe("New display name; the id never changes"),
      expected_version: versionArg
        .optional()
        .describe("Compare-and-set guard: the latest version you read; a stale one is version_conflict"),
      publish: z.boolean().default(false).describe("True publishes this edit at once; otherwise it is a draft"),
    };
    const guardArg = versionArg
      .optional()
      .describe("Compare-and-set guard on the live version being replaced; omit to skip the check");

    const tools: Tool[] = [
      // Discovery, as agno's: what a create or edit may name, by exact name.
      tool({
        name: "list_models",
        description:
          "List the models available for building components: data.models rows are {id, provider}. Use an exact id in model_id.",
        parameters: z.object({}),
        execute: () => {
          const models = [...reg().models.values()].map((m) => ({ id: m.id, provider: m.provider }));
          return okResult("listed", { models, count: models.length });
        },
      }),
      tool({
        name: "list_tools",
        description:
          "List the tools available for building components: data.tools rows are {name, kind, buildable, source, functions: [{name, description, has_side_effects}]}. Use exact names in tool_names.",
        parameters: z.object({}),
        execute: () => {
          const rows = [...reg().tools.values()].map((t) => ({
            name: t.name,
            kind: "function",
            buildable: true,
            source: "declared",
            functions: [{ name: t.name, description: t.description ?? null, has_side_effects: null }],
          }));
          return okResult("listed", { tools: rows, count: rows.length });
        },
      }),
      tool({
        name: "list_knowledge",
        description: "List the knowledge bases a component may use: data.knowledge is a list of exact names.",
        parameters: z.object({}),
        execute: () => {
          const names = [...reg().knowledge.keys()].sort();
          return okResult("listed", { knowledge: names, count: names.length });
        },
      }),
      tool({
        name: "list_components",
        description:
          "List components: code-defined and stored. Rows are {id, name, component_type, source, description, current_version}.",
        parameters: z.object({ component_type: z.enum(["agent", "team", "workflow"]).optional() }),
        execute: async ({ component_type }, ctx) => {
          try {
            const rows: Record<string, unknown>[] = [];
            for (const type of ["agent", "team", "workflow"] as const) {
              if (component_type && component_type !== type) continue;
              const code = type === "agent" ? reg().agents : type === "team" ? reg().teams : reg().workflows;
              for (const [id, c] of code)
                rows.push({
                  id,
                  name: (c as { name?: string }).name ?? id,
                  component_type: type,
                  source: "code",
                  description: (c as { description?: string }).description ?? null,
                });
            }
            const codeIds = new Set(rows.map((r) => r.id));
            const page = await store.listComponents({
              componentType: component_type,
              userId: actorOf(ctx),
              excludeIds: [...codeIds] as string[],
              limit: listLimit,
            });
            for (const r of page.data)
              rows.push({
                id: r.component_id,
                name: r.name,
                component_type: r.component_type,
                source: "db",
                description: r.description,
                current_version: r.current_version,
              });
            return okResult("listed", { components: rows, count: rows.length, db_total: page.total_count });
          } catch (e) {
            return fromError(e, "Failed to list components");
          }
        },
      }),
      tool({
        name: "get_component",
        description:
          "Read one stored component: the latest version by default (drafts included for its owner), with its config. Call before every edit.",
        parameters: z.object({
          component_id: idArg.describe("Exact component id"),
          version: versionArg.optional().describe("Exact stored version; omit for the latest"),
        }),
        execute: async ({ component_id, version }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const r = await readable(component_id, actor);
            if ("err" in r) return r.err;
            const drafts = mayEdit(r.row, actor) || r.row.user_id === null;
            const all = (await store.listConfigs(component_id, { includeConfig: true })).filter(
              (c) => drafts || c.stage === "published",
            );
            const config =
              version !== undefined
                ? all.find((c) => c.version === version)
                : drafts
                  ? all[0]
                  : all.find((c) => c.version === r.row.current_version);
            if (!config)
              return version !== undefined
                ? errorResult("version_not_found", `Version not found: ${component_id} v${version}`)
                : errorResult("component_not_found", `Component has no readable config: ${component_id}`);
            return okResult("read", {
              id: component_id,
              name: r.row.name,
              component_type: r.row.component_type,
              source: "db",
              version: config.version,
              stage: config.stage,
              is_current: config.version === r.row.current_version,
              current_version: r.row.current_version,
              latest_version: all[0]?.version ?? null,
              config: config.config,
            });
          } catch (e) {
            return fromError(e, "Failed to read component");
          }
        },
      }),
      tool({
        name: "list_versions",
        description: "A component's versions, newest first: {version, stage, label, created_at, is_current}.",
        parameters: z.object({ component_id: idArg }),
        execute: async ({ component_id }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const r = await readable(component_id, actor);
            if ("err" in r) return r.err;
            const drafts = mayEdit(r.row, actor) || r.row.user_id === null;
            const versions = (await store.listConfigs(component_id, { includeConfig: false }))
              .filter((c) => drafts || c.stage === "published")
              .map((c) => ({
                version: c.version,
                stage: c.stage,
                label: c.label,
                created_at: c.created_at,
                is_current: c.version === r.row.current_version,
              }));
            return okResult("listed", { component_id, versions, count: versions.length });
          } catch (e) {
            return fromError(e, "Failed to list versions");
          }
        },
      }),
      tool({
        name: "create_agent",
        description: "Create an agent as version 1: a draft only you can see unless publish is true.",
        parameters: z.object({ ...createArgs, ...agentFields, instructions: text.describe("System instructions") }),
        execute: (args, ctx) => create("agent", args, ctx),
      }),
      tool({
        name: "create_team",
        description: "Create a team of member agents/teams as version 1 (a draft unless publish is true).",
        parameters: z.object({ ...createArgs, ...teamFields, member_ids: nameList.min(1) }),
        execute: (args, ctx) => create("team", args, ctx),
      }),
      tool({
        name: "create_workflow",
        description: "Create a workflow of steps as version 1 (a draft unless publish is true).",
        parameters: z.object({ ...createArgs, ...workflowFields, steps: z.array(stepSpec).min(1).max(128) }),
        execute: (args, ctx) => create("workflow", args, ctx),
      }),
      tool({
        name: "edit_agent",
        description:
          'Edit a stored agent: appends a new version from the latest one. Pass only what changes; "" clears a text field, [] clears the tools.',
        parameters: z.object({ agent_id: idArg, ...editArgs, ...agentFields }),
        execute: ({ agent_id, ...args }, ctx) => edit("agent", agent_id, args, ctx),
      }),
      tool({
        name: "edit_team",
        description: "Edit a stored team: appends a new version. member_ids replaces the members.",
        parameters: z.object({ team_id: idArg, ...editArgs, ...teamFields }),
        execute: ({ team_id, ...args }, ctx) => edit("team", team_id, args, ctx),
      }),
      tool({
        name: "edit_workflow",
        description: "Edit a stored workflow: appends a new version. steps replaces the steps.",
        parameters: z.object({ workflow_id: idArg, ...editArgs, ...workflowFields }),
        execute: ({ workflow_id, ...args }, ctx) => edit("workflow", workflow_id, args, ctx),
      }),
      tool({
        name: "validate_component",
        description:
          "Dry-run a stored version's config against the live registry, as a run would: the cheap check before publish.",
        parameters: z.object({ component_id: idArg, version: versionArg.optional() }),
        execute: async ({ component_id, version }, ctx) => {
          try {
            const r = await readable(component_id, actorOf(ctx));
            if ("err" in r) return r.err;
            const configs = await store.listConfigs(component_id, { includeConfig: true });
            const config = version === undefined ? configs[0] : configs.find((c) => c.version === version);
            if (!config) return errorResult("version_not_found", `Version not found: ${component_id} v${version}`);
            const { problems } = await check(component_id, r.row.component_type, config.config);
            if (problems.length) return problemsResult(component_id, problems);
            return okResult("valid", { id: component_id, version: config.version, stage: config.stage });
          } catch (e) {
            return fromError(e, "Failed to validate component");
          }
        },
      }),
      tool({
        name: "publish_component",
        description:
          "Promote a draft to published and make it the live version (re-checked against the registry first).",
        parameters: z.object({
          component_id: idArg,
          version: versionArg.optional().describe("The draft to publish; omit for the latest draft"),
          expected_current_version: guardArg,
        }),
        execute: async ({ component_id, version, expected_current_version }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const r = await writable(component_id, actor, "publish");
            if ("err" in r) return r.err;
            const configs = await store.listConfigs(component_id, { includeConfig: true });
            const live = r.row.current_version;
            let target: ComponentConfigRecord | undefined;
            if (version === undefined) {
              const drafts = configs.filter((c) => c.stage === "draft");
              if (!drafts.length) return errorResult("invalid_request", "No draft version to publish.");
              target = drafts[0]!;
              if (live !== null && target.version < live)
                return errorResult(
                  "invalid_request",
                  `The newest draft of '${component_id}' is v${target.version}, behind the live v${live}; publishing it would move the live version backwards. Edit again, or use set_current_version to roll back deliberately.`,
                  { draft_version: target.version, current_version: live },
                );
            } else {
              target = configs.find((c) => c.version === version);
              if (!target) return errorResult("version_not_found", `Version not found: ${component_id} v${version}`);
            }
            // The guard is answered before the already-published no-op: a caller holding a stale live
            // version hears version_conflict, not success.
            if (expected_current_version !== undefined && live !== expected_current_version)
              return errorResult(
                "version_conflict",
                `Current version is ${live ?? "none"}, expected ${expected_current_version}.`,
                { current_version: live },
                { retryable: true },
              );
            if (target.stage === "published")
              return okResult("already_published", { id: component_id, version: target.version });
            const { problems, links } = await check(component_id, r.row.component_type, target.config);
            if (problems.length) return problemsResult(component_id, problems);
            await store.updateConfig(
              component_id,
              target.version,
              { stage: "published", ...(r.row.component_type === "agent" ? {} : { links }) },
              { userId: actor, expectedCurrentVersion: expected_current_version },
            );
            await wrote(actor, {
              action: "config.update",
              component_id,
              version: target.version,
              before_version: live,
              after_version: target.version,
            });
            published(component_id);
            return okResult("published", { id: component_id, version: target.version });
          } catch (e) {
            return fromError(e, "Failed to publish component");
          }
        },
      }),
      tool({
        name: "set_current_version",
        description: "Re-point the live version to a previously published one (rollback or roll-forward).",
        parameters: z.object({ component_id: idArg, version: versionArg, expected_current_version: guardArg }),
        execute: async ({ component_id, version, expected_current_version }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const r = await writable(component_id, actor, "re-point");
            if ("err" in r) return r.err;
            const moved = await store.setCurrentVersion(component_id, version, {
              userId: actor,
              expectedCurrentVersion: expected_current_version,
            });
            if (!moved) return errorResult("version_not_found", `Version not found: ${component_id} v${version}`);
            await wrote(actor, {
              action: "config.set_current",
              component_id,
              version,
              before_version: r.row.current_version,
              after_version: version,
            });
            published(component_id);
            return okResult("set_current", { id: component_id, version });
          } catch (e) {
            return fromError(e, "Failed to set current version");
          }
        },
      }),
      tool({
        name: "delete_version",
        description: "Delete a draft version. Published versions are immutable; version numbers are never reused.",
        parameters: z.object({ component_id: idArg, version: versionArg }),
        requiresConfirmation: confirm.has("delete_version"),
        execute: async ({ component_id, version }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const r = await writable(component_id, actor, "delete a version of");
            if ("err" in r) return r.err;
            if (!(await store.deleteConfig(component_id, version, { userId: actor })))
              return errorResult("version_not_found", `Version not found: ${component_id} v${version}`);
            await wrote(actor, {
              action: "config.delete",
              component_id,
              version,
              before_version: r.row.current_version,
              after_version: r.row.current_version,
            });
            return okResult("deleted", { id: component_id, version });
          } catch (e) {
            return fromError(e, "Failed to delete version");
          }
        },
      }),
      tool({
        name: "archive_component",
        description:
          "Archive a component: it stops resolving and running, its id stays reserved, every version survives, and the schedules aimed at it are disabled. restore_component reverses it. Refused while other components link to it.",
        parameters: z.object({ component_id: idArg, expected_current_version: guardArg }),
        requiresConfirmation: confirm.has("archive_component"),
        execute: async ({ component_id, expected_current_version }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const bad = badId(component_id);
            if (bad) return bad;
            const row = await store.getComponent(component_id, { userId: actor, includeDeleted: true });
            if (!row) return errorResult("component_not_found", `Component not found: ${component_id}`);
            const refused = denied(row, actor, "archive");
            if (refused) return refused;
            if (row.deleted_at !== null) return okResult("already_archived", { id: component_id });
            const { archived, schedulesDisabled } = await store.deleteComponent(component_id, {
              userId: actor,
              expectedCurrentVersion: expected_current_version,
            });
            if (!archived) return errorResult("component_not_found", `Component not found: ${component_id}`);
            await wrote(actor, {
              action: "component.delete",
              component_id,
              before_version: row.current_version,
              after_version: row.current_version,
            });
            published(component_id);
            const warnings = schedulesDisabled
              ? [
                  `Disabled ${schedulesDisabled} schedule(s) that targeted ${row.component_type} '${component_id}'. They cannot be re-enabled while the target is archived.`,
                ]
              : [];
            return okResult("archived", { id: component_id }, warnings);
          } catch (e) {
            return fromError(e, "Failed to archive component");
          }
        },
      }),
      tool({
        name: "restore_component",
        description: "Restore an archived component at the version that was live when it was archived.",
        parameters: z.object({ component_id: idArg }),
        execute: async ({ component_id }, ctx) => {
          const actor = actorOf(ctx);
          try {
            const bad = badId(component_id);
            if (bad) return bad;
            const row = await store.getComponent(component_id, { userId: actor, includeDeleted: true });
            if (!row) return errorResult("component_not_found", `Component not found: ${component_id}`);
            const refused = denied(row, actor, "restore");
            if (refused) return refused;
            if (row.deleted_at === null)
              return errorResult("invalid_request", `Component is not archived: ${component_id}`);
            if (!(await store.restoreComponent(component_id, { userId: actor })))
              return errorResult("component_not_found", `Component not found: ${component_id}`);
            await wrote(actor, {
              action: "component.restore",
              component_id,
              before_version: row.current_version,
              after_version: row.current_version,
            });
            published(component_id);
            return okResult("restored", { id: component_id });
          } catch (e) {
            return fromError(e, "Failed to restore component");
          }
        },
      }),
    ];

    super({ id: "studio", name: "studio", tools, include: opts.include, exclude: opts.exclude });
  }
}
