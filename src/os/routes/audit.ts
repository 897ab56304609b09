import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { AuditRecord } from "../../db/port.js";
import { defineRoute, handle, idSchema, jsonAnswer, routeApp } from "../route.js";
import { auditListSchema } from "../wire/audit.js";
import { paginationInfo } from "../wire/paginated.js";
import { dbFor } from "./sessions.js";

const listAudit = defineRoute({
  method: "get",
  path: "/audit",
  tags: ["Audit"],
  summary:
    "The audit trail (a page, newest first): who wrote which component, config, approval, service account, schedule or database schema, when, from which version to which",
  scope: { resource: "agent_os", action: "admin" },
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(100),
      page: z.coerce.number().int().min(1).default(1),
      resource_type: z.string().min(1).max(64).optional(),
      resource_id: idSchema.optional(),
      principal: idSchema.optional(),
      db_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonAnswer(auditListSchema, "A page of audit rows") },
});

const view = (r: AuditRecord) => ({ ...r, details: r.details ?? null });

/** `GET /audit`: admins read the trail (agno has none; see beyond-agno.ts). */
export function auditRoutes() {
  const app = routeApp();
  handle(app, listAudit, async (c) => {
    const q = c.req.valid("query");
    const page = await dbFor(c, q.db_id).audit.list({
      limit: q.limit,
      page: q.page,
      resourceType: q.resource_type,
      resourceId: q.resource_id,
      principal: q.principal,
    });
    return c.json({ data: page.data.map(view), meta: paginationInfo(page) });
  });
  return app;
}
