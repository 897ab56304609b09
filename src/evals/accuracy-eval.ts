import type { Model } from "../models/model.js";
import type { EvalRunRecord } from "../db/port.js";
import { errorMessage } from "../errors.js";
import { EvalError } from "./eval-error.js";
import { statsOf } from "./eval-stats.js";
import {
  answerText,
  judgeModel,
  runTarget,
  targetColumns,
  type EvalCommonOptions,
  type EvalTarget,
} from "./eval-target.js";
import { judgeCall } from "./judge-call.js";

/** One iteration's verdict (agno's AccuracyEvaluation). */
export interface AccuracyEvaluation {
  input: string;
  output: string;
  expected_output: string;
  /** 1 to 10 */
  score: number;
  reason: string;
}

/** Every iteration's verdict and their statistics (agno's AccuracyResult); the statistics are null when no iteration was judged. */
export interface AccuracyResult {
  results: AccuracyEvaluation[];
  avg_score: number | null;
  mean_score: number | null;
  min_score: number | null;
  max_score: number | null;
  std_dev_score: number | null;
}

/** What one run of an eval answers: its own run id, its result, the stored row (when a db was given) and why iterations failed. */
export interface EvalRun<R> {
  runId: string;
  result: R;
  record: EvalRunRecord | null;
  /** one entry per iteration that produced no verdict: the run failed, answered nothing, or the judge answered out of shape */
  failures: string[];
}

export interface AccuracyEvalOptions extends EvalCommonOptions {
  /** what the agent or team is asked */
  input: string;
  /** the answer taken as correct */
  expectedOutput: string;
  /** the component evaluated: exactly one of `agent` and `team` */
  agent?: EvalTarget;
  team?: EvalTarget;
  /** the judge's model (a Model or `provider:model_id`); by default the evaluated component's */
  model?: Model | string;
  /** how many times the component answers and is judged */
  numIterations?: number;
  additionalGuidelines?: string | string[];
  additionalContext?: string;
}

/** The JSON the judge answers (agno's AccuracyAgentResponse). */
const VERDICT_SCHEMA = {
  name: "AccuracyAgentResponse",
  schema: {
    type: "object",
    properties: {
      accuracy_score: { type: "integer", description: "The answer's accuracy from 1 to 10." },
      accuracy_reason: { type: "string", description: "Why the answer earned that score, in detail." },
    },
    required: ["accuracy_score", "accuracy_reason"],
    additionalProperties: false,
  },
};

/** The judge's instructions: agno's structure (inputs, criteria, steps, the 1-10 bands, then guidelines and context). */
export function accuracyJudgeInstructions(guidelines?: string | string[], context?: string): string {
  const parts = [
    "You judge how well an AI agent's answer matches an expected answer that the user supplied. Treat the expected answer as correct, even where you would disagree with it.",
    "",
    "## What you are given",
    "- agent_input: the task or question the agent received.",
    "- expected_output: the correct answer, supplied by the user. Take it as correct.",
    "- agent_output: the agent's answer.",
    "",
    "## Criteria",
    "- Accuracy: how closely agent_output matches expected_output.",
    "- Completeness: whether agent_output contains every key element of expected_output.",
    "",
    "## Steps",
    "1. Compare agent_output with expected_output only, never with what you think the answer should be.",
    "2. Do not question expected_output: your task is the comparison.",
    "3. Follow the additional guidelines when there are any.",
    "4. Analyse in detail: the similarities and differences, the points kept or left out, and any inaccuracy, misparaphrase or difference of structure.",
    "5. Name the criteria in your reasoning.",
    "6. Give a whole-number score from 1 to 10:",
    "   1-2: wrong or irrelevant.",
    "   3-4: major inaccuracies or key information missing.",
    "   5-6: partly right, with significant problems.",
    "   7-8: mostly accurate and complete, with minor problems.",
    "   9-10: accurate and complete, closely matching the expected answer and the guidelines.",
  ];
  if (guidelines !== undefined && guidelines.length > 0) {
    parts.push("", "## Additional Guidelines");
    if (typeof guidelines === "string") parts.push(guidelines);
    else for (const g of guidelines) parts.push(`- ${g}`);
  }
  if (context) parts.push("", "## Additional Context", context);
  parts.push("", "Remember: compare agent_output with expected_output only; the user's expected_output is correct.");
  return parts.join("\n");
}

/** What the judge reads for one iteration, each part in its own tag. */
export function accuracyJudgePrompt(input: string, expected: string, output: string): string {
  return `<agent_input>\n${input}\n</agent_input>\n\n<expected_output>\n${expected}\n</expected_output>\n\n<agent_output>\n${output}\n</agent_output>`;
}

/** agno's AccuracyResult statistics over the verdicts so far. */
export function accuracyResult(results: AccuracyEvaluation[]): AccuracyResult {
  const s = statsOf(results.map((r) => r.score));
  return {
    results,
    avg_score: s?.avg ?? null,
    mean_score: s?.avg ?? null,
    min_score: s?.min ?? null,
    max_score: s?.max ?? null,
    std_dev_score: s?.stdDev ?? null,
  };
}

/** A verdict as the judge answered it, or an EvalError when it is not one (a whole score from 1 to 10 and a reason). */
function verdictOf(answer: Record<string, unknown>): { score: number; reason: string } {
  const score = answer.accuracy_score;
  const reason = answer.accuracy_reason;
  if (typeof score !== "number" || !Number.isInteger(score) || score < 1 || score > 10)
    throw new EvalError("the judge's accuracy_score is not a whole number from 1 to 10");
  if (typeof reason !== "string") throw new EvalError("the judge's accuracy_reason is not text");
  return { score, reason };
}

/**
 * agno's AccuracyEval: the agent (or team) answers `input` `numIterations` times, a judge model
 * scores each answer against `expectedOutput` from 1 to 10 with a rubric, and the scores are
 * averaged. Each `run()` is a run of its own, with its own run id and (given a db) its own row,
 * so running an eval twice keeps two records.
 *
 * @example
 * const evaluation = new AccuracyEval({ agent, input: "10 * 5?", expectedOutput: "50", numIterations: 3, db });
 * const { result } = await evaluation.run();
 * console.log(result.avg_score);
 */
export class AccuracyEval {
  readonly options: AccuracyEvalOptions;
  private readonly target: EvalTarget;

  constructor(options: AccuracyEvalOptions) {
    if ((options.agent === undefined) === (options.team === undefined))
      throw new EvalError("an accuracy eval evaluates exactly one of `agent` and `team`");
    const n = options.numIterations ?? 1;
    if (!Number.isInteger(n) || n < 1) throw new EvalError("numIterations must be a whole number of at least 1");
    this.options = options;
    this.target = (options.agent ?? options.team)!;
  }

  async run(): Promise<EvalRun<AccuracyResult>> {
    const o = this.options;
    const runId = o.runId ?? crypto.randomUUID();
    const judge = judgeModel(o.model, this.target.model);
    const instructions = accuracyJudgeInstructions(o.additionalGuidelines, o.additionalContext);
    const results: AccuracyEvaluation[] = [];
    const failures: string[] = [];
    for (let i = 1; i <= (o.numIterations ?? 1); i++) {
      try {
        const output = answerText(await runTarget(this.target, o.input, `eval_${runId}_${i}`, o.userId));
        if (!output) throw new EvalError("the component answered nothing");
        const prompt = accuracyJudgePrompt(o.input, o.expectedOutput, output);
        const verdict = verdictOf(await judgeCall(judge, instructions, prompt, VERDICT_SCHEMA));
        results.push({ input: o.input, output, expected_output: o.expectedOutput, ...verdict });
      } catch (error) {
        // As in agno, an iteration that yields no verdict is left out of the statistics.
        failures.push(`iteration ${i}: ${errorMessage(error)}`);
      }
    }
    const result = accuracyResult(results);
    const record = o.db
      ? await o.db.evals.create({
          run_id: runId,
          eval_type: "accuracy",
          eval_data: { ...result },
          eval_input: {
            input: o.input,
            expected_output: o.expectedOutput,
            num_iterations: o.numIterations ?? 1,
            additional_guidelines: o.additionalGuidelines ?? null,
            additional_context: o.additionalContext ?? null,
          },
          name: o.name ?? null,
          user_id: o.userId ?? null,
          ...targetColumns(this.target),
        })
      : null;
    return { runId, result, record, failures };
  }
}
