import type { Context } from "hono";
import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../../errors.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import type { Db, LearningRecord } from "../../db/port.js";
import {
  buildLearningId,
  DEFAULT_LEARNING_NAMESPACE,
  IDENTITY_KEYED_LEARNING_TYPES,
  RESERVED_ENTITY_NAMESPACE,
  sameUser,
} from "../../learn/utils.js";
import { learningContentProblem } from "../../learn/content-shape.js";
import { scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, errorSchema, handle, idSchema, jsonBody, jsonObject, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  learningResponseSchema,
  learningUserView,
  learningView,
  paginatedLearningsSchema,
  paginatedLearningUsersSchema,
} from "../wire/learnings.js";
import { dbFor } from "./sessions.js";

const tags: ["Learnings"] = ["Learnings"];
const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
const notFound = { 404: json(errorSchema, "No such learning (or one the caller may not see)") };
const forbidden = {
  403: json(errorSchema, "Another user's learnings, an owner-less row to change, or the scope is missing"),
};
/** What `db_id` and `table` may be answered with, on every route. */
const dbErrors = {
  400: json(errorSchema, "`table` without `db_id`"),
  404: json(errorSchema, "No such database, or it keeps no learnings in `table`"),
};
const sortOrder = z.enum(["asc", "desc"]).default("desc");
const dbQuery = z.object({
  db_id: idSchema.optional().describe("Database ID to use"),
  table: idSchema.optional().describe("The database table to use (requires db_id)"),
});
const learningPath = z.object({ learning_id: idSchema });
/** A free-text filter on an identity column: bounded as ids are. */
const filter = idSchema.optional();

const listLearnings = defineRoute({
  method: "get",
  path: "/learnings",
  tags,
  summary: "List Learnings",
  description:
    "A page of learning records, filtered. With user isolation a non-admin sees their own records and those with no owner; naming another user_id is 403.",
  scope: { resource: "learnings", action: "read" },
  request: {
    query: dbQuery.extend({
      learning_type: filter,
      user_id: filter,
      agent_id: filter,
      team_id: filter,
      session_id: filter,
      namespace: filter,
      entity_id: filter,
      entity_type: filter,
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(100),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z
        .string()
        .max(64)
        .optional()
        .describe("A column, e.g. created_at or updated_at (the default); an unknown one sorts by updated_at"),
      sort_order: sortOrder,
    }),
  },
  responses: { 200: json(paginatedLearningsSchema, "A page of learnings"), ...forbidden, ...dbErrors },
});

const createLearning = defineRoute({
  method: "post",
  path: "/learnings",
  tags,
  summary: "Create Learning",
  description:
    "Identity-keyed types (user_profile, user_memory, session_context, entity_memory) get the id their store derives, so the agent reads the same row: their identity fields are required (422), and an existing record is 409 (PATCH it). Other types get a generated id. A non-admin's user_id must be theirs or omitted (403). An entity_memory namespace shaped like a per-user key (`user_<16 hex>…`) is reserved (422).",
  scope: { resource: "learnings", action: "write" },
  request: {
    query: dbQuery,
    body: jsonBody(
      z
        .object({
          learning_type: idSchema,
          content: jsonObject,
          namespace: idSchema.nullish(),
          user_id: idSchema.nullish(),
          agent_id: idSchema.nullish(),
          team_id: idSchema.nullish(),
          session_id: idSchema.nullish(),
          entity_id: idSchema.nullish(),
          entity_type: idSchema.nullish(),
          metadata: jsonObject.nullish(),
        })
        .strict(),
    ),
  },
  responses: {
    201: json(learningResponseSchema, "Created"),
    ...forbidden,
    ...dbErrors,
    409: json(errorSchema, "A record of this identity exists"),
  },
});

const listLearningUsers = defineRoute({
  method: "get",
  path: "/learnings/users",
  tags,
  summary: "List Learning Users",
  description:
    "The users that own learning records, with their latest update. A non-admin under user isolation sees only themselves; naming another user_id is 403.",
  scope: { resource: "learnings", action: "read" },
  request: {
    query: dbQuery.extend({
      learning_type: filter,
      user_id: filter,
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z.string().max(64).optional().describe("user_id or last_learning_updated_at (the default)"),
      sort_order: sortOrder,
    }),
  },
  responses: { 200: json(paginatedLearningUsersSchema, "A page of users"), ...forbidden, ...dbErrors },
});

const deleteLearningUser = defineRoute({
  method: "delete",
  path: "/learnings/users/{user_id}",
  tags,
  summary: "Delete Learning User",
  description:
    "Deletes a user's learning records (of one learning_type when given); records with no owner are untouched. A non-admin under user isolation may delete only their own (403). 204 even when there were none.",
  scope: { resource: "learnings", action: "delete" },
  request: { params: z.object({ user_id: idSchema }), query: dbQuery.extend({ learning_type: filter }) },
  responses: { 204: { description: "Deleted" }, ...forbidden, ...dbErrors },
});

const getLearning = defineRoute({
  method: "get",
  path: "/learnings/{learning_id}",
  tags,
  summary: "Get Learning",
  scope: { resource: "learnings", action: "read" },
  request: { params: learningPath, query: dbQuery },
  responses: { 200: json(learningResponseSchema, "The learning"), ...dbErrors, ...notFound },
});

const updateLearning = defineRoute({
  method: "patch",
  path: "/learnings/{learning_id}",
  tags,
  summary: "Update Learning",
  description:
    "Replaces content and/or metadata; identity fields are immutable. Records with no owner may be changed by admins only (403).",
  scope: { resource: "learnings", action: "write" },
  request: {
    params: learningPath,
    query: dbQuery,
    body: jsonBody(z.object({ content: jsonObject.nullish(), metadata: jsonObject.nullish() }).strict()),
  },
  responses: { 200: json(learningResponseSchema, "The updated learning"), ...dbErrors, ...notFound, ...forbidden },
});

const deleteLearning = defineRoute({
  method: "delete",
  path: "/learnings/{learning_id}",
  tags,
  summary: "Delete Learning",
  description: "Records with no owner may be deleted by admins only (403).",
  scope: { resource: "learnings", action: "delete" },
  request: { params: learningPath, query: dbQuery },
  responses: { 204: { description: "Deleted" }, ...dbErrors, ...notFound, ...forbidden },
});

/**
 * agno's _enforce_user_scope: another user's record is 404 (its existence is not told); a
 * record with no owner is readable by all and changed by admins only.
 */
function enforceUserScope(c: Context<OSEnv>, record: LearningRecord, mutating = false): void {
  const scoped = scopedUserId(c);
  if (scoped === undefined) return;
  if (record.user_id === null) {
    if (mutating) throw new ForbiddenError("Only admins can modify learnings that have no owner (user_id is null)");
    return;
  }
  if (!sameUser(record.user_id, scoped)) throw new NotFoundError("Learning not found");
}

/**
 * The database of a request (`db_id`), checked to keep its learnings in `table` when one is
 * named (agno's get_db): a table the database does not use is 404, a table without db_id 400.
 */
function learningsDb(c: Context<OSEnv>, q: { db_id?: string; table?: string }): Db {
  if (q.table !== undefined && q.db_id === undefined) throw new BadRequestError("table requires db_id");
  const db = dbFor(c, q.db_id);
  const table = (db as Partial<{ names: TableNames }>).names?.learnings ?? DEFAULT_TABLE_NAMES.learnings;
  if (q.table !== undefined && q.table !== table)
    throw new NotFoundError(`database ${q.db_id} keeps no learnings in table ${q.table}`);
  return db;
}

/** agno's `/learnings` routes over `agno_learnings`, with its per-user checks. */
export function learningRoutes() {
  const app = routeApp();

  const fetchLearning = async (c: Context<OSEnv>, q: { db_id?: string; table?: string }, learningId: string) => {
    const record = await learningsDb(c, q).getLearning(learningId);
    if (!record) throw new NotFoundError("Learning not found");
    return record;
  };

  handle(app, listLearnings, async (c) => {
    const q = c.req.valid("query");
    const started = Date.now();
    const scoped = scopedUserId(c);
    if (scoped !== undefined && q.user_id !== undefined && q.user_id !== scoped)
      throw new ForbiddenError("Cannot list learnings for another user");
    const userId = scoped ?? q.user_id;
    const page = await learningsDb(c, q).listLearnings({
      learningType: q.learning_type,
      userId,
      includeShared: scoped !== undefined,
      agentId: q.agent_id,
      teamId: q.team_id,
      sessionId: q.session_id,
      namespace: q.namespace,
      entityId: q.entity_id,
      entityType: q.entity_type,
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    return c.json({
      data: page.data.map(learningView),
      meta: { ...paginationInfo(page), search_time_ms: Date.now() - started },
    });
  });

  handle(app, createLearning, async (c) => {
    const q = c.req.valid("query");
    const b = c.req.valid("json");
    const scoped = scopedUserId(c);
    if (scoped !== undefined && b.user_id != null && b.user_id !== scoped)
      throw new ForbiddenError("Cannot create learnings for another user");
    if (b.learning_type === "entity_memory" && b.namespace != null && RESERVED_ENTITY_NAMESPACE.test(b.namespace))
      throw new ValidationError(
        `namespace '${b.namespace}' is reserved: it has the key shape entity_memory uses for namespace="user" records, ` +
          "so a record stored under it would occupy another user's key. Choose a different namespace.",
        "namespace",
      );
    const shapeProblem = learningContentProblem(b.learning_type, b.content);
    if (shapeProblem) throw new ValidationError(shapeProblem, "content");
    if (b.learning_type === "entity_memory" && (b.namespace || DEFAULT_LEARNING_NAMESPACE) !== "user") {
      // Outside namespace "user" an entity is shared by every user: a row carrying an owner
      // would reach everyone's prompt yet refuse their agents' writes, so it has none, and
      // rows with no owner are created by admins only.
      if (b.user_id != null)
        throw new ValidationError(
          `entity_memory outside namespace "user" is shared and has no owner; omit user_id (or use namespace "user")`,
          "user_id",
        );
      if (scoped !== undefined)
        throw new ForbiddenError(
          'Only admins can create shared entity memory; use namespace "user" for your own entities',
        );
    }
    const deterministic = await buildLearningId(b.learning_type, {
      userId: b.user_id,
      sessionId: b.session_id,
      entityId: b.entity_id,
      entityType: b.entity_type,
      namespace: b.namespace,
    });
    if (IDENTITY_KEYED_LEARNING_TYPES.has(b.learning_type) && deterministic === null)
      throw new ValidationError(
        b.learning_type === "entity_memory" && b.namespace === "user"
          ? 'entity_memory under namespace="user" is keyed by the owning user as well as the entity; provide user_id together with entity_id + entity_type so the record reconciles with the agent\'s store.'
          : `learning_type '${b.learning_type}' is keyed by its identity fields; provide the required field(s) (user_id, session_id, or entity_id + entity_type) so the record reconciles with the agent's store.`,
        "learning_type",
      );
    const learningId = deterministic ?? crypto.randomUUID();
    // The entity store reads by the namespace column, and the id already defaulted it.
    const namespace =
      b.learning_type === "entity_memory" && !b.namespace ? DEFAULT_LEARNING_NAMESPACE : (b.namespace ?? null);
    const created = await learningsDb(c, q)
      .createLearning({
        learning_id: learningId,
        learning_type: b.learning_type,
        content: b.content,
        namespace,
        user_id: b.user_id ?? null,
        agent_id: b.agent_id ?? null,
        team_id: b.team_id ?? null,
        session_id: b.session_id ?? null,
        entity_id: b.entity_id ?? null,
        entity_type: b.entity_type ?? null,
        metadata: b.metadata ?? null,
      })
      .catch((error: unknown) => {
        if (error instanceof ConflictError)
          throw new ConflictError(
            `A '${b.learning_type}' learning already exists for this identity (id '${learningId}'). Use PATCH /learnings/${learningId} to update it.`,
          );
        throw error;
      });
    return c.json(learningView(created), 201);
  });

  handle(app, listLearningUsers, async (c) => {
    const q = c.req.valid("query");
    const started = Date.now();
    const scoped = scopedUserId(c);
    if (scoped !== undefined && q.user_id !== undefined && q.user_id !== scoped)
      throw new ForbiddenError("Cannot list learning users for another user");
    const page = await learningsDb(c, q).learningUsers({
      learningType: q.learning_type,
      userId: scoped ?? q.user_id,
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    return c.json({
      data: page.data.map(learningUserView),
      meta: { ...paginationInfo(page), search_time_ms: Date.now() - started },
    });
  });

  handle(app, deleteLearningUser, async (c) => {
    const q = c.req.valid("query");
    const { user_id } = c.req.valid("param");
    const scoped = scopedUserId(c);
    if (scoped !== undefined && user_id !== scoped)
      throw new ForbiddenError("Cannot delete learnings for another user");
    await learningsDb(c, q).deleteUserLearnings(user_id, { learningType: q.learning_type });
    return c.body(null, 204);
  });

  handle(app, getLearning, async (c) => {
    const record = await fetchLearning(c, c.req.valid("query"), c.req.valid("param").learning_id);
    enforceUserScope(c, record);
    return c.json(learningView(record));
  });

  handle(app, updateLearning, async (c) => {
    const q = c.req.valid("query");
    const b = c.req.valid("json");
    const { learning_id } = c.req.valid("param");
    const existing = await fetchLearning(c, q, learning_id);
    enforceUserScope(c, existing, true);
    if (!("content" in b) && !("metadata" in b)) return c.json(learningView(existing));
    if ("content" in b && b.content === null)
      throw new ValidationError("content cannot be null; omit the field to leave it unchanged", "content");
    const contentProblem = b.content ? learningContentProblem(existing.learning_type, b.content) : null;
    if (contentProblem) throw new ValidationError(contentProblem, "content");
    // Update only, never insert: a row the agent deleted meanwhile is 404, not re-created.
    const updated = await learningsDb(c, q).updateLearning(learning_id, {
      content: b.content ?? existing.content,
      metadata: "metadata" in b ? (b.metadata ?? null) : existing.metadata,
    });
    if (!updated) throw new NotFoundError("Learning not found");
    return c.json(learningView(updated));
  });

  handle(app, deleteLearning, async (c) => {
    const q = c.req.valid("query");
    const { learning_id } = c.req.valid("param");
    const existing = await fetchLearning(c, q, learning_id);
    enforceUserScope(c, existing, true);
    if (!(await learningsDb(c, q).deleteLearning(learning_id))) throw new NotFoundError("Learning not found");
    return c.body(null, 204);
  });

  return app;
}
