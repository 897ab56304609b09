import { Hono, type Context } from "hono";
import { z } from "zod";
import { NotConfiguredError, NotFoundError } from "../../errors.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { Db } from "../../db/port.js";
import type { OSEnv } from "../context.js";
import { parseInput, readJson } from "../params.js";
import { effectiveUserId, readScope, requireScope } from "../auth/scopes.js";
import { sessionDetail, sessionSummary } from "../session-view.js";

const id = z.string().min(1).max(255);
const sessionType = z.enum(["agent", "team", "workflow"]);
const jsonObject = z.record(z.string(), z.unknown());

const listQuery = z.object({
  type: sessionType.default("agent"),
  component_id: id.optional(),
  user_id: id.optional(),
  session_name: z.string().max(255).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
  page: z.coerce.number().int().min(1).default(1),
  sort_by: z.enum(["created_at", "updated_at"]).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
  db_id: id.optional(),
});

const createBody = z
  .object({
    session_type: sessionType.default("agent"),
    session_id: id.optional(),
    session_name: z.string().max(255).optional(),
    session_state: jsonObject.optional(),
    metadata: jsonObject.optional(),
    user_id: id.optional(),
    agent_id: id.optional(),
    team_id: id.optional(),
    workflow_id: id.optional(),
  })
  .strict()
  .refine((b) => Boolean({ agent: b.agent_id, team: b.team_id, workflow: b.workflow_id }[b.session_type]), {
    message: "name the component the session belongs to (agent_id, team_id or workflow_id, matching session_type)",
    path: ["session_type"],
  });

const scopedQuery = z.object({ user_id: id.optional(), db_id: id.optional(), type: sessionType.optional() });
const patchBody = z
  .object({
    session_name: z.string().min(1).max(255).optional(),
    session_state: jsonObject.optional(),
    metadata: jsonObject.optional(),
    summary: jsonObject.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "nothing to update" });
const bulkDeleteBody = z.object({ session_ids: z.array(id).min(1).max(1000), session_types: z.array(sessionType).optional() }).strict();
const renameBody = z.object({ session_name: z.string().min(1).max(255) }).strict();

/** The database a request addresses: `?db_id=`, else the first one configured. */
function dbFor(c: Context<OSEnv>, dbId?: string): Db {
  if (c.env.dbs.length === 0) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  if (!dbId) return c.env.dbs[0]!;
  const db = c.env.dbs.find((d) => d.id === dbId);
  if (!db) throw new NotFoundError(`database ${dbId} not found`);
  return db;
}

/** Sessions and their runs, in agno's paths and shapes. */
export function sessionRoutes() {
  const app = new Hono<OSEnv>();

  app.get("/sessions", requireScope("sessions", "read"), async (c) => {
    const q = parseInput(listQuery, c.req.query(), "query");
    const started = Date.now();
    const page = await dbFor(c, q.db_id).getSessions({
      sessionType: q.type,
      componentId: q.component_id,
      ...readScope(c, q.user_id),
      sessionName: q.session_name,
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    return c.json({
      data: page.data.map(sessionSummary),
      meta: { page: page.page, limit: page.limit, total_pages: page.total_pages, total_count: page.total_count, search_time_ms: Date.now() - started },
    });
  });

  app.post("/sessions", requireScope("sessions", "write"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const b = parseInput(createBody, await readJson(c.req.raw), "body");
    const session = await dbFor(c, q.db_id).createSession({
      session_id: b.session_id ?? crypto.randomUUID(),
      session_type: b.session_type,
      agent_id: b.session_type === "agent" ? b.agent_id : null,
      team_id: b.session_type === "team" ? b.team_id : null,
      workflow_id: b.session_type === "workflow" ? b.workflow_id : null,
      user_id: effectiveUserId(c, b.user_id) ?? null,
      session_data: { session_name: b.session_name ?? "", session_state: b.session_state ?? {} },
      metadata: b.metadata ?? null,
    });
    return c.json(sessionDetail(session), 201);
  });

  app.get("/sessions/:session_id", requireScope("sessions", "read", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const session = await dbFor(c, q.db_id).getSession(parseInput(id, c.req.param("session_id"), "path session_id"), readScope(c, q.user_id));
    if (!session || (q.type && session.record.session_type !== q.type)) throw new NotFoundError(`session ${c.req.param("session_id")} not found`);
    return c.json(sessionDetail(session));
  });

  app.post("/sessions/:session_id/rename", requireScope("sessions", "write", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const b = parseInput(renameBody, await readJson(c.req.raw), "body");
    const session = await dbFor(c, q.db_id).renameSession(c.req.param("session_id"), b.session_name, { userId: effectiveUserId(c, q.user_id) });
    return c.json(sessionDetail(session));
  });

  app.patch("/sessions/:session_id", requireScope("sessions", "write", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const b = parseInput(patchBody, await readJson(c.req.raw), "body");
    const db = dbFor(c, q.db_id);
    const current = await db.getSession(parseInput(id, c.req.param("session_id"), "path session_id"), { includeRuns: false, userId: effectiveUserId(c, q.user_id) });
    if (!current) throw new NotFoundError(`session ${c.req.param("session_id")} not found`);
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
  app.delete("/sessions", requireScope("sessions", "delete"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const b = parseInput(bulkDeleteBody, await readJson(c.req.raw), "body");
    await dbFor(c, q.db_id).deleteSessions(b.session_ids, { userId: effectiveUserId(c, q.user_id) });
    return c.body(null, 204);
  });

  app.delete("/sessions/:session_id", requireScope("sessions", "delete", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    await dbFor(c, q.db_id).deleteSession(c.req.param("session_id"), { userId: effectiveUserId(c, q.user_id) });
    return c.body(null, 204);
  });

  app.get("/sessions/:session_id/runs", requireScope("sessions", "read", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const session = await dbFor(c, q.db_id).getSession(parseInput(id, c.req.param("session_id"), "path session_id"), readScope(c, q.user_id));
    if (!session) throw new NotFoundError(`session ${c.req.param("session_id")} not found`);
    return c.json(session.runs);
  });

  app.get("/sessions/:session_id/runs/:run_id", requireScope("sessions", "read", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const run = await dbFor(c, q.db_id).getRun(parseInput(id, c.req.param("run_id"), "path run_id"), {
      sessionId: c.req.param("session_id"),
      ...readScope(c, q.user_id),
    });
    if (!run) throw new NotFoundError(`run ${c.req.param("run_id")} not found in session ${c.req.param("session_id")}`);
    return c.json(run.run_data);
  });

  app.delete("/sessions/:session_id/runs/:run_id", requireScope("sessions", "delete", "session_id"), async (c) => {
    const q = parseInput(scopedQuery, c.req.query(), "query");
    const db = dbFor(c, q.db_id);
    const runId = parseInput(id, c.req.param("run_id"), "path run_id");
    const userId = effectiveUserId(c, q.user_id);
    const run = await db.getRun(runId, { sessionId: c.req.param("session_id"), userId });
    if (!run) throw new NotFoundError(`run ${runId} not found in session ${c.req.param("session_id")}`);
    await db.deleteRun(runId, { userId });
    return c.body(null, 204);
  });

  return app;
}
