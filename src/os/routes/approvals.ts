import type { Context } from "hono";
import { z } from "zod";
import { findComponent, type Component, type ComponentRef } from "../../agent/component.js";
import type { ApprovalRecord, Db } from "../../db/port.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import { APPROVAL_STATUSES } from "../../db/ports/approval-store.js";
import { ConflictError, NotConfiguredError, NotFoundError } from "../../errors.js";
import { continueJobInput } from "../../queue/continue-job.js";
import { nowSeconds } from "../../time.js";
import { recordAudit } from "../audit.js";
import { approvalResolutions } from "../approvals/approval-resolutions.js";
import { userCaps, type QueueConfig } from "../background.js";
import { effectiveUserId, principalOf, scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import {
  approvalCountResponseSchema,
  approvalListSchema,
  approvalResolveSchema,
  approvalResponseSchema,
  approvalStatusResponseSchema,
} from "../wire/approvals.js";
import { jobTraceparent } from "../request-trace.js";
import { paginationInfo } from "../wire/paginated.js";
import { dbFor } from "./sessions.js";
import { publishedStoredExists } from "../stored-agents.js";

const tags: ["Approvals"] = ["Approvals"];
const read = { resource: "approvals", action: "read" };
const approvalPath = z.object({ approval_id: idSchema });
const notFound = { 404: { description: "No such approval for this caller" } };

const listApprovals = defineRoute({
  method: "get",
  path: "/approvals",
  tags,
  summary: "Approvals, newest first (a page); with user isolation a non-admin sees the runs they started",
  scope: read,
  request: {
    query: z.object({
      status: z.enum(APPROVAL_STATUSES).optional(),
      source_type: idSchema.optional(),
      approval_type: z.enum(["required", "audit"]).optional(),
      pause_type: idSchema.optional(),
      agent_id: idSchema.optional(),
      team_id: idSchema.optional(),
      workflow_id: idSchema.optional(),
      user_id: idSchema.optional(),
      schedule_id: idSchema.optional(),
      run_id: idSchema.optional(),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(100),
      page: z.coerce.number().int().min(1).default(1),
    }),
  },
  responses: { 200: jsonAnswer(approvalListSchema, "A page of approvals") },
});
const countApprovals = defineRoute({
  method: "get",
  path: "/approvals/count",
  tags,
  summary: "How many approvals are pending",
  scope: read,
  request: { query: z.object({ user_id: idSchema.optional() }) },
  responses: { 200: jsonAnswer(approvalCountResponseSchema, "The pending count") },
});
const approvalStatus = defineRoute({
  method: "get",
  path: "/approvals/{approval_id}/status",
  tags,
  summary: "An approval's status, for polling",
  scope: read,
  request: { params: approvalPath },
  responses: { 200: jsonAnswer(approvalStatusResponseSchema, "The status"), ...notFound },
});
const getApproval = defineRoute({
  method: "get",
  path: "/approvals/{approval_id}",
  tags,
  summary: "One approval, with its run's status",
  scope: read,
  request: { params: approvalPath },
  responses: { 200: jsonAnswer(approvalResponseSchema, "The approval"), ...notFound },
});
const resolveApproval = defineRoute({
  method: "post",
  path: "/approvals/{approval_id}/resolve",
  tags,
  summary:
    "Approve or reject a pending approval, with a reason: the decision is recorded (approver, time) and the paused run continues with it on the durable queue",
  scope: { resource: "approvals", action: "write" },
  request: { params: approvalPath, body: jsonBody(approvalResolveSchema) },
  responses: {
    200: jsonAnswer(approvalResponseSchema, "The approval as decided; its run goes on in the background"),
    ...notFound,
    409: { description: "The approval is no longer pending (decided, expired), or its run is not served here" },
    503: { description: "No durable queue to continue the run on" },
  },
});
const deleteApproval = defineRoute({
  method: "delete",
  path: "/approvals/{approval_id}",
  tags,
  summary: "Delete an approval record (its run stays as it is)",
  scope: { resource: "approvals", action: "delete" },
  request: { params: approvalPath },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

type ApprovalView = z.infer<typeof approvalResponseSchema>;

/** An approval over HTTP: agno's ApprovalResponse, every field. */
const view = (a: ApprovalRecord): ApprovalView => ({
  id: a.id,
  run_id: a.run_id,
  session_id: a.session_id,
  status: a.status,
  source_type: a.source_type,
  approval_type: a.approval_type,
  pause_type: a.pause_type,
  tool_name: a.tool_name,
  tool_args: a.tool_args,
  expires_at: a.expires_at,
  agent_id: a.agent_id,
  team_id: a.team_id,
  workflow_id: a.workflow_id,
  user_id: a.user_id,
  schedule_id: a.schedule_id,
  schedule_run_id: a.schedule_run_id,
  source_name: a.source_name,
  requirements: a.requirements,
  context: a.context,
  resolution_data: a.resolution_data,
  resolved_by: a.resolved_by,
  resolved_at: a.resolved_at,
  created_at: a.created_at,
  updated_at: a.updated_at,
  run_status: a.run_status as ApprovalView["run_status"],
});

/** The component whose paused run an approval continues. */
function sourceOf(a: ApprovalRecord): ComponentRef | null {
  const type = a.source_type;
  if (type !== "agent" && type !== "team" && type !== "workflow") return null;
  const id = type === "agent" ? a.agent_id : type === "team" ? a.team_id : a.workflow_id;
  return id ? { type, id } : null;
}

/**
 * `/approvals` in agno's paths (os/routers/approvals): reads need `approvals:read` (with user
 * isolation a non-admin reads only the approvals of runs they started; another's is 404), resolve
 * `approvals:write` and delete `approvals:delete`, both refused (404) to a non-admin under user
 * isolation, as agno does: the row's user is the requester, never the approver. A pending
 * approval whose `expires_at` passed is marked `expired` by the next read and cannot be resolved.
 * A decision continues the paused run as a `run_continue` job (the path a chat interface's button
 * press takes), so no client needs to stay connected. Every resolve and delete is in the audit trail.
 */
export function approvalRoutes(components: readonly Component[], queue: QueueConfig | undefined) {
  const app = routeApp();
  /** The caller's database, with what has expired by now marked so (agno's statuses, read as they stand). */
  const current = async (c: Context<OSEnv>): Promise<Db> => {
    const db = dbFor(c);
    await db.expireApprovals(nowSeconds());
    return db;
  };
  const found = async (c: Context<OSEnv>, db: Db, id: string) => {
    const scoped = scopedUserId(c);
    const approval = await db.getApproval(id, scoped !== undefined ? { userId: scoped } : {});
    if (!approval) throw new NotFoundError("Approval not found");
    return approval;
  };
  /** Resolve and delete are admin-only under user isolation; 404, so another's approval is not revealed. */
  const adminOnly = (c: Context<OSEnv>) => {
    if (scopedUserId(c) !== undefined) throw new NotFoundError("Approval not found");
  };

  handle(app, listApprovals, async (c) => {
    const q = c.req.valid("query");
    const page = await (
      await current(c)
    ).getApprovals({
      status: q.status,
      sourceType: q.source_type,
      approvalType: q.approval_type,
      pauseType: q.pause_type,
      agentId: q.agent_id,
      teamId: q.team_id,
      workflowId: q.workflow_id,
      userId: effectiveUserId(c, q.user_id),
      scheduleId: q.schedule_id,
      runId: q.run_id,
      limit: q.limit,
      page: q.page,
    });
    return c.json({ data: page.data.map(view), meta: paginationInfo(page) });
  });
  handle(app, countApprovals, async (c) => {
    const userId = effectiveUserId(c, c.req.valid("query").user_id);
    const count = await (await current(c)).countPendingApprovals(userId !== undefined ? { userId } : {});
    return c.json({ count });
  });
  handle(app, approvalStatus, async (c) => {
    const a = await found(c, await current(c), c.req.valid("param").approval_id);
    return c.json({
      approval_id: a.id,
      status: a.status,
      run_id: a.run_id,
      resolved_at: a.resolved_at,
      resolved_by: a.resolved_by,
    });
  });
  handle(app, getApproval, async (c) =>
    c.json(view(await found(c, await current(c), c.req.valid("param").approval_id))),
  );
  handle(app, resolveApproval, async (c) => {
    adminOnly(c);
    const { approval_id: id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { jobs, queue: dispatcher } = c.env;
    if (!queue?.durable || !jobs)
      throw new NotConfiguredError(
        "resolving an approval continues its run on the durable queue: new AgentOS({ queue: { durable: true } }) with a database",
      );
    const db = await current(c);
    const before = await found(c, db, id);
    if (before.status !== "pending")
      throw new ConflictError(`Approval is already '${before.status}' and cannot be resolved`);
    const ref = sourceOf(before);
    if (!ref || (!findComponent(components, ref) && !(await publishedStoredExists(c, ref))))
      throw new ConflictError(`the run of approval ${id} belongs to a component this AgentOS does not serve`);
    const reason = body.reason ?? null;
    const resolutionData =
      reason !== null ? { ...(body.resolution_data ?? {}), reason } : (body.resolution_data ?? null);
    const resolutions = approvalResolutions(before, { status: body.status, resolutionData, reason });
    const principal = principalOf(c);
    const now = nowSeconds();
    // The token's user is the approver of record; a body's `resolved_by` only stands in for a caller without one.
    const after = await db.resolveApproval(id, {
      status: body.status,
      resolvedBy: principal.userId ?? body.resolved_by ?? null,
      resolutionData,
      now,
    });
    if (!after) {
      const latest = await db.getApproval(id);
      if (!latest) throw new NotFoundError("Approval not found");
      throw new ConflictError(`Approval is already '${latest.status}' and cannot be resolved`);
    }
    // The approving request's trace goes on into the continued run's.
    const traceparent = jobTraceparent(c, ref);
    try {
      const { created } = await jobs.enqueueJob(
        continueJobInput(
          {
            run_id: before.run_id,
            component: ref,
            resolutions,
            is_admin: true,
            ...(traceparent ? { traceparent } : {}),
          },
          {
            // The run's owner: the continue is theirs, whoever approved it.
            userId: before.user_id,
            actionKey: `approval:${id}`,
            maxAttempts: queue.maxAttempts ?? 3,
            maxDepth: queue.maxDepth ?? 10_000,
            maxUserDepth: userCaps(queue).maxJobsPerUser,
          },
        ),
      );
      if (created && dispatcher) await dispatcher.wake();
    } catch (error) {
      // Nothing will continue the run: the decision is taken back, so the approver can make it again.
      await db.reopenApproval(id, now);
      throw error;
    }
    await recordAudit(
      c,
      {
        action: "resolve",
        resource_type: "approval",
        resource_id: id,
        before_version: before.status,
        after_version: after.status,
        details: { run_id: before.run_id, ...(body.reason ? { reason: body.reason } : {}) },
      },
      db,
    );
    return c.json(view(after));
  });
  handle(app, deleteApproval, async (c) => {
    adminOnly(c);
    const { approval_id: id } = c.req.valid("param");
    const db = dbFor(c);
    const before = await found(c, db, id);
    if (!(await db.deleteApproval(id))) throw new NotFoundError("Approval not found");
    await recordAudit(
      c,
      {
        action: "delete",
        resource_type: "approval",
        resource_id: id,
        before_version: before.status,
        after_version: null,
        details: { run_id: before.run_id },
      },
      db,
    );
    return c.body(null, 204);
  });
  return app;
}
