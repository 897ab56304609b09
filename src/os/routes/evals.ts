import type { Context } from "hono";
import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { Db, EvalRunRecord, EvalType } from "../../db/port.js";
import { EVAL_SORT_COLUMNS, EVAL_TYPES } from "../../db/ports/eval-store.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import { BadRequestError, NotFoundError, ValidationError } from "../../errors.js";
import { AccuracyEval } from "../../evals/accuracy-eval.js";
import { AgentAsJudgeEval } from "../../evals/agent-as-judge-eval.js";
import { answerText, type EvalTarget } from "../../evals/eval-target.js";
import { PerformanceEval } from "../../evals/performance-eval.js";
import { ReliabilityEval } from "../../evals/reliability-eval.js";
import { defaultModelRegistry } from "../../models/default-model-registry.js";
import type { Model } from "../../models/model.js";
import type { Team } from "../../team/team.js";
import { principalOf, scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
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

/** agno's EvalRunInput. */
const evalRunInput = z
  .object({
    agent_id: idSchema.nullable().optional().describe("Agent ID to evaluate"),
    team_id: idSchema.nullable().optional().describe("Team ID to evaluate"),
    model_id: z.string().min(1).max(255).nullable().optional().describe("Model ID to judge with"),
    model_provider: z.string().min(1).max(64).nullable().optional().describe("Model provider name"),
    eval_type: z.enum(EVAL_TYPES).describe("Type of evaluation to run"),
    input: z.string().min(1).max(100_000).describe("Input text/query for the evaluation"),
    additional_guidelines: z.string().max(20_000).nullable().optional(),
    additional_context: z.string().max(100_000).nullable().optional(),
    num_iterations: z.int().min(1).max(100).default(1).describe("Number of times to run the evaluation"),
    name: z.string().min(1).max(255).nullable().optional().describe("Name for this evaluation run"),
    expected_output: z.string().max(100_000).nullable().optional().describe("Expected output (accuracy)"),
    criteria: z.string().max(20_000).nullable().optional().describe("Evaluation criteria (agent_as_judge)"),
    scoring_strategy: z.enum(["numeric", "binary"]).nullable().default("binary"),
    threshold: z.int().min(1).max(10).nullable().default(7).describe("Passing score under numeric scoring"),
    warmup_runs: z.int().min(0).max(10).default(0).describe("Unmeasured runs first (performance)"),
    expected_tool_calls: z.array(z.string().min(1).max(255)).max(100).nullable().optional(),
    allow_additional_tool_calls: z.boolean().default(false),
    expected_tool_call_arguments: z
      .record(z.string(), z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]))
      .nullable()
      .optional(),
  })
  .strict();

const runEval = defineRoute({
  method: "post",
  path: "/eval-runs",
  tags,
  summary: "Run an evaluation against a served agent or team, and store it as a run of its own",
  description:
    "Exactly one of `agent_id` and `team_id`. The judge (accuracy, agent_as_judge) is the model named by `model_provider` and `model_id` when both are given, else the evaluated component's own model; agno instead runs the component on that model and judges with its own.",
  scope: { resource: "evals", action: "write" },
  request: { query: z.object(where), body: jsonBody(evalRunInput) },
  responses: {
    200: jsonAnswer(evalSchema, "The evaluation run"),
    400: jsonAnswer(errorSchema, "Not one of agent_id and team_id, or a field the eval type needs is missing"),
    404: jsonAnswer(errorSchema, "No such agent or team"),
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

/** The judge a request names (`model_provider` and `model_id` together), or undefined for the component's own. */
function namedJudge(b: { model_id?: string | null; model_provider?: string | null }): Model | undefined {
  if (!b.model_id || !b.model_provider) return undefined;
  const spec = `${b.model_provider.toLowerCase()}:${b.model_id}`;
  try {
    defaultModelRegistry.parse(spec);
    return defaultModelRegistry.model(spec);
  } catch (error) {
    throw new BadRequestError((error as Error).message);
  }
}

/**
 * agno's `/eval-runs` routes. With user isolation a non-admin reads, renames and deletes only
 * their own runs (another's read as missing), and every run is stamped with its creator, as
 * agno's router does with get_scoped_user_id.
 */
export function evalRoutes(agents: readonly Agent[], teams: readonly Team[]) {
  const app = routeApp();

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
    const db = evalDb(c, c.req.valid("query"));
    // Resolved before anything runs: a caller refused a scope is refused before any model call.
    const owner = scopedUserId(c) ?? principalOf(c).userId ?? undefined;
    if (b.agent_id && b.team_id) throw new BadRequestError("Only one of agent_id or team_id must be provided");
    let target: EvalTarget;
    if (b.agent_id) {
      const agent = agents.find((a) => a.id === b.agent_id);
      if (!agent) throw new NotFoundError(`Agent with id '${b.agent_id}' not found`);
      target = agent.withDb(db);
    } else if (b.team_id) {
      const team = teams.find((t) => t.id === b.team_id);
      if (!team) throw new NotFoundError(`Team with id '${b.team_id}' not found`);
      target = team.withDb(db);
    } else throw new BadRequestError("One of agent_id or team_id must be provided");
    const judge = namedJudge(b);
    const common = { db, userId: owner, name: b.name ?? undefined };
    const ids = { agentId: b.agent_id ?? null, teamId: b.team_id ?? null };
    let record: EvalRunRecord | null;
    switch (b.eval_type) {
      case "accuracy": {
        if (!b.expected_output) throw new BadRequestError("expected_output is required for accuracy evaluation");
        const evaluation = new AccuracyEval({
          ...common,
          ...(target.ref.type === "team" ? { team: target } : { agent: target }),
          input: b.input,
          expectedOutput: b.expected_output,
          model: judge,
          numIterations: b.num_iterations,
          additionalGuidelines: b.additional_guidelines ?? undefined,
          additionalContext: b.additional_context ?? undefined,
        });
        record = (await evaluation.run()).record;
        break;
      }
      case "agent_as_judge": {
        if (!b.criteria) throw new BadRequestError("criteria is required for agent-as-judge evaluation");
        const output = answerText(await target.run(b.input, { userId: owner }));
        const evaluation = new AgentAsJudgeEval({
          ...common,
          ...ids,
          evaluatedComponentName: target.name ?? null,
          criteria: b.criteria,
          scoringStrategy: b.scoring_strategy ?? "binary",
          threshold: b.threshold ?? 7,
          additionalGuidelines: b.additional_guidelines ?? undefined,
          model: judge ?? target.model,
        });
        record = (await evaluation.run({ input: b.input, output })).record;
        break;
      }
      case "performance": {
        const evaluation = new PerformanceEval({
          ...common,
          ...ids,
          func: () => target.run(b.input, { userId: owner }),
          numIterations: b.num_iterations,
          warmupRuns: b.warmup_runs,
          modelId: target.model.id,
          modelProvider: target.model.provider,
          evaluatedComponentName: target.name ?? null,
        });
        record = (await evaluation.run()).record;
        break;
      }
      case "reliability": {
        if (!b.expected_tool_calls)
          throw new BadRequestError("expected_tool_calls is required for reliability evaluations");
        const evaluation = new ReliabilityEval({
          ...common,
          output: await target.run(b.input, { userId: owner }),
          expectedToolCalls: b.expected_tool_calls,
          allowAdditionalToolCalls: b.allow_additional_tool_calls,
          expectedToolCallArguments: b.expected_tool_call_arguments ?? undefined,
        });
        record = (await evaluation.run()).record;
        break;
      }
    }
    return c.json(evalView(record!));
  });

  return app;
}
