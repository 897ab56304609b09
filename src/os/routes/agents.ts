import { Hono, type Context } from "hono";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { RunEvent } from "../../agent/events.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { RunOutput, ToolExecution } from "../../agent/run-output.js";
import { BadRequestError, NotConfiguredError, NotFoundError, ValidationError } from "../../errors.js";
import { nowSeconds } from "../../models/message.js";
import type { OSEnv } from "../context.js";
import { parseInput } from "../params.js";
import { boolField, jsonField, readRunInput } from "../run-input.js";
import { sseResponse } from "../sse.js";
import { effectiveUserId, hasScope, principalOf, readScope, requireScope } from "../auth/scopes.js";

const id = z.string().min(1).max(255);
const runBody = z.object({
  message: z.string().min(1).max(100_000),
  session_id: id.optional(),
  user_id: id.optional(),
  session_state: z.record(z.string(), z.unknown()).optional(),
  dependencies: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
const resolutionList = z.array(z.record(z.string(), z.unknown())).max(100);

/** The agent a request names, bound to this request's database. */
function agentFor(c: Context<OSEnv>, agents: Agent[]): Agent {
  const agent = agents.find((a) => a.id === c.req.param("agent_id"));
  if (!agent) throw new NotFoundError(`agent ${c.req.param("agent_id")} not found`);
  const db = c.env.dbs[0];
  return db ? agent.withDb(db) : agent;
}

function agentSummary(agent: Agent, dbId: string | undefined) {
  return { id: agent.id, name: agent.name ?? agent.id, description: agent.description ?? null, db_id: dbId ?? null, model: { id: agent.model.id, provider: agent.model.provider }, metadata: null };
}

/**
 * agno's `tools` list (full ToolExecution dicts, as its client sends them on continue) turned
 * into requirement resolutions: confirmed or not, user input from the schema's values, or the
 * result of an external execution.
 */
function resolutionsFromTools(tools: Array<Partial<ToolExecution>>): RequirementResolution[] {
  return tools.flatMap((t): RequirementResolution[] => {
    if (!t.tool_call_id) return [];
    if (t.requires_confirmation) return [{ id: t.tool_call_id, confirmed: t.confirmed === true, confirmation_note: t.confirmation_note ?? undefined }];
    if (t.requires_user_input) {
      const input = Object.fromEntries((t.user_input_schema ?? []).filter((f) => f.value !== undefined && f.value !== null).map((f) => [f.name, f.value]));
      return [{ id: t.tool_call_id, user_input: input }];
    }
    if (t.external_execution_required && typeof t.result === "string") return [{ id: t.tool_call_id, external_execution_result: t.result }];
    return [];
  });
}

function errorEvent(output: { run_id?: string; session_id?: string; agent_id: string }) {
  return (error: unknown): RunEvent => ({
    event: "RunError",
    run_id: output.run_id ?? "",
    session_id: output.session_id ?? "",
    agent_id: output.agent_id,
    created_at: nowSeconds(),
    content: error instanceof Error ? error.message : String(error),
    error_type: error instanceof Error ? error.name : "Error",
  });
}

/**
 * Pulls the first event before the response is committed: loading and validation (an unknown
 * run, another user's session) happen before it, so they answer a 4xx instead of a RunError
 * inside a 200 stream.
 */
async function firstEventFirst<E>(events: AsyncIterable<E>): Promise<AsyncIterable<E>> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value;
  })();
}

function keepAlive(c: Context<OSEnv>) {
  try {
    const ctx = c.executionCtx;
    return (work: Promise<unknown>) => ctx.waitUntil(work);
  } catch {
    return undefined; // no execution context (plain Node use): the work simply runs on
  }
}

/** `/agents` and agent runs: list, run (SSE, JSON), get, list runs, cancel, continue. */
export function agentRoutes(agents: Agent[]) {
  const app = new Hono<OSEnv>();

  // Per-agent scopes filter the list instead of refusing it.
  app.get("/agents", (c) => c.json(agents.filter((a) => hasScope(principalOf(c), "agents", "read", a.id)).map((a) => agentSummary(a, c.env.dbs[0]?.id))));
  app.get("/agents/:agent_id", requireScope("agents", "read", "agent_id"), (c) => c.json(agentSummary(agentFor(c, agents), c.env.dbs[0]?.id)));

  app.post("/agents/:agent_id/runs", requireScope("agents", "run", "agent_id"), async (c) => {
    const agent = agentFor(c, agents);
    const input = await readRunInput(c);
    const body = parseInput(
      runBody,
      { ...input, session_state: jsonField(input, "session_state"), dependencies: jsonField(input, "dependencies"), metadata: jsonField(input, "metadata") },
      "body",
    );
    const stream = boolField(input, "stream", true);
    if (boolField(input, "background", false)) throw new BadRequestError("background runs need the durable queue (QueueConfig), which this deployment does not have yet");
    const opts = {
      sessionId: body.session_id,
      userId: effectiveUserId(c, body.user_id),
      sessionState: body.session_state,
      dependencies: body.dependencies,
      metadata: body.metadata,
    };
    if (!stream) return c.json(await agent.run(body.message, opts));
    const events = await firstEventFirst(agent.run(body.message, { ...opts, stream: true }));
    return sseResponse(events, errorEvent({ session_id: body.session_id, agent_id: agent.id }), keepAlive(c));
  });

  app.get("/agents/:agent_id/runs", requireScope("agents", "read", "agent_id"), async (c) => {
    const agent = agentFor(c, agents);
    if (!agent.db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
    const q = parseInput(z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), page: z.coerce.number().int().min(1).default(1), session_id: id.optional(), user_id: id.optional() }), c.req.query(), "query");
    const page = await agent.db.getRuns({ agentId: agent.id, sessionId: q.session_id, ...readScope(c, q.user_id), limit: q.limit, page: q.page });
    return c.json(page.data.map((r) => r.run_data));
  });

  app.get("/agents/:agent_id/runs/:run_id", requireScope("agents", "read", "agent_id"), async (c) => {
    const agent = agentFor(c, agents);
    if (!agent.db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
    const row = await agent.db.getRun(parseInput(id, c.req.param("run_id"), "path run_id"), readScope(c, c.req.query("user_id")));
    if (!row || row.agent_id !== agent.id) throw new NotFoundError(`run ${c.req.param("run_id")} not found`);
    return c.json(row.run_data as unknown as RunOutput);
  });

  app.post("/agents/:agent_id/runs/:run_id/cancel", requireScope("agents", "run", "agent_id"), async (c) => {
    const agent = agentFor(c, agents);
    const userId = effectiveUserId(c, c.req.query("user_id"));
    const cancelled = await agent.cancelRun(parseInput(id, c.req.param("run_id"), "path run_id"), userId !== undefined ? { userId } : {});
    return c.json({ run_id: c.req.param("run_id"), cancelled });
  });

  app.post("/agents/:agent_id/runs/:run_id/continue", requireScope("agents", "run", "agent_id"), async (c) => {
    const agent = agentFor(c, agents);
    const runId = parseInput(id, c.req.param("run_id"), "path run_id");
    const input = await readRunInput(c);
    const tools = input.tools === undefined ? undefined : parseInput(resolutionList, jsonField(input, "tools"), "body tools");
    const requirements = input.requirements === undefined ? undefined : parseInput(resolutionList, jsonField(input, "requirements"), "body requirements");
    if (!tools && !requirements) throw new ValidationError("send the resolved `tools` (agno's ToolExecution list) or `requirements`", "tools");
    const resolutions = [...(requirements ?? []), ...(tools ? resolutionsFromTools(tools as Array<Partial<ToolExecution>>) : [])] as RequirementResolution[];
    const userId = effectiveUserId(c, typeof input.user_id === "string" ? input.user_id : undefined);
    const opts = { requirements: resolutions, userId, approver: { isAdmin: principalOf(c).admin } };
    if (!boolField(input, "stream", true)) return c.json(await agent.continueRun(runId, opts));
    const events = await firstEventFirst(agent.continueRun(runId, { ...opts, stream: true }));
    return sseResponse(events, errorEvent({ run_id: runId, agent_id: agent.id }), keepAlive(c));
  });

  return app;
}
