import { z } from "zod";
import { NotFoundError, ValidationError } from "../../errors.js";
import type { StepRequirementResolution } from "../../workflow/step-requirement.js";
import type { WorkflowContinueOptions } from "../../workflow/continue-run.js";
import type { Workflow } from "../../workflow/workflow.js";
import { continuedEvents } from "../agent-runs.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import { enqueueBackgroundRun, runStatusOf, type QueueConfig } from "../background.js";
import {
  acceptedOrTail,
  cancelComponentRun,
  errorAnswers,
  jsonOf,
  readComponentRun,
  resumeComponentRun,
  runAnswer,
  streamComponentRun,
} from "../component-runs.js";
import { defineRoute, handle, idSchema, jsonObject, routeApp } from "../route.js";
import { bodyOf, flag, jsonText, resumeRequest, runBody, runRequest } from "../run-input.js";
import { workflowRunView } from "../session-view.js";
import { workflowResponse } from "../workflow-response.js";
import type { ComponentRegistry } from "../../components/component-registry.js";
import { compositeLookup, storedCompositesFor } from "../stored-agents.js";
import { acceptedRunResponseSchema, cancelRunResponseSchema } from "../wire/agents.js";
import { agnoErrorSchema } from "../wire/errors.js";
import { workflowRunSchema } from "../wire/sessions.js";
import { workflowResponseSchema, workflowRunOutputDict, workflowRunOutputSchema } from "../wire/workflows.js";
import { jobTraceparent, traceOf } from "../request-trace.js";

const tags: ["Workflows"] = ["Workflows"];
const readWorkflow = { resource: "workflows", action: "read", idParam: "workflow_id" };
// As agno: reading a workflow's runs needs the run scope, like starting them.
const runWorkflow = { resource: "workflows", action: "run", idParam: "workflow_id" };
const workflowPath = z.object({ workflow_id: idSchema });
const runPath = z.object({ workflow_id: idSchema, run_id: idSchema });
const errors = (...statuses: Array<400 | 404 | 409 | 429 | 503>) => errorAnswers("workflow", ...statuses);
const optionalId = z.preprocess((v) => (v === "" ? undefined : v), idSchema.optional());

/** agno's continue form for a workflow: the decision on the step its run waits on. */
export const workflowContinueRequest = z
  .object({
    step_requirements: jsonText(z.array(jsonObject).max(100)),
    error_requirements: jsonText(z.array(jsonObject).max(100)),
    session_id: optionalId,
    user_id: optionalId,
    stream: flag,
  })
  .meta({
    id: "WorkflowContinueRequest",
    description:
      "`step_requirements`: the paused step's requirement with the decision, `[{step_id, confirmed, user_input?, " +
      "selected_choices?, rejection_feedback?, edited_output?}]` (agno's StepRequirement dicts; as JSON, or JSON text " +
      "in a form); for a step whose agent paused for its tools, " +
      "`[{step_id, executor_requirements: [{id, confirmed | user_input | external_execution_result}]}]`; " +
      '`error_requirements`: a failed step\'s, `[{step_id, decision: "retry" | "skip"}]` (agno\'s ErrorRequirement)',
  });

const listWorkflows = defineRoute({
  method: "get",
  path: "/workflows",
  tags,
  summary: "The workflows this AgentOS serves (those the caller may read), each as agno's WorkflowResponse",
  scope: { resource: "workflows", action: "read", perItem: "filters the list" },
  responses: { 200: jsonOf(z.array(workflowResponseSchema), "The workflows") },
});
const getWorkflow = defineRoute({
  method: "get",
  path: "/workflows/{workflow_id}",
  tags,
  summary: "One workflow's configuration and steps (agno's WorkflowResponse)",
  scope: readWorkflow,
  request: { params: workflowPath },
  responses: { 200: jsonOf(workflowResponseSchema, "The workflow"), ...errors(404) },
});
const createRun = defineRoute({
  method: "post",
  path: "/workflows/{workflow_id}/runs",
  tags,
  summary: "Run a workflow: an SSE stream of its events (stream=true, the default) or its WorkflowRunOutput as JSON",
  description:
    "Each SSE frame carries `id: <position>`; send it back to `/resume` as `last_event_index` to re-attach. " +
    "Workflows take no media or dependencies.",
  scope: runWorkflow,
  request: { params: workflowPath, body: runBody(runRequest) },
  responses: {
    200: runAnswer(workflowRunOutputSchema, "WorkflowRunOutput (JSON, stream=false) or text/event-stream"),
    202: jsonOf(acceptedRunResponseSchema, "background=true, stream=false: accepted, to poll"),
    ...errors(400, 404, 409, 429, 503),
  },
});
const listRuns = defineRoute({
  method: "get",
  path: "/workflows/{workflow_id}/runs",
  tags,
  summary: "The workflow's runs in one session, in order (agno's WorkflowRunSchema), optionally of one status",
  scope: runWorkflow,
  request: {
    params: workflowPath,
    query: z.object({
      session_id: idSchema,
      status: z
        .string()
        .max(32)
        .optional()
        .describe("Only runs of this status (PENDING, RUNNING, COMPLETED, PAUSED, …)"),
      user_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonOf(z.array(workflowRunSchema), "The runs"), ...errors(404, 503) },
});
const getRun = defineRoute({
  method: "get",
  path: "/workflows/{workflow_id}/runs/{run_id}",
  tags,
  summary: "One workflow run's WorkflowRunOutput (poll a background or paused run with it)",
  scope: runWorkflow,
  request: { params: runPath, query: z.object({ session_id: idSchema.optional(), user_id: idSchema.optional() }) },
  responses: { 200: jsonOf(workflowRunOutputSchema, "The run"), ...errors(404, 503) },
});
const cancelRun = defineRoute({
  method: "post",
  path: "/workflows/{workflow_id}/runs/{run_id}/cancel",
  tags,
  summary: "Cancel a running workflow run, the agent runs of its steps with it (cooperatively, from any isolate)",
  scope: runWorkflow,
  request: { params: runPath, query: z.object({ user_id: idSchema.optional() }) },
  responses: { 200: jsonOf(cancelRunResponseSchema, "The cancel was recorded"), ...errors(404, 503) },
});
const continueRun = defineRoute({
  method: "post",
  path: "/workflows/{workflow_id}/runs/{run_id}/continue",
  tags,
  summary:
    "Continue a workflow run paused by a HumanReview (confirm, reject, input) or by a step's agent (its tools' requirements)",
  scope: runWorkflow,
  request: { params: runPath, body: runBody(workflowContinueRequest) },
  responses: {
    200: runAnswer(
      workflowRunOutputSchema,
      "The continued run's WorkflowRunOutput (JSON, stream=false) or text/event-stream",
    ),
    ...errors(400, 404, 409, 503),
  },
});
const resumeRun = defineRoute({
  method: "post",
  path: "/workflows/{workflow_id}/runs/{run_id}/resume",
  tags,
  summary: "Re-attach to a streamed workflow run: its stored events after `last_event_index`, then the live ones",
  description:
    "Works from any isolate: events are read from the database. `Last-Event-ID` is accepted in place of `last_event_index`.",
  scope: runWorkflow,
  request: { params: runPath, body: runBody(resumeRequest) },
  responses: {
    200: { description: "text/event-stream", content: { "text/event-stream": {} } },
    ...errors(404, 503),
    409: jsonOf(agnoErrorSchema, "The run was not streamed (read it with GET instead)"),
  },
});

/** `/workflows` and workflow runs: list, detail, run (SSE, JSON, background), get, list runs, cancel, continue, resume. */
export function workflowRoutes(workflows: Workflow[], queue?: QueueConfig, registry?: ComponentRegistry) {
  const app = routeApp();

  // Code-defined workflows, then the published stored ones (components as data) the caller may see.
  handle(app, listWorkflows, async (c) =>
    c.json(
      [...workflows, ...(registry ? await storedCompositesFor(c, registry, "workflow") : [])]
        .filter((w) => hasScope(principalOf(c), "workflows", "read", w.id))
        .map((w) => workflowResponse(w, c.env.dbs[0] ?? w.db)),
    ),
  );
  const lookup = compositeLookup("workflow", workflows, registry);
  handle(app, getWorkflow, async (c) => {
    const { component: workflow } = await lookup.any(c, c.req.valid("param").workflow_id);
    return c.json(workflowResponse(workflow, workflow.db));
  });

  handle(app, createRun, async (c) => {
    const body = bodyOf(c, runRequest);
    const { component: workflow, version } = await lookup.any(c, c.req.valid("param").workflow_id, body.version);
    if (!body.message) throw new ValidationError("body message: required", "message");
    // Refused rather than dropped: the Workflow has nowhere to put them.
    for (const field of ["files", "files[]", "media", "dependencies"] as const)
      if (body[field] !== undefined) throw new ValidationError(`body ${field}: workflows take none`, field);
    const opts = {
      sessionId: body.session_id,
      userId: effectiveUserId(c, body.user_id),
      sessionState: body.session_state,
      metadata: body.metadata,
      ...traceOf(c),
    };
    if (body.background) {
      const { job } = await enqueueBackgroundRun(
        c.env,
        queue,
        workflow,
        { ...body, media: undefined, component_version: version },
        {
          userId: opts.userId ?? null,
          idempotencyKey: c.req.header("idempotency-key"),
          traceparent: jobTraceparent(c, workflow.ref),
        },
      );
      return acceptedOrTail(c, workflow, job, runStatusOf(job), body.stream, body.user_id);
    }
    if (body.stream === false) return c.json(workflowRunOutputDict(await workflow.run(body.message, opts)));
    return streamComponentRun(c, workflow, workflow.run(body.message, { ...opts, stream: true }), {
      sessionId: body.session_id,
    });
  });

  handle(app, listRuns, async (c) => {
    const { component: workflow, db } = await lookup.withDb(c, c.req.valid("param").workflow_id);
    const q = c.req.valid("query");
    const session = await db.getSession(q.session_id, readScope(c, q.user_id));
    if (!session || session.record.session_type !== "workflow" || session.record.workflow_id !== workflow.id)
      throw new NotFoundError(`session ${q.session_id} not found`);
    // The session also holds the agent runs its steps made: only the workflow's own are listed.
    const runs = session.runs.filter(
      (r) => r.workflow_id === workflow.id && !r.agent_id && !r.team_id && (!q.status || r.status === q.status),
    );
    return c.json(runs.map((r) => workflowRunView(r)));
  });

  handle(app, getRun, async (c) => {
    const { workflow_id, run_id } = c.req.valid("param");
    const { component: workflow, db } = await lookup.withDb(c, workflow_id);
    const q = c.req.valid("query");
    const run = await readComponentRun(db, workflow.ref, run_id, readScope(c, q.user_id), q.session_id);
    return c.json(workflowRunOutputDict(run));
  });

  handle(app, cancelRun, async (c) => {
    const { workflow_id, run_id } = c.req.valid("param");
    const { component: workflow } = await lookup.any(c, workflow_id);
    return c.json(await cancelComponentRun(c, workflow, run_id, c.req.valid("query").user_id));
  });

  handle(app, continueRun, async (c) => {
    const { workflow_id, run_id } = c.req.valid("param");
    // A stored workflow's paused run goes on with its current published version, as agno loads it by id.
    const { component: workflow, db } = await lookup.withDb(c, workflow_id);
    const body = bodyOf(c, workflowContinueRequest);
    const userId = effectiveUserId(c, body.user_id);
    // The run must be this workflow's, the caller's, and of the session named.
    await readComponentRun(db, workflow.ref, run_id, readScope(c, body.user_id), body.session_id);
    const opts = {
      stepRequirements: (body.step_requirements ?? []) as unknown as StepRequirementResolution[],
      ...(body.error_requirements
        ? { errorRequirements: body.error_requirements as unknown as WorkflowContinueOptions["errorRequirements"] }
        : {}),
      ...(userId !== undefined ? { userId } : {}),
      approver: { isAdmin: principalOf(c).admin },
      ...traceOf(c),
    };
    if (body.stream === false)
      return c.json(workflowRunOutputDict(await workflow.continueRun(run_id, { ...opts, stream: false })));
    const { events, ids } = await continuedEvents(
      workflow,
      run_id,
      workflow.continueRun(run_id, { ...opts, stream: true }),
    );
    return streamComponentRun(c, workflow, events, ids);
  });

  handle(app, resumeRun, (c) => {
    const { workflow_id, run_id } = c.req.valid("param");
    return resumeComponentRun(c, "workflow", workflows, workflow_id, run_id);
  });

  return app;
}
