import type { Context } from "hono";
import { z } from "zod";
import { BadRequestError, ConflictError, NotConfiguredError, NotFoundError, ValidationError } from "../../errors.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { Db } from "../../db/port.js";
import type { OSEnv } from "../context.js";
import { effectiveUserId, readScope } from "../auth/scopes.js";
import { defineRoute, errorSchema, handle, idSchema, jsonBody, jsonObject, routeApp } from "../route.js";
import { runView, sessionDetail, sessionRunViews, sessionSummary, withoutNone } from "../session-view.js";
import { anyRunSchema, paginatedSessionsSchema, sessionDetailSchema } from "../wire/sessions.js";

const sessionType = z.enum(["agent", "team", "workflow"]);
const read = { resource: "sessions", action: "read", idParam: "session_id" };
const write = { resource: "sessions", action: "write", idParam: "session_id" };
const remove = { resource: "sessions", action: "delete", idParam: "session_id" };
const tags: ["Sessions"] = ["Sessions"];

/** Query fields every session route takes: which database, and (admins) which user. */
const scopedQuery = z.object({
  user_id: idSchema.optional(),
  db_id: idSchema.optional(),
  type: sessionType.optional(),
});
const sessionPath = z.object({ session_id: idSchema });
const runPath = z.object({ session_id: idSchema, run_id: idSchema });

const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
const notFound = { 404: json(errorSchema, "No such session (or run) for the caller") };
const detail = (description: string) => ({ 200: json(sessionDetailSchema, description), ...notFound });

const listSessions = defineRoute({
  method: "get",
  path: "/sessions",
  tags,
  summary: "List sessions: a page of every type, or of `type`",
  description:
    "A session without a stored name is named as agno names it, after its first user message; only such sessions' runs are read.",
  scope: { resource: "sessions", action: "read" },
  request: {
    query: z.object({
      type: sessionType.optional(),
      component_id: idSchema.optional(),
      user_id: idSchema.optional(),
      session_name: z.string().max(255).optional(),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z.enum(["created_at", "updated_at"]).default("created_at"),
      sort_order: z.enum(["asc", "desc"]).default("desc"),
      db_id: idSchema.optional(),
    }),
  },
  responses: { 200: json(paginatedSessionsSchema, "A page of sessions"), ...notFound },
});

const createSession = defineRoute({
  method: "post",
  path: "/sessions",
  tags,
  summary: "Create an empty session",
  scope: { resource: "sessions", action: "write" },
  request: {
    query: scopedQuery,
    body: jsonBody(
      z
        .object({
          session_type: sessionType.optional().describe("The session's type; agno's `?type=` query does the same"),
          session_id: idSchema.optional(),
          session_name: z.string().max(255).optional(),
          session_state: jsonObject.optional(),
          metadata: jsonObject.optional(),
          user_id: idSchema.optional(),
          agent_id: idSchema.optional(),
          team_id: idSchema.optional(),
          workflow_id: idSchema.optional(),
        })
        .strict(),
    ),
  },
  responses: {
    201: json(sessionDetailSchema, "Created"),
    409: json(errorSchema, "A session with this session_id exists"),
  },
});

const getSession = defineRoute({
  method: "get",
  path: "/sessions/{session_id}",
  tags,
  summary: "A session with its chat history",
  scope: read,
  request: { params: sessionPath, query: scopedQuery },
  responses: detail("The session, in the schema of its type"),
});

const renameSession = defineRoute({
  method: "post",
  path: "/sessions/{session_id}/rename",
  tags,
  summary: "Rename a session",
  scope: write,
  request: {
    params: sessionPath,
    query: scopedQuery,
    body: jsonBody(z.object({ session_name: z.string().min(1).max(255) }).strict()),
  },
  responses: detail("The renamed session"),
});

const updateSession = defineRoute({
  method: "patch",
  path: "/sessions/{session_id}",
  tags,
  summary: "Update a session's name, state, metadata or summary",
  scope: write,
  request: {
    params: sessionPath,
    query: scopedQuery,
    body: jsonBody(
      z
        .object({
          session_name: z.string().min(1).max(255).optional(),
          session_state: jsonObject.optional(),
          metadata: jsonObject.optional(),
          summary: jsonObject.optional(),
        })
        .strict()
        .refine((b) => Object.keys(b).length > 0, { message: "nothing to update" }),
    ),
  },
  responses: detail("The updated session"),
});

const deleteSessions = defineRoute({
  method: "delete",
  path: "/sessions",
  tags,
  summary: "Delete several sessions, all or nothing",
  scope: { resource: "sessions", action: "delete" },
  request: {
    query: scopedQuery,
    body: jsonBody(
      z
        .object({ session_ids: z.array(idSchema).min(1).max(1000), session_types: z.array(sessionType).optional() })
        .strict(),
    ),
  },
  responses: {
    204: { description: "Deleted" },
    400: json(errorSchema, "session_types does not pair with session_ids"),
    ...notFound,
  },
});

const deleteSession = defineRoute({
  method: "delete",
  path: "/sessions/{session_id}",
  tags,
  summary: "Delete a session and its runs",
  scope: remove,
  request: { params: sessionPath, query: scopedQuery },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

const sessionRuns = defineRoute({
  method: "get",
  path: "/sessions/{session_id}/runs",
  tags,
  summary: "A session's runs, oldest first",
  scope: read,
  request: {
    params: sessionPath,
    query: scopedQuery.extend({
      created_after: z.coerce.number().int().optional().describe("Only runs created at or after this epoch second"),
      created_before: z.coerce.number().int().optional().describe("Only runs created at or before this epoch second"),
    }),
  },
  responses: { 200: json(z.array(anyRunSchema), "The runs, each in the schema of what ran it"), ...notFound },
});
const sessionRun = defineRoute({
  method: "get",
  path: "/sessions/{session_id}/runs/{run_id}",
  tags,
  summary: "One run of a session",
  scope: read,
  request: { params: runPath, query: scopedQuery },
  responses: { 200: json(anyRunSchema, "The run, in the schema of what ran it"), ...notFound },
});
const deleteRun = defineRoute({
  method: "delete",
  path: "/sessions/{session_id}/runs/{run_id}",
  tags,
  summary: "Delete one run of a session",
  scope: remove,
  request: { params: runPath, query: scopedQuery },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

/** The database a request addresses: `?db_id=`, else the first one configured. */
export function dbFor(c: Context<OSEnv>, dbId?: string): Db {
  if (c.env.dbs.length === 0) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  if (!dbId) return c.env.dbs[0]!;
  const db = c.env.dbs.find((d) => d.id === dbId);
  if (!db) throw new NotFoundError(`database ${dbId} not found`);
  return db;
}

/** Sessions and their runs, in agno's paths and shapes. */
export function sessionRoutes() {
  const app = routeApp();

  handle(app, listSessions, async (c) => {
    const q = c.req.valid("query");
    const started = Date.now();
    const db = dbFor(c, q.db_id);
    const scope = readScope(c, q.user_id);
    const page = await db.getSessions({
      sessionType: q.type,
      componentId: q.component_id,
      ...scope,
      sessionName: q.session_name,
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    // agno names a session that has no stored name after its runs: only those sessions' runs are read.
    const data = await Promise.all(
      page.data.map(async ({ record }) => {
        const named = record.session_data?.session_name !== undefined && record.session_data?.session_name !== null;
        const runs = named ? [] : ((await db.getSession(record.session_id, scope))?.runs ?? []);
        return withoutNone(sessionSummary(record, runs));
      }),
    );
    return c.json({
      data,
      meta: {
        page: page.page,
        limit: page.limit,
        total_pages: page.total_pages,
        total_count: page.total_count,
        search_time_ms: Date.now() - started,
      },
    });
  });

  handle(app, createSession, async (c) => {
    const q = c.req.valid("query");
    const b = c.req.valid("json");
    const type = b.session_type ?? q.type ?? "agent";
    const component = { agent: b.agent_id, team: b.team_id, workflow: b.workflow_id }[type];
    if (!component)
      throw new ValidationError(
        `body ${type}_id: name the component the session belongs to (agent_id, team_id or workflow_id, matching session_type)`,
        `${type}_id`,
      );
    const db = dbFor(c, q.db_id);
    const sessionId = b.session_id ?? crypto.randomUUID();
    const sessionData = {
      ...(b.session_state !== undefined ? { session_state: b.session_state } : {}),
      ...(b.session_name !== undefined ? { session_name: b.session_name } : {}),
    };
    const session = await db
      .createSession({
        session_id: sessionId,
        session_type: type,
        agent_id: type === "agent" ? b.agent_id : null,
        team_id: type === "team" ? b.team_id : null,
        workflow_id: type === "workflow" ? b.workflow_id : null,
        user_id: effectiveUserId(c, b.user_id) ?? null,
        session_data: Object.keys(sessionData).length > 0 ? sessionData : null,
        metadata: b.metadata ?? null,
      })
      .catch(async (error: unknown) => {
        // The id is taken. With isolation, a 409 would tell a user that a session they cannot read exists: they get the 404 a read of it gives.
        if (
          error instanceof ConflictError &&
          !(await db.getSession(sessionId, { ...readScope(c, undefined), includeRuns: false }))
        )
          throw new NotFoundError(`session ${sessionId} not found`);
        throw error;
      });
    return c.json(withoutNone(sessionDetail(session)), 201);
  });

  handle(app, getSession, async (c) => {
    const q = c.req.valid("query");
    const { session_id } = c.req.valid("param");
    const session = await dbFor(c, q.db_id).getSession(session_id, readScope(c, q.user_id));
    if (!session || (q.type && session.record.session_type !== q.type))
      throw new NotFoundError(`session ${session_id} not found`);
    return c.json(withoutNone(sessionDetail(session)));
  });

  handle(app, renameSession, async (c) => {
    const q = c.req.valid("query");
    const session = await dbFor(c, q.db_id).renameSession(
      c.req.valid("param").session_id,
      c.req.valid("json").session_name,
      { userId: effectiveUserId(c, q.user_id) },
    );
    return c.json(sessionDetail(session));
  });

  handle(app, updateSession, async (c) => {
    const q = c.req.valid("query");
    const b = c.req.valid("json");
    const { session_id } = c.req.valid("param");
    const db = dbFor(c, q.db_id);
    const current = await db.getSession(session_id, { includeRuns: false, userId: effectiveUserId(c, q.user_id) });
    if (!current) throw new NotFoundError(`session ${session_id} not found`);
    const r = current.record;
    await db.upsertSession({
      ...r,
      session_data: {
        ...r.session_data,
        ...(b.session_name !== undefined ? { session_name: b.session_name } : {}),
        ...(b.session_state !== undefined ? { session_state: b.session_state } : {}),
      },
      metadata: b.metadata ?? r.metadata,
      summary: b.summary ?? r.summary,
    });
    return c.json(sessionDetail((await db.getSession(r.session_id))!));
  });

  // Bulk delete, all or nothing: one unknown (or another user's) id and nothing is deleted.
  handle(app, deleteSessions, async (c) => {
    const q = c.req.valid("query");
    const { session_ids, session_types } = c.req.valid("json");
    // agno pairs each id with its type; a list that does not pair is refused, as agno refuses it.
    if (session_types && session_types.length !== session_ids.length)
      throw new BadRequestError("session_ids and session_types must have the same length");
    await dbFor(c, q.db_id).deleteSessions(session_ids, { userId: effectiveUserId(c, q.user_id) });
    return c.body(null, 204);
  });

  handle(app, deleteSession, async (c) => {
    const q = c.req.valid("query");
    await dbFor(c, q.db_id).deleteSession(c.req.valid("param").session_id, { userId: effectiveUserId(c, q.user_id) });
    return c.body(null, 204);
  });

  handle(app, sessionRuns, async (c) => {
    const q = c.req.valid("query");
    const { session_id } = c.req.valid("param");
    const session = await dbFor(c, q.db_id).getSession(session_id, readScope(c, q.user_id));
    if (!session) throw new NotFoundError(`session ${session_id} not found`);
    // A run without a creation time is kept, as agno keeps it.
    const runs = session.runs.filter(
      (r) =>
        typeof r.created_at !== "number" ||
        ((q.created_after === undefined || r.created_at >= q.created_after) &&
          (q.created_before === undefined || r.created_at <= q.created_before)),
    );
    return c.json(sessionRunViews(runs, q.type ?? session.record.session_type).map(withoutNone));
  });

  handle(app, sessionRun, async (c) => {
    const q = c.req.valid("query");
    const { session_id, run_id } = c.req.valid("param");
    const run = await dbFor(c, q.db_id).getRun(run_id, { sessionId: session_id, ...readScope(c, q.user_id) });
    if (!run) throw new NotFoundError(`run ${run_id} not found in session ${session_id}`);
    return c.json(runView(run.run_data));
  });

  handle(app, deleteRun, async (c) => {
    const q = c.req.valid("query");
    const { session_id, run_id } = c.req.valid("param");
    const db = dbFor(c, q.db_id);
    const userId = effectiveUserId(c, q.user_id);
    const run = await db.getRun(run_id, { sessionId: session_id, userId });
    if (!run) throw new NotFoundError(`run ${run_id} not found in session ${session_id}`);
    await db.deleteRun(run_id, { userId });
    return c.body(null, 204);
  });

  return app;
}
