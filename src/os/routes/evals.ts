import type { Context } from "hono";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { Db, EvalType } from "../../db/port.js";
import { EVAL_SORT_COLUMNS, EVAL_TYPES } from "../../db/ports/eval-store.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import { BadRequestError, NotConfiguredError, NotFoundError, ValidationError } from "../../errors.js";
import { evalRunInputSchema, type EvalRunInput } from "../../evals/eval-run-input.js";
import { evalComponents, prepareEval, runPreparedEval } from "../../evals/run-eval-input.js";
import { evalJobInput } from "../../queue/eval-job.js";
import type { Team } from "../../team/team.js";
import { jobQueueLimits, runStatusOf, type QueueConfig } from "../background.js";
import { principalOf, scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import { acceptedRunResponseSchema } from "../wire/agents.js";
import { evalSchema, evalView, paginatedEvalsSchema } from "../wire/evals.js";
import { paginationInfo } from "../wire/paginated.js";
import { dbFor } from "./sessions.js";

const tags: ["Evals"] = ["Evals"];
/** Which database and table an eval route uses (agno's `db_id` and `table`). */
const where = { db_id: idSchema.optional(), table: idSchema.optional() };
const runPath = z.object({ eval_run_id: idSchema });
const notFound = { 404: jsonAnswer(errorSchema, "No such eval run for the caller") };

const listEvalRuns = defineRoute({
  method: "get",
  path: "/eval-runs",
  tags,
  summary: "List evaluation runs: filtered by agent, team, workflow, model or type, sorted and paged",
  scope: { resource: "evals", action: "read" },
  request: {
    query: z.object({
      agent_id: idSchema.optional(),
      team_id: idSchema.optional(),
      workflow_id: idSchema.optional(),
      model_id: idSchema.optional(),
      type: z.enum(["agent", "team", "workflow"]).optional().describe("Only runs of an agent, a team or a workflow"),
      eval_types: z
        .string()
        .max(200)
        .optional()
        .describe("Comma-separated eval types (accuracy,agent_as_judge,performance,reliability)"),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z.enum(EVAL_SORT_COLUMNS).default("created_at"),
      sort_order: z.enum(["asc", "desc"]).default("desc"),
      ...where,
    }),
  },
  responses: { 200: jsonAnswer(paginatedEvalsSchema, "A page of evaluation runs"), ...notFound },
});

const getEvalRun = defineRoute({
  method: "get",
  path: "/eval-runs/{eval_run_id}",
  tags,
  summary: "One evaluation run, with its results",
  scope: { resource: "evals", action: "read" },
  request: { params: runPath, query: z.object(where) },
  responses: { 200: jsonAnswer(evalSchema, "The evaluation run"), ...notFound },
});

const deleteEvalRuns = defineRoute({
  method: "delete",
  path: "/eval-runs",
  tags,
  summary: "Delete evaluation runs by id",
  description: "As in agno, ids that name no run of the caller's are passed over: the answer is 204 either way.",
  scope: { resource: "evals", action: "delete" },
  request: {
    query: z.object(where),
    body: jsonBody(z.object({ eval_run_ids: z.array(idSchema).min(1).max(1000) }).strict()),
  },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

const updateEvalRun = defineRoute({
  method: "patch",
  path: "/eval-runs/{eval_run_id}",
  tags,
  summary: "Rename an evaluation run",
  scope: { resource: "evals", action: "write" },
  request: {
    params: runPath,
    query: z.object(where),
    body: jsonBody(z.object({ name: z.string().min(1).max(255) }).strict()),
  },
  responses: { 200: jsonAnswer(evalSchema, "The renamed evaluation run"), ...notFound },
});

const runEval = defineRoute({
  method: "post",
  path: "/eval-runs",
  tags,
  summary: "Run an evaluation against a served agent or team, and store it as a run of its own",
  description:
    "Exactly one of `agent_id` and `team_id`. As in agno, `model_provider` with `model_id` naming another model than the component's runs a copy of the component on that model, judged (accuracy, agent_as_judge) by the component's own model; without them the component's own model judges. `background=true` (beyond agno) checks the request as the foreground one does, queues the eval on the durable queue and answers 202 with the job, whose id is the eval run's id: the run is readable once the job has completed.",
  scope: { resource: "evals", action: "write" },
  request: {
    query: z.object({
      ...where,
      background: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true")
        .describe("Run on the durable queue and answer 202 at once (beyond agno)"),
    }),
    body: jsonBody(evalRunInputSchema),
  },
  responses: {
    200: jsonAnswer(evalSchema, "The evaluation run"),
    202: jsonAnswer(acceptedRunResponseSchema, "background=true: queued; `run_id` and `job_id` are the eval run's id"),
    400: jsonAnswer(
      errorSchema,
      "Not one of agent_id and team_id, a field the eval type needs is missing, a model that cannot be made, or background=true without the durable queue",
    ),
    404: jsonAnswer(errorSchema, "No such agent or team"),
    429: jsonAnswer(errorSchema, "background=true: the queue, or the caller's share of it, is full"),
    503: jsonAnswer(errorSchema, "background=true on a host without the job queue binding"),
  },
});

/** The name of a database's eval table (what `?table=` must name). */
export function evalTableOf(db: Db): string {
  return (db as Partial<{ names: TableNames }>).names?.evals ?? DEFAULT_TABLE_NAMES.evals;
}

/** The database a request names, holding the eval table it names (agno's `db_id` and `table`). */
function evalDb(c: Context<OSEnv>, q: { db_id?: string; table?: string }): Db {
  const db = dbFor(c, q.db_id);
  if (q.table !== undefined && q.table !== evalTableOf(db)) throw new NotFoundError(`table ${q.table} not found`);
  return db;
}

/** agno's parse_eval_types_filter: comma-separated, each one of agno's types (else 422). */
function evalTypesOf(raw: string | undefined): EvalType[] | undefined {
  if (!raw) return undefined;
  const types = raw.split(",").map((t) => t.trim());
  for (const t of types)
    if (!EVAL_TYPES.includes(t as EvalType))
      throw new ValidationError(`Invalid eval_type ${t}. Valid types: ${EVAL_TYPES.join(", ")}`, "eval_types");
  return types as EvalType[];
}

/**
 * Queues an eval (checked already) as an `eval_run` job of `owner`'s and wakes the queue. The job
 * runs in the queue's database (the first), so a request naming another is refused.
 */
async function enqueueEval(
  c: Context<OSEnv>,
  queue: QueueConfig | undefined,
  db: Db,
  input: EvalRunInput,
  owner: string | null,
) {
  const { jobs, queue: dispatcher } = c.env;
  if (!queue?.durable)
    throw new BadRequestError("background evals need the durable queue: new AgentOS({ queue: { durable: true } })");
  if (!jobs || !dispatcher) throw new NotConfiguredError("this host has no job queue binding (JOB_QUEUE)");
  if (db !== c.env.dbs[0])
    throw new BadRequestError("a background eval is stored in the queue's database: leave db_id unset, or name it");
  const { job, created } = await jobs.enqueueJob(evalJobInput(input, { userId: owner, ...jobQueueLimits(queue) }));
  if (created) await dispatcher.wake();
  return job;
}

/**
 * agno's `/eval-runs` routes. With user isolation a non-admin reads, renames and deletes only
 * their own runs (another's read as missing), and every run is stamped with its creator, as
 * agno's router does with get_scoped_user_id.
 */
export function evalRoutes(agents: readonly Agent[], teams: readonly Team[], queue?: QueueConfig) {
  const app = routeApp();
  const components = evalComponents((ref) =>
    ref.type === "agent" ? agents.find((a) => a.id === ref.id) : teams.find((t) => t.id === ref.id),
  );

  handle(app, listEvalRuns, async (c) => {
    const q = c.req.valid("query");
    const page = await evalDb(c, q).evals.list({
      agentId: q.agent_id,
      teamId: q.team_id,
      workflowId: q.workflow_id,
      modelId: q.model_id,
      filterType: q.type,
      evalTypes: evalTypesOf(q.eval_types),
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      userId: scopedUserId(c),
    });
    return c.json({ data: page.data.map(evalView), meta: paginationInfo(page) });
  });

  handle(app, getEvalRun, async (c) => {
    const { eval_run_id } = c.req.valid("param");
    const run = await evalDb(c, c.req.valid("query")).evals.get(eval_run_id, { userId: scopedUserId(c) });
    if (!run) throw new NotFoundError(`Eval run with id '${eval_run_id}' not found`);
    return c.json(evalView(run));
  });

  handle(app, deleteEvalRuns, async (c) => {
    const { eval_run_ids } = c.req.valid("json");
    await evalDb(c, c.req.valid("query")).evals.delete(eval_run_ids, { userId: scopedUserId(c) });
    return c.body(null, 204);
  });

  handle(app, updateEvalRun, async (c) => {
    const { eval_run_id } = c.req.valid("param");
    const { name } = c.req.valid("json");
    const db = evalDb(c, c.req.valid("query"));
    const run = await db.evals.rename(eval_run_id, name, { userId: scopedUserId(c) });
    if (!run) throw new NotFoundError(`Eval run with id '${eval_run_id}' not found`);
    return c.json(evalView(run));
  });

  handle(app, runEval, async (c) => {
    const b = c.req.valid("json");
    const q = c.req.valid("query");
    const db = evalDb(c, q);
    // Resolved before anything runs: a caller refused a scope is refused before any model call.
    const owner = scopedUserId(c) ?? principalOf(c).userId ?? undefined;
    const prepared = prepareEval(b, components, db);
    if (q.background) {
      const job = await enqueueEval(c, queue, db, b, owner ?? null);
      return c.json({ run_id: job.id, session_id: "", status: runStatusOf(job), job_id: job.id }, 202);
    }
    const { record } = await runPreparedEval(prepared, { db, userId: owner });
    return c.json(evalView(record));
  });

  return app;
}
