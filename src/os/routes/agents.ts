import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { RunOutput, ToolExecution } from "../../agent/run-output.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import type { Db } from "../../db/port.js";
import type { Context } from "hono";
import type { ComponentRegistry } from "../../components/component-registry.js";
import type { OSEnv } from "../context.js";
import { storedAgentFor, storedAgentsFor } from "../stored-agents.js";
import { agentFor, continuedEvents, resolutionsFromTools, storedAgent } from "../agent-runs.js";
import { effectiveUserId, hasScope, principalOf, readScope } from "../auth/scopes.js";
import { defineRoute, handle, idSchema, routeApp } from "../route.js";
import { bodyOf, continueRequest, mediaOf, resumeRequest, runBody, runRequest } from "../run-input.js";
import { enqueueBackgroundRun, runStatusOf, type QueueConfig } from "../background.js";
import { agentResponse } from "../agent-response.js";
import { runSchemaOf } from "../run-views.js";
import { runTimelineRoutes } from "./run-timeline.js";
import {
  acceptedRunResponseSchema,
  agentResponseSchema,
  cancelRunResponseSchema,
  runCheckpointSnapshotSchema,
} from "../wire/agents.js";
import { agnoErrorSchema } from "../wire/errors.js";
import {
  acceptedOrTail,
  cancelComponentRun,
  errorAnswers,
  jsonOf,
  readComponentRun,
  resumeComponentRun,
  runAnswer as componentRunAnswer,
  streamComponentRun,
} from "../component-runs.js";
import { runOutputDict, runOutputSchema } from "../wire/run-output.js";
import { runSchema } from "../wire/sessions.js";
import { jobTraceparent, traceOf } from "../request-trace.js";

const tags: ["Agents"] = ["Agents"];
const readAgent = { resource: "agents", action: "read", idParam: "agent_id" };
// As agno: reading runs (listing, polling, checkpoints) needs the run scope, like starting them.
const runAgent = { resource: "agents", action: "run", idParam: "agent_id" };
const agentPath = z.object({ agent_id: idSchema });
const runPath = z.object({ agent_id: idSchema, run_id: idSchema });
const userQuery = z.object({ user_id: idSchema.optional() });
/** agno names the session of the run (required by agno; here it is checked when given) */
const runQuery = z.object({ session_id: idSchema.optional(), user_id: idSchema.optional() });

const errors = (...statuses: Array<400 | 404 | 409 | 429 | 503>) => errorAnswers("agent", ...statuses);
const runAnswer = (description: string) => componentRunAnswer(runOutputSchema, description);

const listAgents = defineRoute({
  method: "get",
  path: "/agents",
  tags,
  summary: "The agents this AgentOS serves (those the caller may read), each as agno's AgentResponse",
  scope: { resource: "agents", action: "read", perItem: "filters the list" },
  responses: { 200: jsonOf(z.array(agentResponseSchema), "The agents") },
});
const getAgent = defineRoute({
  method: "get",
  path: "/agents/{agent_id}",
  tags,
  summary: "One agent's configuration (agno's AgentResponse)",
  scope: readAgent,
  request: { params: agentPath },
  responses: { 200: jsonOf(agentResponseSchema, "The agent"), ...errors(404) },
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
  responses: {
    200: runAnswer("RunOutput (JSON, stream=false) or text/event-stream"),
    202: jsonOf(acceptedRunResponseSchema, "background=true, stream=false: accepted, to poll"),
    ...errors(400, 404, 409, 429, 503),
  },
});
const listRuns = defineRoute({
  method: "get",
  path: "/agents/{agent_id}/runs",
  tags,
  summary: "The agent's runs in one session, in order (agno's RunSchema), optionally of one status",
  scope: runAgent,
  request: {
    params: agentPath,
    query: z.object({
      session_id: idSchema,
      status: z
        .string()
        .max(32)
        .optional()
        .describe("Only runs of this status (PENDING, RUNNING, COMPLETED, ERROR, …)"),
      user_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonOf(z.array(runSchema), "The runs"), ...errors(404, 503) },
});
const getRun = defineRoute({
  method: "get",
  path: "/agents/{agent_id}/runs/{run_id}",
  tags,
  summary: "One run's RunOutput (poll a background run with it)",
  scope: runAgent,
  request: { params: runPath, query: runQuery },
  responses: { 200: jsonOf(runOutputSchema, "The run"), ...errors(404, 503) },
});
const cancelRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs/{run_id}/cancel",
  tags,
  summary: "Cancel a running run (cooperatively, from any isolate)",
  scope: runAgent,
  request: { params: runPath, query: userQuery },
  responses: { 200: jsonOf(cancelRunResponseSchema, "The cancel was recorded"), ...errors(404, 503) },
});
const continueRun = defineRoute({
  method: "post",
  path: "/agents/{agent_id}/runs/{run_id}/continue",
  tags,
  summary:
    "Continue a run: a paused one with its resolved requirements (human in the loop), any other with a follow-up, from a checkpoint, forked or regenerated",
  scope: runAgent,
  request: { params: runPath, body: runBody(continueRequest) },
  responses: {
    200: runAnswer("The continued run's RunOutput (JSON, stream=false) or text/event-stream"),
    ...errors(400, 404, 409, 503),
  },
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
    200: { description: "text/event-stream", content: { "text/event-stream": {} } },
    ...errors(404, 503),
    409: jsonOf(agnoErrorSchema, "The run was not streamed (read it with GET instead)"),
  },
});
/** The stored run `runId` of this agent, readable by the caller and (when named) in `sessionId`; else 404. */
async function readRun(
  db: Db,
  agent: Agent,
  runId: string,
  scope: { userId?: string; includeShared?: boolean },
  sessionId?: string,
): Promise<RunOutput> {
  return (await readComponentRun(db, agent.ref, runId, scope, sessionId)) as unknown as RunOutput;
}

/** `/agents` and agent runs: list, run (SSE, JSON), get, list runs, cancel, continue, resume; fork, checkpoints. */
export function agentRoutes(agents: Agent[], queue?: QueueConfig, registry?: ComponentRegistry) {
  const app = routeApp();

  // Per-agent scopes filter the list instead of refusing it.
  // Code-defined agents, then the published stored ones (components as data) the caller may see.
  handle(app, listAgents, async (c) =>
    c.json(
      [...agents, ...(registry ? await storedAgentsFor(c, registry) : [])]
        .filter((a) => hasScope(principalOf(c), "agents", "read", a.id))
        .map((a) => agentResponse(a, c.env.dbs[0] ?? a.db)),
    ),
  );
  /**
   * A code-defined agent, else a stored one (its current config, or `version`) with the version it
   * was built from: a background run pins it, so the queue runs the config this request resolved.
   */
  const anyAgent = async (
    c: Context<OSEnv>,
    agentId: string,
    version?: number,
  ): Promise<{ agent: Agent; version?: number }> =>
    registry && !agents.some((a) => a.id === agentId)
      ? storedAgentFor(c, registry, agentId, version)
      : { agent: agentFor(c, agents, agentId) };
  /** `anyAgent` for routes that read storage: a stored agent's runs are read as a code-defined one's are. */
  const agentWithDb = async (c: Context<OSEnv>, agentId: string) => {
    if (!registry || agents.some((a) => a.id === agentId)) return storedAgent(c, agents, agentId);
    const { agent } = await storedAgentFor(c, registry, agentId);
    return { agent, db: agent.db! };
  };
  handle(app, getAgent, async (c) => {
    const { agent } = await anyAgent(c, c.req.valid("param").agent_id);
    return c.json(agentResponse(agent, agent.db));
  });

  handle(app, createRun, async (c) => {
    const body = bodyOf(c, runRequest);
    const { agent, version } = await anyAgent(c, c.req.valid("param").agent_id, body.version);
    if (!body.message) throw new ValidationError("body message: required", "message");
    const opts = {
      sessionId: body.session_id,
      userId: effectiveUserId(c, body.user_id),
      sessionState: body.session_state,
      dependencies: body.dependencies,
      metadata: body.metadata,
      media: await mediaOf(body),
      ...traceOf(c),
    };
    if (body.background) {
      const { job } = await enqueueBackgroundRun(
        c.env,
        queue,
        agent,
        { ...body, media: opts.media, component_version: version },
        {
          userId: opts.userId ?? null,
          idempotencyKey: c.req.header("idempotency-key"),
          traceparent: jobTraceparent(c, agent.ref),
        },
      );
      // stream=true: streamed as it runs, wherever the queue runs it (the same tail `/resume` serves).
      return acceptedOrTail(c, agent, job, runStatusOf(job), body.stream, body.user_id);
    }
    if (body.stream === false) return c.json(runOutputDict(await agent.run(body.message, opts)));
    return streamComponentRun(c, agent, agent.run(body.message, { ...opts, stream: true }), {
      sessionId: body.session_id,
    });
  });

  handle(app, listRuns, async (c) => {
    const { agent, db } = await agentWithDb(c, c.req.valid("param").agent_id);
    const q = c.req.valid("query");
    const session = await db.getSession(q.session_id, readScope(c, q.user_id));
    // The session must be this agent's own: a team's or workflow's holds member runs of agents too.
    if (!session || session.record.session_type !== "agent" || session.record.agent_id !== agent.id)
      throw new NotFoundError(`session ${q.session_id} not found`);
    const runs = session.runs.filter((r) => r.agent_id === agent.id && (!q.status || r.status === q.status));
    return c.json(runs.map(runSchemaOf));
  });

  handle(app, getRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const { agent, db } = await agentWithDb(c, agent_id);
    const q = c.req.valid("query");
    return c.json(runOutputDict(await readRun(db, agent, run_id, readScope(c, q.user_id), q.session_id)));
  });

  handle(app, cancelRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    const { agent } = await anyAgent(c, agent_id);
    // A queued run's job is cancelled with it, so it never starts (the executor checks the run too).
    return c.json(await cancelComponentRun(c, agent, run_id, c.req.valid("query").user_id));
  });

  handle(app, continueRun, async (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    // A stored agent's paused run goes on with its current published version, as agno loads it by id.
    const { agent } = await anyAgent(c, agent_id);
    const body = bodyOf(c, continueRequest);
    const resolutions = [
      ...(body.requirements ?? []),
      ...(body.tools ? resolutionsFromTools(body.tools as Array<Partial<ToolExecution>>) : []),
    ] as RequirementResolution[];
    const opts = {
      requirements: resolutions,
      userId: effectiveUserId(c, body.user_id),
      approver: { isAdmin: principalOf(c).admin },
      timeline: {
        input: body.input,
        continueFrom: body.continue_from,
        fork: body.fork,
        regenerate: body.regenerate,
        replaceOriginal: body.replace_original,
        additionalInstructions: body.additional_instructions,
      },
      ...traceOf(c),
    };
    if (body.session_id !== undefined && agent.db) {
      // agno continues a run of the session it names: a run of another session is not found there.
      await readRun(agent.db, agent, run_id, readScope(c, body.user_id), body.session_id);
    }
    if (body.stream === false) return c.json(runOutputDict(await agent.continueRun(run_id, opts)));
    const { events, ids } = await continuedEvents(agent, run_id, agent.continueRun(run_id, { ...opts, stream: true }));
    return streamComponentRun(c, agent, events, ids);
  });

  handle(app, resumeRun, (c) => {
    const { agent_id, run_id } = c.req.valid("param");
    return resumeComponentRun(c, "agent", agents, agent_id, run_id);
  });

  app.route(
    "/",
    runTimelineRoutes("agent", agents, { snapshotSchema: runCheckpointSnapshotSchema, toDict: runOutputDict }),
  );
  return app;
}
