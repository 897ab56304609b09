import type { Agent } from "../agent/agent.js";
import type { RunOutput } from "../agent/run-output.js";
import type { EvalRunWrite } from "../db/port.js";
import type { Db } from "../db/port.js";
import { defaultModelRegistry } from "../models/default-model-registry.js";
import type { Model } from "../models/model.js";
import type { Team } from "../team/team.js";
import { EvalError } from "./eval-error.js";

/** What an eval runs: an agent or a team (a run's `content` is its answer). */
export type EvalTarget = Agent | Team;

/** What every eval may be given: a name, where to store its runs, and whose runs they are. */
export interface EvalCommonOptions {
  /** a name for the eval, stored with each run */
  name?: string;
  /** where each run is stored (`db.evals`); without one nothing is stored */
  db?: Db;
  /** the owner of each stored run (agno stamps the caller's user id) */
  userId?: string;
  /**
   * the run's id (default: a new one per `run()`): a caller that must store one run at most once
   * (a queued eval's job, delivered again) names it, and a second store of it is a ConflictError
   */
  runId?: string;
}

/** The identity columns of a run of `target`: its id, model and name, as agno's log_eval_run writes them. */
export function targetColumns(
  target: EvalTarget | undefined,
): Pick<EvalRunWrite, "agent_id" | "team_id" | "model_id" | "model_provider" | "evaluated_component_name"> {
  if (!target) return {};
  const ref = target.ref;
  return {
    agent_id: ref.type === "agent" ? ref.id : null,
    team_id: ref.type === "team" ? ref.id : null,
    model_id: target.model.id,
    model_provider: target.model.provider,
    evaluated_component_name: target.name ?? null,
  };
}

/** A judge model: the one given (a Model, or a `provider:model_id` string), else `fallback`; an eval without either cannot judge. */
export function judgeModel(model: Model | string | undefined, fallback: Model | undefined): Model {
  const resolved = typeof model === "string" ? defaultModelRegistry.model(model) : (model ?? fallback);
  if (!resolved) throw new EvalError("an eval needs a model to judge with: pass `model`");
  return resolved;
}

/** A run's answer as text: structured content as its JSON, nothing as "". */
export function answerText(output: RunOutput): string {
  const content = output.content;
  if (content === undefined || content === null) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

/** Runs `target` once, not streamed, in a session of its own (agno's `eval_<run>_<iteration>`). */
export function runTarget(
  target: EvalTarget,
  input: string,
  sessionId: string,
  userId: string | undefined,
): Promise<RunOutput> {
  return target.run(input, { sessionId, ...(userId ? { userId } : {}) });
}
