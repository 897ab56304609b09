import { z } from "zod";
import type { ContinueOptions } from "../../agent/agent.js";
import type { RunEvent } from "../../agent/events.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { RunOutput, ToolExecution } from "../../agent/run-output.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { Team } from "../../team/team.js";
import type { ComponentRegistry } from "../../components/component-registry.js";
import { compositeLookup, storedCompositesFor } from "../stored-agents.js";
import { continuedEvents, resolutionsFromTools } from "../agent-runs.js";
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
import { defineRoute, handle, idSchema, routeApp } from "../route.js";
import { bodyOf, continueRequest, mediaOf, resumeRequest, runBody, runRequest } from "../run-input.js";
import { teamRunView } from "../session-view.js";
import { teamResponse } from "../team-response.js";
import { acceptedRunResponseSchema, cancelRunResponseSchema } from "../wire/agents.js";
import { teamRunSchema } from "../wire/sessions.js";
import {
  teamResponseSchema,
  teamRunCheckpointSnapshotSchema,
  teamRunOutputDict,
  teamRunOutputSchema,
} from "../wire/teams.js";
import { runTimelineRoutes } from "./run-timeline.js";
import { agnoErrorSchema } from "../wire/errors.js";
import { jobTraceparent, traceOf } from "../request-trace.js";

const tags: ["Teams"] = ["Teams"];
const readTeam = { resource: "teams", action: "read", idParam: "team_id" };
// As agno: reading a team's runs needs the run scope, like starting them.
const runTeam = { resource: "teams", action: "run", idParam: "team_id" };
const teamPath = z.object({ team_id: idSchema });
const runPath = z.object({ team_id: idSchema, run_id: idSchema });
const errors = (...statuses: Array<400 | 404 | 409 | 429 | 503>) => errorAnswers("team", ...statuses);

const listTeams = defineRoute({
  method: "get",
  path: "/teams",
  tags,
  summary: "The teams this AgentOS serves (those the caller may read), each as agno's TeamResponse",
  scope: { resource: "teams", action: "read", perItem: "filters the list" },
  responses: { 200: jsonOf(z.array(teamResponseSchema), "The teams") },
});
const getTeam = defineRoute({
  method: "get",
  path: "/teams/{team_id}",
  tags,
  summary: "One team's configuration and members (agno's TeamResponse)",
  scope: readTeam,
  request: { params: teamPath },
  responses: { 200: jsonOf(teamResponseSchema, "The team"), ...errors(404) },
});
const createRun = defineRoute({
  method: "post",
  path: "/teams/{team_id}/runs",
  tags,
  summary: "Run a team: an SSE stream of its events (stream=true, the default) or its TeamRunOutput as JSON",
  description:
    "Each SSE frame carries `id: <position>`; send it back to `/resume` as `last_event_index` to re-attach after a dropped connection.",
  scope: runTeam,
  request: { params: teamPath, body: runBody(runRequest) },
  responses: {
    200: runAnswer(teamRunOutputSchema, "TeamRunOutput (JSON, stream=false) or text/event-stream"),
    202: jsonOf(acceptedRunResponseSchema, "background=true, stream=false: accepted, to poll"),
    ...errors(400, 404, 409, 429, 503),
  },
});
const listRuns = defineRoute({
  method: "get",
  path: "/teams/{team_id}/runs",
  tags,
  summary: "The team's own runs in one session, in order (agno's TeamRunSchema), optionally of one status",
  scope: runTeam,
  request: {
    params: teamPath,
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
  responses: { 200: jsonOf(z.array(teamRunSchema), "The runs"), ...errors(404, 503) },
});
const getRun = defineRoute({
  method: "get",
  path: "/teams/{team_id}/runs/{run_id}",
  tags,
  summary: "One team run's TeamRunOutput (poll a background run with it)",
  scope: runTeam,
  request: { params: runPath, query: z.object({ session_id: idSchema.optional(), user_id: idSchema.optional() }) },
  responses: { 200: jsonOf(teamRunOutputSchema, "The run"), ...errors(404, 503) },
});
const cancelRun = defineRoute({
  method: "post",
  path: "/teams/{team_id}/runs/{run_id}/cancel",
  tags,
  summary: "Cancel a running team run, its running members with it (cooperatively, from any isolate)",
  scope: runTeam,
  request: { params: runPath, query: z.object({ user_id: idSchema.optional() }) },
  responses: { 200: jsonOf(cancelRunResponseSchema, "The cancel was recorded"), ...errors(404, 503) },
});
const continueRun = defineRoute({
  method: "post",
  path: "/teams/{team_id}/runs/{run_id}/continue",
  tags,
  summary:
    "Continue a team run paused by its members (their resolved requirements, human in the loop), or a finished one with a follow-up",
  scope: runTeam,
  request: { params: runPath, body: runBody(continueRequest) },
  responses: {
    200: runAnswer(teamRunOutputSchema, "The continued run's TeamRunOutput (JSON, stream=false) or text/event-stream"),
    ...errors(400, 404, 409, 503),
  },
});
const resumeRun = defineRoute({
  method: "post",
  path: "/teams/{team_id}/runs/{run_id}/resume",
  tags,
  summary: "Re-attach to a streamed team run: its stored events after `last_event_index`, then the live ones",
  description:
    "Works from any isolate: events are read from the database. `Last-Event-ID` is accepted in place of `last_event_index`.",
  scope: runTeam,
  request: { params: runPath, body: runBody(resumeRequest) },
  responses: {
    200: { description: "text/event-stream", content: { "text/event-stream": {} } },
    ...errors(404, 503),
    409: jsonOf(agnoErrorSchema, "The run was not streamed (read it with GET instead)"),
  },
});

/** `/teams` and team runs: list, detail, run (SSE, JSON, background), get, list runs, cancel, continue, resume; fork, checkpoints. */
export function teamRoutes(teams: Team[], queue?: QueueConfig, registry?: ComponentRegistry) {
  const app = routeApp();

  // Code-defined teams, then the published stored ones (components as data) the caller may see.
  handle(app, listTeams, async (c) =>
    c.json(
      [...teams, ...(registry ? await storedCompositesFor(c, registry, "team") : [])]
        .filter((t) => hasScope(principalOf(c), "teams", "read", t.id))
        .map((t) => teamResponse(t, c.env.dbs[0] ?? t.db)),
    ),
  );
  const lookup = compositeLookup("team", teams, registry);
  handle(app, getTeam, async (c) => {
    const { component: team } = await lookup.any(c, c.req.valid("param").team_id);
    return c.json(teamResponse(team, team.db));
  });

  handle(app, createRun, async (c) => {
    const body = bodyOf(c, runRequest);
    const { component: team, version } = await lookup.any(c, c.req.valid("param").team_id, body.version);
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
        team,
        { ...body, media: opts.media, component_version: version },
        {
          userId: opts.userId ?? null,
          idempotencyKey: c.req.header("idempotency-key"),
          traceparent: jobTraceparent(c, team.ref),
        },
      );
      return acceptedOrTail(c, team, job, runStatusOf(job), body.stream, body.user_id);
    }
    if (body.stream === false) return c.json(teamRunOutputDict(await team.run(body.message, opts)));
    return streamComponentRun(c, team, team.run(body.message, { ...opts, stream: true }), {
      sessionId: body.session_id,
    });
  });

  handle(app, listRuns, async (c) => {
    const { component: team, db } = await lookup.withDb(c, c.req.valid("param").team_id);
    const q = c.req.valid("query");
    const session = await db.getSession(q.session_id, readScope(c, q.user_id));
    if (!session || session.record.session_type !== "team" || session.record.team_id !== team.id)
      throw new NotFoundError(`session ${q.session_id} not found`);
    // A team session also holds its members' runs: only the team's own are listed, as agno does.
    const runs = session.runs.filter(
      (r) => r.team_id === team.id && !r.agent_id && (!q.status || r.status === q.status),
    );
    return c.json(runs.map((r) => teamRunView(r)));
  });

  handle(app, getRun, async (c) => {
    const { team_id, run_id } = c.req.valid("param");
    const { component: team, db } = await lookup.withDb(c, team_id);
    const q = c.req.valid("query");
    return c.json(
      teamRunOutputDict(await readComponentRun(db, team.ref, run_id, readScope(c, q.user_id), q.session_id)),
    );
  });

  handle(app, cancelRun, async (c) => {
    const { team_id, run_id } = c.req.valid("param");
    const { component: team } = await lookup.any(c, team_id);
    return c.json(await cancelComponentRun(c, team, run_id, c.req.valid("query").user_id));
  });

  handle(app, continueRun, async (c) => {
    const { team_id, run_id } = c.req.valid("param");
    // A stored team's paused run goes on with its current published version, as agno loads it by id.
    const { component: team } = await lookup.any(c, team_id);
    const body = bodyOf(c, continueRequest);
    const resolutions = [
      ...(body.requirements ?? []),
      ...(body.tools ? resolutionsFromTools(body.tools as Array<Partial<ToolExecution>>) : []),
    ] as RequirementResolution[];
    const opts: ContinueOptions = {
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
    // The run must be this team's, the caller's, and of the session named (agno continues in the session it names).
    if (team.db) await readComponentRun(team.db, team.ref, run_id, readScope(c, body.user_id), body.session_id);
    const go = (runId: string, o: ContinueOptions) => team.continueRun(runId, o);
    if (body.stream === false)
      return c.json(teamRunOutputDict(await (go(run_id, { ...opts, stream: false }) as Promise<RunOutput>)));
    const source = go(run_id, { ...opts, stream: true }) as AsyncIterable<RunEvent>;
    const { events, ids } = await continuedEvents(team, run_id, source);
    return streamComponentRun(c, team, events, ids);
  });

  handle(app, resumeRun, (c) => {
    const { team_id, run_id } = c.req.valid("param");
    return resumeComponentRun(c, "team", teams, team_id, run_id);
  });

  app.route(
    "/",
    runTimelineRoutes("team", teams, { snapshotSchema: teamRunCheckpointSnapshotSchema, toDict: teamRunOutputDict }),
  );

  return app;
}
