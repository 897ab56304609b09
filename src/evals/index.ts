export {
  AccuracyEval,
  accuracyJudgeInstructions,
  accuracyJudgePrompt,
  type AccuracyEvalOptions,
  type AccuracyEvaluation,
  type AccuracyResult,
  type EvalRun,
} from "./accuracy-eval.js";
export {
  AgentAsJudgeEval,
  type AgentAsJudgeEvalOptions,
  type AgentAsJudgeEvaluation,
  type AgentAsJudgeResult,
  type JudgeCase,
  type ScoringStrategy,
} from "./agent-as-judge-eval.js";
export { PerformanceEval, type PerformanceEvalOptions, type PerformanceResult } from "./performance-eval.js";
export {
  ReliabilityEval,
  checkReliability,
  type ReliabilityEvalOptions,
  type ReliabilityResult,
} from "./reliability-eval.js";
export { EvalError } from "./eval-error.js";
export type { EvalCommonOptions, EvalTarget } from "./eval-target.js";
