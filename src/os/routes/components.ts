import { recordAudit } from "../audit.js";
import { componentAuditEntry } from "../../components/component-audit-entry.js";
import type { Context } from "hono";
import { z } from "zod";
import type { ComponentRegistry } from "../../components/component-registry.js";
import type { ComponentWriteEvent, ComponentWriteHook } from "../../components/component-write-hook.js";
import { validateComponentConfig } from "../../components/validate-config.js";
import { checkComponentId, componentIdFromName, MAX_COMPONENT_VERSION } from "../../db/component-rules.js";
import type { ComponentLinkInput, ComponentRecord, ComponentType, Db } from "../../db/port.js";
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  errorMessage,
} from "../../errors.js";
import { principalOf, scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonObject, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  componentConfigResponseSchema,
  componentConfigView,
  componentResponseSchema,
  componentView,
  paginatedComponentsSchema,
} from "../wire/components.js";
import { dbFor } from "./sessions.js";

const tags: ["Components"] = ["Components"];
const read = { resource: "components", action: "read" };
const write = { resource: "components", action: "write" };
const remove = { resource: "components", action: "delete" };
const componentTypeSchema = z.enum(["agent", "team", "workflow"]);
const stageSchema = z.enum(["draft", "published"]);
const versionSchema = z.coerce.number().int().min(1).max(MAX_COMPONENT_VERSION);
const guardSchema = z
  .object({
    latest_version: z.int().min(1).max(MAX_COMPONENT_VERSION).nullable().optional(),
    current_version: z.int().min(1).max(MAX_COMPONENT_VERSION).nullable().optional(),
  })
  .describe("agno's ComponentGuard: the versions the caller read; a stale one is a 409 version_conflict");
const linkSchema = z.object({
  link_kind: idSchema,
  link_key: idSchema,
  child_component_id: idSchema,
  child_version: z.int().min(1).max(MAX_COMPONENT_VERSION),
  position: z.int().min(0).max(MAX_COMPONENT_VERSION).default(0),
  meta: jsonObject.nullable().optional(),
});
const text = z.string().max(10_000);
const componentPath = z.object({ component_id: idSchema });
const versionPath = z.object({ component_id: idSchema, version: versionSchema });

const errors = {
  400: jsonAnswer(
    errorSchema,
    "An invalid id, stage or version move (a draft made current, a published config edited)",
  ),
  404: jsonAnswer(errorSchema, "No such component or version (or one the caller may not see)"),
  409: jsonAnswer(
    errorSchema,
    "version_conflict: the guard named a stale version (detail carries the stored one); component_archived; dependency_conflict",
  ),
};
const body = <T extends z.ZodType>(schema: T, required = true) => ({
  required,
  content: { "application/json": { schema } },
});

const listComponents = defineRoute({
  method: "get",
  path: "/components",
  tags,
  summary: "List Components",
  description:
    "A page of stored components, filtered by type, stage (published: has a current version; draft: has none) and archived. Code-defined components shadow stored rows of their id.",
  scope: read,
  request: {
    query: z.object({
      component_type: componentTypeSchema.optional(),
      stage: stageSchema.optional(),
      page: z.coerce.number().int().min(1).default(1),
      limit: z.coerce.number().int().min(1).max(100).default(20),
      include_deleted: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true"),
    }),
  },
  responses: { 200: jsonAnswer(paginatedComponentsSchema, "A page of components") },
});

const createComponent = defineRoute({
  method: "post",
  path: "/components",
  tags,
  summary: "Create Component",
  description:
    "A component (agent, team or workflow) with its first config version. The config is checked against the deployment's registry (GET /registry): every problem is named in one 422.",
  scope: write,
  request: {
    body: body(
      z.object({
        name: text.min(1).max(255),
        component_id: idSchema.nullable().optional(),
        component_type: componentTypeSchema,
        description: text.nullable().optional(),
        metadata: jsonObject.nullable().optional(),
        config: jsonObject.nullable().optional(),
        label: idSchema.nullable().optional(),
        stage: stageSchema.default("draft"),
        notes: text.nullable().optional(),
        set_current: z.boolean().default(true),
      }),
    ),
  },
  responses: { 201: jsonAnswer(componentResponseSchema, "The component"), ...errors },
});

const getComponent = defineRoute({
  method: "get",
  path: "/components/{component_id}",
  tags,
  summary: "Get Component",
  scope: read,
  request: {
    params: componentPath,
    query: z.object({
      include_deleted: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true"),
    }),
  },
  responses: { 200: jsonAnswer(componentResponseSchema, "The component"), 404: errors[404] },
});

const updateComponent = defineRoute({
  method: "patch",
  path: "/components/{component_id}",
  tags,
  summary: "Update Component",
  description: "Name, description, metadata, or current_version (a published version). Owner only.",
  scope: write,
  request: {
    params: componentPath,
    body: body(
      z.object({
        name: text.min(1).max(255).nullable().optional(),
        description: text.nullable().optional(),
        component_type: componentTypeSchema.nullable().optional(),
        metadata: jsonObject.nullable().optional(),
        current_version: z.int().min(1).max(MAX_COMPONENT_VERSION).nullable().optional(),
        guard: guardSchema.nullable().optional(),
      }),
    ),
  },
  responses: { 200: jsonAnswer(componentResponseSchema, "The component"), ...errors },
});

const deleteComponent = defineRoute({
  method: "delete",
  path: "/components/{component_id}",
  tags,
  summary: "Delete Component",
  description:
    "Archives (tombstones) the component: its id stays reserved, the schedules aimed at it are disabled in the same transaction, and a component another live one links to is refused (409).",
  scope: remove,
  request: {
    params: componentPath,
    query: z.object({ expected_current_version: versionSchema.optional() }),
    body: body(z.object({ guard: guardSchema.nullable().optional() }), false),
  },
  responses: { 204: { description: "Archived" }, ...errors },
});

const restoreComponent = defineRoute({
  method: "post",
  path: "/components/{component_id}/restore",
  tags,
  summary: "Restore Component",
  scope: remove,
  request: { params: componentPath },
  responses: { 200: jsonAnswer(componentResponseSchema, "The restored component"), ...errors },
});

const listConfigs = defineRoute({
  method: "get",
  path: "/components/{component_id}/configs",
  tags,
  summary: "List Configs",
  description: "The component's versions, newest first; drafts only for those who may edit it.",
  scope: read,
  request: {
    params: componentPath,
    query: z.object({
      include_config: z
        .enum(["true", "false"])
        .default("true")
        .transform((v) => v === "true"),
    }),
  },
  responses: { 200: jsonAnswer(z.array(componentConfigResponseSchema), "The versions"), 404: errors[404] },
});

const configBody = {
  config: jsonObject,
  label: idSchema.nullable().optional(),
  notes: text.nullable().optional(),
  links: z.array(linkSchema).max(500).nullable().optional(),
  guard: guardSchema.nullable().optional(),
};

const createConfig = defineRoute({
  method: "post",
  path: "/components/{component_id}/configs",
  tags,
  summary: "Create Config Version",
  description:
    "Appends the next version (numbers are never reused). `guard.latest_version` names the latest version the caller read.",
  scope: write,
  request: {
    params: componentPath,
    body: body(
      z.object({
        ...configBody,
        version: z.int().nullable().optional(),
        stage: stageSchema.default("draft"),
        set_current: z.boolean().default(true),
      }),
    ),
  },
  responses: { 201: jsonAnswer(componentConfigResponseSchema, "The new version"), ...errors },
});

const updateConfig = defineRoute({
  method: "patch",
  path: "/components/{component_id}/configs/{version}",
  tags,
  summary: "Update Draft Config",
  description:
    "Edits a draft; `stage: published` publishes it and makes it current. Published versions are immutable (400).",
  scope: write,
  request: {
    params: versionPath,
    body: body(
      z.object({ ...configBody, config: jsonObject.nullable().optional(), stage: stageSchema.nullable().optional() }),
    ),
  },
  responses: { 200: jsonAnswer(componentConfigResponseSchema, "The version"), ...errors },
});

const getCurrentConfig = defineRoute({
  method: "get",
  path: "/components/{component_id}/configs/current",
  tags,
  summary: "Get Current Config",
  scope: read,
  request: { params: componentPath },
  responses: { 200: jsonAnswer(componentConfigResponseSchema, "The current version"), 404: errors[404] },
});

const getConfig = defineRoute({
  method: "get",
  path: "/components/{component_id}/configs/{version}",
  tags,
  summary: "Get Config Version",
  scope: read,
  request: { params: versionPath },
  responses: { 200: jsonAnswer(componentConfigResponseSchema, "The version"), 404: errors[404] },
});

const deleteConfig = defineRoute({
  method: "delete",
  path: "/components/{component_id}/configs/{version}",
  tags,
  summary: "Delete Config Version",
  description: "Tombstones a draft; its number is never reused. Published and current versions cannot be deleted.",
  scope: remove,
  request: { params: versionPath },
  responses: { 204: { description: "Deleted" }, ...errors },
});

const setCurrent = defineRoute({
  method: "post",
  path: "/components/{component_id}/configs/{version}/set-current",
  tags,
  summary: "Set Current Config Version",
  description: "Makes a published version current (rollback). `guard.current_version` names the current version read.",
  scope: write,
  request: { params: versionPath, body: body(z.object({ guard: guardSchema.nullable().optional() }), false) },
  responses: { 200: jsonAnswer(componentResponseSchema, "The component"), ...errors },
});

export interface ComponentRoutesOptions {
  registry: ComponentRegistry;
  /** called after every successful write (the audit trail's seam) */
  onWrite?: ComponentWriteHook;
  /** called after a publish or a current-version move, so every isolate drops its cached build */
  onPublish?: (componentId: string) => void;
}

/** agno's guard halves: a route checks one and refuses the other rather than silently ignoring it. */
function rejectUnsupportedGuard(
  guard: { latest_version?: number | null; current_version?: number | null } | null | undefined,
  supported: "latest_version" | "current_version",
): void {
  const other = supported === "latest_version" ? "current_version" : "latest_version";
  if (guard && guard[other] !== undefined && guard[other] !== null)
    throw new BadRequestError(
      `This route checks guard.${supported} only; guard.${other} is not honoured here. Remove it, or use the route that enforces it.`,
    );
}

/** Reads share on publish; writes stay owner-scoped (agno's _require_write_ownership). */
function requireWriteOwnership(row: ComponentRecord, scoped: string | undefined, verb = "modify"): void {
  if (scoped === undefined) return;
  if (row.user_id === null) throw new ForbiddenError(`Cannot ${verb} shared component`);
  if (row.user_id !== scoped) throw new ForbiddenError(`Cannot ${verb} component owned by another user`);
}

/** Whether the caller may read this component's drafts: its owner, anyone on a shared one, or an unscoped caller. */
export function mayReadDrafts(row: ComponentRecord, scoped: string | undefined): boolean {
  return scoped === undefined || row.user_id === null || row.user_id === scoped;
}

/** agno's `/components` routes (Studio): components as versioned data, with guards and tombstones. */
export function componentRoutes(opts: ComponentRoutesOptions) {
  const app = routeApp();
  const { registry } = opts;

  const principalName = (c: Context<OSEnv>) => {
    const p = principalOf(c);
    return p.userId ?? (p.admin ? "admin" : "anonymous");
  };
  /** After a committed write: its row in the audit trail, then the user's hook (neither undoes the write). */
  const wrote = async (c: Context<OSEnv>, event: Omit<ComponentWriteEvent, "principal">) => {
    try {
      await recordAudit(c, componentAuditEntry(event));
    } catch (error) {
      console.error(`audit of ${event.action} on component ${event.component_id} failed: ${errorMessage(error)}`);
    }
    if (!opts.onWrite) return;
    try {
      await opts.onWrite({ principal: principalName(c), ...event });
    } catch (error) {
      console.error("component write hook failed:", error);
    }
  };

  const visible = async (c: Context<OSEnv>, db: Db, id: string) => {
    const row = await db.components.getComponent(checkComponentId(id), { userId: scopedUserId(c) });
    if (!row) throw new NotFoundError(`Component ${id} not found`);
    return row;
  };

  /** A config checked against the registry: a 422 naming every problem, or the links it pins. */
  const checkConfig = async (
    db: Db,
    id: string,
    type: ComponentType,
    config: Record<string, unknown>,
  ): Promise<ComponentLinkInput[]> => {
    const check = await validateComponentConfig(id, type, config, registry, db.components);
    if (check.problems.length)
      throw new ValidationError(`Invalid ${type} config: ${check.problems.join("; ")}`, "config");
    return check.links;
  };

  handle(app, listComponents, async (c) => {
    const q = c.req.valid("query");
    const started = Date.now();
    const excludeIds = q.component_type
      ? registry.codeIds(q.component_type)
      : [...registry.codeIds("agent"), ...registry.codeIds("team"), ...registry.codeIds("workflow")];
    const page = await dbFor(c).components.listComponents({
      componentType: q.component_type,
      stage: q.stage,
      includeDeleted: q.include_deleted,
      userId: scopedUserId(c),
      excludeIds,
      limit: q.limit,
      page: q.page,
    });
    return c.json({
      data: page.data.map(componentView),
      meta: { ...paginationInfo(page), search_time_ms: Date.now() - started },
    });
  });

  handle(app, createComponent, async (c) => {
    const b = c.req.valid("json");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    let id = b.component_id ?? undefined;
    if (id === undefined) {
      id = componentIdFromName(b.name);
      // Two users naming components alike get distinct ids (agno suffixes the owner's hash).
      if (scoped !== undefined) id = `${id}-${(await sha256Hex(scoped)).slice(0, 8)}`;
    } else checkComponentId(id);
    if (registry.codeIds(b.component_type).includes(id))
      throw new BadRequestError(`Component ID ${id} is not available`);
    const config = b.config ?? {};
    const links = await checkConfig(db, id, b.component_type, config);
    const { component } = await db.components.createComponentWithConfig({
      component_id: id,
      component_type: b.component_type,
      name: b.name,
      description: b.description ?? null,
      metadata: b.metadata ?? null,
      user_id: scoped ?? principalOf(c).userId ?? null,
      config,
      label: b.label ?? null,
      stage: b.stage,
      notes: b.notes ?? null,
      links: links.length ? links : null,
    });
    await wrote(c, {
      action: "component.create",
      component_id: id,
      version: 1,
      before_version: null,
      after_version: component.current_version,
    });
    if (component.current_version !== null) opts.onPublish?.(id);
    return c.json(componentView(component), 201);
  });

  handle(app, getComponent, async (c) => {
    const { component_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const row = await dbFor(c).components.getComponent(checkComponentId(component_id), {
      userId: scopedUserId(c),
      includeDeleted: q.include_deleted,
    });
    if (!row) throw new NotFoundError(`Component ${component_id} not found`);
    return c.json(componentView(row));
  });

  handle(app, updateComponent, async (c) => {
    const { component_id } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped);
    rejectUnsupportedGuard(b.guard, "current_version");
    if (b.component_type != null && b.component_type !== existing.component_type)
      throw new BadRequestError(
        `Cannot change component ${component_id} from ${existing.component_type} to ${b.component_type}; a component's type is fixed at creation.`,
      );
    const expected = b.guard?.current_version ?? undefined;
    if (b.current_version != null) {
      const moved = await db.components.setCurrentVersion(component_id, b.current_version, {
        userId: scoped,
        expectedCurrentVersion: expected,
      });
      if (!moved) throw new NotFoundError(`Config ${component_id} v${b.current_version} not found`);
      opts.onPublish?.(component_id);
    }
    const changes = {
      ...(b.name != null ? { name: b.name } : {}),
      ...(b.description != null ? { description: b.description } : {}),
      ...(b.metadata != null ? { metadata: b.metadata } : {}),
    };
    const updated = await db.components.updateComponent(component_id, changes, {
      userId: scoped,
      // The pointer move above already checked the guard under its lock.
      expectedCurrentVersion: b.current_version != null ? undefined : expected,
    });
    if (!updated) throw new NotFoundError(`Component ${component_id} not found`);
    await wrote(c, {
      action: "component.update",
      component_id,
      before_version: existing.current_version,
      after_version: updated.current_version,
    });
    return c.json(componentView(updated));
  });

  handle(app, deleteComponent, async (c) => {
    const { component_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const guard = (c.req.valid("json") as { guard?: { current_version?: number | null } | null } | undefined)?.guard;
    rejectUnsupportedGuard(guard, "current_version");
    let expected = q.expected_current_version;
    if (guard?.current_version != null) {
      if (expected !== undefined && expected !== guard.current_version)
        throw new BadRequestError(
          "Conflicting guards: expected_current_version query param and guard.current_version disagree. Send one.",
        );
      expected = guard.current_version;
    }
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped, "delete");
    const { archived } = await db.components.deleteComponent(component_id, {
      userId: scoped,
      expectedCurrentVersion: expected,
    });
    if (!archived) throw new NotFoundError(`Component ${component_id} not found`);
    await wrote(c, {
      action: "component.delete",
      component_id,
      before_version: existing.current_version,
      after_version: existing.current_version,
    });
    opts.onPublish?.(component_id);
    return c.body(null, 204);
  });

  handle(app, restoreComponent, async (c) => {
    const { component_id } = c.req.valid("param");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    checkComponentId(component_id);
    if (!(await db.components.restoreComponent(component_id, { userId: scoped }))) {
      const existing = await db.components.getComponent(component_id, { userId: scoped, includeDeleted: true });
      if (!existing) throw new NotFoundError(`Component ${component_id} not found`);
      if (existing.deleted_at === null) throw new ConflictError("Component is not archived");
      throw new ForbiddenError("Cannot modify shared component");
    }
    const row = await visible(c, db, component_id);
    await wrote(c, {
      action: "component.restore",
      component_id,
      before_version: row.current_version,
      after_version: row.current_version,
    });
    opts.onPublish?.(component_id);
    return c.json(componentView(row));
  });

  handle(app, listConfigs, async (c) => {
    const { component_id } = c.req.valid("param");
    const q = c.req.valid("query");
    const db = dbFor(c);
    const row = await visible(c, db, component_id);
    let configs = await db.components.listConfigs(component_id, { includeConfig: q.include_config });
    if (!mayReadDrafts(row, scopedUserId(c))) configs = configs.filter((v) => v.stage === "published");
    return c.json(configs.map(componentConfigView));
  });

  handle(app, createConfig, async (c) => {
    const { component_id } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped);
    rejectUnsupportedGuard(b.guard, "latest_version");
    const derived = await checkConfig(db, component_id, existing.component_type, b.config);
    const links = b.links ?? (existing.component_type === "agent" ? undefined : derived);
    const config = await db.components.createConfig(
      component_id,
      { config: b.config, label: b.label ?? null, stage: b.stage, notes: b.notes ?? null, links },
      { userId: scoped, expectedLatestVersion: b.guard?.latest_version ?? undefined },
    );
    const after = config.stage === "published" ? config.version : existing.current_version;
    await wrote(c, {
      action: "config.create",
      component_id,
      version: config.version,
      before_version: existing.current_version,
      after_version: after,
    });
    if (config.stage === "published") opts.onPublish?.(component_id);
    return c.json(componentConfigView(config), 201);
  });

  handle(app, updateConfig, async (c) => {
    const { component_id, version } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped);
    rejectUnsupportedGuard(b.guard, "latest_version");
    let links: ComponentLinkInput[] | undefined = b.links ?? undefined;
    if (b.config != null) {
      const derived = await checkConfig(db, component_id, existing.component_type, b.config);
      if (links === undefined && existing.component_type !== "agent") links = derived;
    }
    const config = await db.components.updateConfig(
      component_id,
      version,
      {
        ...(b.config != null ? { config: b.config } : {}),
        ...(b.label != null ? { label: b.label } : {}),
        ...(b.stage != null ? { stage: b.stage } : {}),
        ...(b.notes != null ? { notes: b.notes } : {}),
        ...(links !== undefined ? { links } : {}),
      },
      { userId: scoped, expectedLatestVersion: b.guard?.latest_version ?? undefined },
    );
    await wrote(c, {
      action: "config.update",
      component_id,
      version,
      before_version: existing.current_version,
      after_version: config.stage === "published" ? version : existing.current_version,
    });
    if (config.stage === "published") opts.onPublish?.(component_id);
    return c.json(componentConfigView(config));
  });

  handle(app, getCurrentConfig, async (c) => {
    const { component_id } = c.req.valid("param");
    const db = dbFor(c);
    await visible(c, db, component_id);
    const config = await db.components.getConfig(component_id);
    if (!config) throw new NotFoundError(`No current config for ${component_id}`);
    return c.json(componentConfigView(config));
  });

  handle(app, getConfig, async (c) => {
    const { component_id, version } = c.req.valid("param");
    const db = dbFor(c);
    const row = await visible(c, db, component_id);
    const config = await db.components.getConfig(component_id, version);
    // A draft answers as absent to one who may not read it, so the 404 tells nothing.
    if (!config || (config.stage !== "published" && !mayReadDrafts(row, scopedUserId(c))))
      throw new NotFoundError(`Config ${component_id} v${version} not found`);
    return c.json(componentConfigView(config));
  });

  handle(app, deleteConfig, async (c) => {
    const { component_id, version } = c.req.valid("param");
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped, "delete");
    if (!(await db.components.deleteConfig(component_id, version, { userId: scoped })))
      throw new NotFoundError(`Config ${component_id} v${version} not found`);
    await wrote(c, {
      action: "config.delete",
      component_id,
      version,
      before_version: existing.current_version,
      after_version: existing.current_version,
    });
    return c.body(null, 204);
  });

  handle(app, setCurrent, async (c) => {
    const { component_id, version } = c.req.valid("param");
    const guard = (c.req.valid("json") as { guard?: { current_version?: number | null } | null } | undefined)?.guard;
    const db = dbFor(c);
    const scoped = scopedUserId(c);
    const existing = await visible(c, db, component_id);
    requireWriteOwnership(existing, scoped);
    rejectUnsupportedGuard(guard, "current_version");
    const moved = await db.components.setCurrentVersion(component_id, version, {
      userId: scoped,
      expectedCurrentVersion: guard?.current_version ?? undefined,
    });
    if (!moved) throw new NotFoundError(`Component ${component_id} or config version ${version} not found`);
    const row = await visible(c, db, component_id);
    await wrote(c, {
      action: "config.set_current",
      component_id,
      version,
      before_version: existing.current_version,
      after_version: row.current_version,
    });
    opts.onPublish?.(component_id);
    return c.json(componentView(row));
  });

  return app;
}

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
