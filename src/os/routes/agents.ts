import type { Context } from "hono";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { RunEvent } from "../../agent/events.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { RunOutput, ToolExecution } from "../../agent/run-output.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import {
  agentFor,
  agentSummary,
  continueIndex,
  errorEvent,
  firstEventFirst,
  followIds,
  keepAlive,
  numberedEvents,
  openResume,
  resolutionsFromTools,
  storedAgent,
} from "../agent-runs.js";
import type { OSEnv } from "../context.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import { defineRoute, handle, idSchema, routeApp } from "../route.js";
import { bodyOf, continueRequest, lastEventIdOf, mediaOf, resumeRequest, runBody, runRequest } from "../run-input.js";
import { sseResponse } from "../sse.js";
import { enqueueBackgroundRun, runStatusOf, type QueueConfig } from "../background.js";

const tags: ["Agents"] = ["Agents"];
const readAgent = { resource: "agents", action: "read", idParam: "agent_id" };
const runAgent = { resource: "agents", action: "run", idParam: "agent_id" };
const agentPath = z.object({ agent_id: idSchema });
const runPath = z.object({ agent_id: idSchema, run_id: idSchema });
const userQuery = z.object({ user_id: idSchema.optional() });

const listAgents = defineRoute({
  method: "get",
  path: "/agents",
  tags,
  summary: "The agents this AgentOS serves (those the caller may read)",
  scope: { resource: "agents", action: "read", perItem: "filters the list" },
});
const getAgent = defineRoute({
  method: "get",
  path: "/agents/{agent_id}",
  tags,
  summary: "One agent",
  scope: readAgent,
  request: { params: agentPath },
});
const createRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs",
  tags,
  summary: "Run an agent: an SSE stream of its events (stream=true, the default) or its RunOutput as JSON",
  description:
    "Each SSE frame carries `id: <position>`; send it back to `/resume` as `last_event_index` to re-attach after a dropped connection.",
  scope: runAgent,
  request: { params: agentPath, body: runBody(runRequest) },
  responses: { 200: { description: "RunOutput (JSON) or text/event-stream" } },
});
const listRuns = defineRoute({
  method: "get",
  path: "/agents/{agent_id}/runs",
  tags,
  summary: "An agent's runs, newest first",
  scope: readAgent,
  request: {
    params: agentPath,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      page: z.coerce.number().int().min(1).default(1),
      session_id: idSchema.optional(),
      user_id: idSchema.optional(),
    }),
  },
});
const getRun = defineRoute({
  method: "get",
  path: "/agents/{agent_id}/runs/{run_id}",
  tags,
  summary: "One run's RunOutput",
  scope: readAgent,
  request: { params: runPath, query: userQuery },
});
const cancelRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs/{run_id}/cancel",
  tags,
  summary: "Cancel a running run (cooperatively, from any isolate)",
  scope: runAgent,
  request: { params: runPath, query: userQuery },
});
const continueRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs/{run_id}/continue",
  tags,
  summary: "Continue a paused run with its resolved requirements (human in the loop)",
  scope: runAgent,
  request: { params: runPath, body: runBody(continueRequest) },
});
const resumeRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs/{run_id}/resume",
  tags,
  summary: "Re-attach to a streamed run: its stored events after `last_event_index`, then the live ones",
  description:
    "Works from any isolate: events are read from the database. `Last-Event-ID` is accepted in place of `last_event_index`.",
  scope: runAgent,
  request: { params: runPath, body: runBody(resumeRequest) },
  responses: {
    200: { description: "text/event-stream" },
    409: { description: "The run was not streamed (read it with GET instead)" },
  },
});

/** Streams a run as SSE; with a database its events are stored as they pass, for `/resume`. */
async function streamRun(
  c: Context<OSEnv>,
  agent: Agent,
  events: AsyncIterable<RunEvent>,
  ids: { runId?: string; sessionId?: string; firstIndex?: number },
) {
  const known = { run_id: ids.runId, session_id: ids.sessionId, agent_id: agent.id };
  const indexed = numberedEvents(agent, followIds(events, known), ids);
  const onError = errorEvent(known);
  return sseResponse(await firstEventFirst(indexed), onError, {
    finishInBackground: keepAlive(c) ?? (() => undefined),
    pingMs: c.env.ssePingMs,
  });
}

/** `/agents` and agent runs: list, run (SSE, JSON), get, list runs, cancel, continue, resume. */
export function agentRoutes(agents: Agent[], queue?: QueueConfig) {
  const app = routeApp();

  // Per-agent scopes filter the list instead of refusing it.
  handle(app, listAgents, (c) =>
    c.json(
      agents
        .filter((a) => hasScope(principalOf(c), "agents", "read", a.id))
        .map((a) => agentSummary(a, c.env.dbs[0]?.id)),
    ),
  );
  handle(app, getAgent, (c) =>
    c.json(agentSummary(agentFor(c, agents, c.req.valid("param").agent_id), c.env.dbs[0]?.id)),
  );

  handle(app, createRun, async (c) => {
    const agent = agentFor(c, agents, c.req.valid("param").agent_id);
    const body = bodyOf(c, runRequest);
    if (!body.message) throw new ValidationError("body message: required", "message");
    const opts = {
      sessionId: body.session_id,
      userId: effectiveUserId(c, body.user_id),
      sessionState: body.session_state,
      dependencies: body.dependencies,
      metadata: body.metadata,
      media: await mediaOf(body),
    };
    if (body.background) {
      const { job } = await enqueueBackgroundRun(
        c.env,
        queue,
        agent,
        { ...body, media: opts.media },
        { userId: opts.userId ?? null, idempotencyKey: c.req.header("idempotency-key") },
      );
      const accepted = {
        run_id: job.payload.run_id,
        session_id: job.session_id,
        status: runStatusOf(job),
        job_id: job.id,
      };
      if (body.stream === false) return c.json(accepted, 202);
      // Streamed as it runs, wherever the queue runs it: the same tail `/resume` serves.
      const { tail } = await openResume(
        agent.db!,
        agent,
        accepted.run_id,
        readScope(c, body.user_id),
        -1,
        c.req.raw.signal,
      );
      return sseResponse(
        tail,
        errorEvent({ run_id: accepted.run_id, session_id: job.session_id ?? undefined, agent_id: agent.id }),
        { pingMs: c.env.ssePingMs },
      );
    }
    if (body.stream === false) return c.json(await agent.run(body.message, opts));
    return streamRun(c, agent, agent.run(body.message, { ...opts, stream: true }), { sessionId: body.session_id });
  });

  handle(app, listRuns, async (c) => {
    const { agent, db } = storedAgent(c, agents, c.req.valid("param").agent_id);
    const q = c.req.valid("query");
    const page = await db.getRuns({
      agentId: agent.id,
      sessionId: q.session_id,
      ...readScope(c, q.user_id),
      limit: q.limit,
      page: q.page,
    });
    return c.json(page.data.map((r) => r.run_data));
  });

  handle(app, getRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const { agent, db } = storedAgent(c, agents, agent_id);
    const row = await db.getRun(run_id, readScope(c, c.req.valid("query").user_id));
    if (!row || row.agent_id !== agent.id) throw new NotFoundError(`run ${run_id} not found`);
    return c.json(row.run_data as unknown as RunOutput);
  });

  handle(app, cancelRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const agent = agentFor(c, agents, agent_id);
    const userId = effectiveUserId(c, c.req.valid("query").user_id);
    const cancelled = await agent.cancelRun(run_id, userId !== undefined ? { userId } : {});
    // A queued run's job is cancelled with it, so it never starts (the executor checks the run too).
    const job = cancelled && c.env.jobs ? await c.env.jobs.jobForRun(run_id) : null;
    if (job) await c.env.jobs!.cancelJob(job.id);
    return c.json({ run_id, cancelled });
  });

  handle(app, continueRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const agent = agentFor(c, agents, agent_id);
    const body = bodyOf(c, continueRequest);
    if (!body.tools && !body.requirements)
      throw new ValidationError("send the resolved `tools` (agno's ToolExecution list) or `requirements`", "tools");
    const resolutions = [
      ...(body.requirements ?? []),
      ...(body.tools ? resolutionsFromTools(body.tools as Array<Partial<ToolExecution>>) : []),
    ] as RequirementResolution[];
    const opts = {
      requirements: resolutions,
      userId: effectiveUserId(c, body.user_id),
      approver: { isAdmin: principalOf(c).admin },
    };
    if (body.stream === false) return c.json(await agent.continueRun(run_id, opts));
    return streamRun(c, agent, agent.continueRun(run_id, { ...opts, stream: true }), {
      runId: run_id,
      firstIndex: await continueIndex(agent, run_id),
    });
  });

  handle(app, resumeRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const { agent, db } = storedAgent(c, agents, agent_id);
    const body = c.req.header("content-type") ? bodyOf(c, resumeRequest) : {};
    const after = body.last_event_index ?? lastEventIdOf(c.req.header("last-event-id")) ?? -1;
    const { run, tail } = await openResume(
      db,
      agent,
      run_id,
      readScope(c, body.user_id),
      after,
      c.req.raw.signal,
      c.env.jobs,
    );
    return sseResponse(tail, errorEvent({ run_id, session_id: run.session_id, agent_id: agent.id }), {
      pingMs: c.env.ssePingMs,
    });
  });

  return app;
}
