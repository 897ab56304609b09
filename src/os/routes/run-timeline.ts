import { z } from "zod";
import type { RunOutput } from "../../agent/run-output.js";
import { storedComponent, type Served } from "../agent-runs.js";
import { effectiveUserId, readScope } from "../auth/scopes.js";
import { errorAnswers, jsonOf, readComponentRun } from "../component-runs.js";
import { defineRoute, handle, idSchema, routeApp, type RouteContext } from "../route.js";
import { runCheckpoints, runCheckpointSnapshot } from "../run-views.js";
import { forkSession } from "../session-fork.js";
import { forkSessionResponseSchema, runCheckpointsResponseSchema } from "../wire/agents.js";

/** How one kind of component writes its run: agno's run model (the snapshot's) and the dict of a stored run. */
export interface RunModel {
  snapshotSchema: z.ZodType;
  toDict: (run: object) => Record<string, unknown>;
}

/**
 * The routes of a session's timeline, the same for agents and teams as in agno: fork a session,
 * list a run's checkpoints, read the run cut at one. Reading them needs the run scope, as agno's.
 */
export function runTimelineRoutes<T extends Served<T>>(kind: "agent" | "team", list: readonly T[], model: RunModel) {
  const app = routeApp();
  const idParam = `${kind}_id`;
  const base = `/${kind}s/{${idParam}}`;
  const tags: [string] = [kind === "agent" ? "Agents" : "Teams"];
  const scope = { resource: `${kind}s`, action: "run", idParam };
  const errors = (...statuses: Array<400 | 404 | 503>) => errorAnswers(kind, ...statuses);
  const runPath = z.object({ [idParam]: idSchema, run_id: idSchema });
  const sessionRunQuery = z.object({ session_id: idSchema, user_id: idSchema.optional() });

  const forkRoute = defineRoute({
    method: "post",
    path: `${base}/sessions/{session_id}/fork`,
    tags,
    summary: "Copy a session, every run under a new id, into a new session that can go another way",
    scope,
    request: {
      params: z.object({ [idParam]: idSchema, session_id: idSchema }),
      query: z.object({ user_id: idSchema.optional() }),
    },
    responses: { 200: jsonOf(forkSessionResponseSchema, "The new session"), ...errors(400, 404, 503) },
  });
  const listRoute = defineRoute({
    method: "get",
    path: `${base}/runs/{run_id}/checkpoints`,
    tags,
    summary: "The boundaries a run can be continued from (send one's `continue_from` to /continue)",
    scope,
    request: { params: runPath, query: sessionRunQuery },
    responses: { 200: jsonOf(runCheckpointsResponseSchema, "The run's checkpoints"), ...errors(404, 503) },
  });
  const snapshotRoute = defineRoute({
    method: "get",
    path: `${base}/runs/{run_id}/checkpoints/{message_index}`,
    tags,
    summary: "The run as it stood at a message boundary (derived; the stored run is unchanged)",
    scope,
    request: {
      params: runPath.extend({ message_index: z.coerce.number().int().min(0).max(1_000_000) }),
      query: sessionRunQuery,
    },
    responses: {
      200: jsonOf(model.snapshotSchema, "The boundary and the run cut there"),
      ...errors(400, 404, 503),
    },
  });

  /** The run the request names: this component's, the caller's, in the session named; else 404. */
  const namedRun = async (c: RouteContext<typeof listRoute>) => {
    const param = c.req.valid("param") as Record<string, string>;
    const { component, db } = storedComponent(c, kind, list, param[idParam]!);
    const q = c.req.valid("query");
    const run = await readComponentRun(db, component.ref, param.run_id!, readScope(c, q.user_id), q.session_id);
    return { run: run as unknown as RunOutput, runId: param.run_id!, sessionId: q.session_id };
  };

  handle(app, forkRoute, async (c) => {
    const param = c.req.valid("param") as Record<string, string>;
    const { component, db } = storedComponent(c, kind, list, param[idParam]!);
    const userId = c.req.valid("query").user_id;
    const read = readScope(c, userId);
    return c.json(await forkSession(db, component.ref, param.session_id!, read, effectiveUserId(c, userId)));
  });
  handle(app, listRoute, async (c) => {
    const { run, runId, sessionId } = await namedRun(c);
    return c.json({ run_id: runId, session_id: sessionId, checkpoints: runCheckpoints(run) });
  });
  handle(app, snapshotRoute, async (c) => {
    const { run } = await namedRun(c as never);
    const index = (c.req.valid("param") as unknown as { message_index: number }).message_index;
    return c.json(runCheckpointSnapshot(run, index, model.toDict));
  });
  return app;
}
