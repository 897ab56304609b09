import type { ComponentRef } from "../agent/component.js";
import type { Db, EvalRunRecord } from "../db/port.js";
import { AgnoError, BadRequestError, NotFoundError } from "../errors.js";
import { defaultModelRegistry } from "../models/default-model-registry.js";
import type { Model } from "../models/model.js";
import { AccuracyEval } from "./accuracy-eval.js";
import { AgentAsJudgeEval } from "./agent-as-judge-eval.js";
import { checkEvalFields, evalComponentRef, type EvalRunInput } from "./eval-run-input.js";
import { answerText, type EvalTarget } from "./eval-target.js";
import { PerformanceEval } from "./performance-eval.js";
import { ReliabilityEval } from "./reliability-eval.js";

/** Where an eval finds what it evaluates, and the models a request may name. */
export interface EvalComponents {
  /** the served agent or team a ref names */
  find(ref: Pick<ComponentRef, "type" | "id">): EvalTarget | undefined;
  /** the model a `provider:model_id` spec names; an AgnoError when none can be made */
  model(spec: string): Model;
}

/** An input checked and resolved: the component to run (bound to the eval's db, on the model asked for) and the judge. */
export interface PreparedEval {
  input: EvalRunInput;
  target: EvalTarget;
  /** the judge (accuracy, agent-as-judge): the component's own model when the input named another, else undefined (its own) */
  judge?: Model;
}

/** EvalComponents finding targets with `find`; a named model resolves through `defaultModelRegistry`. */
export function evalComponents(find: EvalComponents["find"]): EvalComponents {
  return {
    find,
    model(spec) {
      defaultModelRegistry.parse(spec);
      return defaultModelRegistry.model(spec);
    },
  };
}

/**
 * Checks `input` and resolves what it names, before anything runs or is queued: exactly one of
 * agent and team (400), served (404), the field its type needs (400), and a model that resolves
 * (400). As agno's route does, `model_provider` with `model_id` naming another model than the
 * component's runs a copy of the component on that model, and the component's own model judges;
 * the served component is never changed.
 */
export function prepareEval(input: EvalRunInput, components: EvalComponents, db: Db): PreparedEval {
  const ref = evalComponentRef(input);
  const found = components.find(ref);
  if (!found) throw new NotFoundError(`${ref.type === "agent" ? "Agent" : "Team"} with id '${ref.id}' not found`);
  checkEvalFields(input);
  const target = found.withDb(db);
  if (!input.model_id || !input.model_provider) return { input, target };
  const own = target.model;
  if (input.model_id === own.id && input.model_provider === own.provider) return { input, target, judge: own };
  let model: Model;
  try {
    model = components.model(`${input.model_provider.toLowerCase()}:${input.model_id}`);
  } catch (error) {
    if (error instanceof AgnoError) throw new BadRequestError(error.message);
    throw error;
  }
  return { input, target: target.withModel(model), judge: own };
}

/** What one eval run gave: its stored row, and how many verdicts the judge gave (null for the evals that judge nothing). */
export interface EvalOutcome {
  record: EvalRunRecord;
  /** accuracy and agent-as-judge: the verdicts given; 0 with `failures` means the judge gave none */
  verdicts: number | null;
  failures: string[];
}

/**
 * Runs a prepared eval and stores it in `db` as `userId`'s run (under `runId` when given): what
 * `POST /eval-runs` does in the request and an `eval_run` job does on the queue.
 */
export async function runPreparedEval(
  { input: b, target, judge }: PreparedEval,
  opts: { db: Db; userId?: string; runId?: string },
): Promise<EvalOutcome> {
  const common = { db: opts.db, userId: opts.userId, name: b.name ?? undefined, runId: opts.runId };
  const ids = { agentId: b.agent_id ?? null, teamId: b.team_id ?? null };
  const runOnce = () => target.run(b.input, { ...(opts.userId ? { userId: opts.userId } : {}) });
  switch (b.eval_type) {
    case "accuracy": {
      const run = await new AccuracyEval({
        ...common,
        ...(target.ref.type === "team" ? { team: target } : { agent: target }),
        input: b.input,
        expectedOutput: b.expected_output!,
        model: judge,
        numIterations: b.num_iterations,
        additionalGuidelines: b.additional_guidelines ?? undefined,
        additionalContext: b.additional_context ?? undefined,
      }).run();
      return { record: run.record!, verdicts: run.result.results.length, failures: run.failures };
    }
    case "agent_as_judge": {
      const output = answerText(await runOnce());
      const run = await new AgentAsJudgeEval({
        ...common,
        ...ids,
        evaluatedComponentName: target.name ?? null,
        criteria: b.criteria!,
        scoringStrategy: b.scoring_strategy ?? "binary",
        threshold: b.threshold ?? 7,
        additionalGuidelines: b.additional_guidelines ?? undefined,
        model: judge ?? target.model,
      }).run({ input: b.input, output });
      return { record: run.record!, verdicts: run.result.results.length, failures: run.failures };
    }
    case "performance": {
      const run = await new PerformanceEval({
        ...common,
        ...ids,
        func: runOnce,
        numIterations: b.num_iterations,
        warmupRuns: b.warmup_runs,
        modelId: target.model.id,
        modelProvider: target.model.provider,
        evaluatedComponentName: target.name ?? null,
      }).run();
      return { record: run.record!, verdicts: null, failures: run.failures };
    }
    case "reliability": {
      const run = await new ReliabilityEval({
        ...common,
        output: await runOnce(),
        expectedToolCalls: b.expected_tool_calls!,
        allowAdditionalToolCalls: b.allow_additional_tool_calls,
        expectedToolCallArguments: b.expected_tool_call_arguments ?? undefined,
      }).run();
      return { record: run.record!, verdicts: null, failures: run.failures };
    }
  }
}
