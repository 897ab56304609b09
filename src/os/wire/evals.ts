import { z } from "zod";
import type { EvalRunRecord } from "../../db/port.js";
import { EVAL_TYPES } from "../../db/ports/eval-store.js";
import { agnoDatetime, agnoDatetimeOf, agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/**
 * agno's eval router models (`os/routers/evals/schemas.py`), field for field, sent without
 * `exclude_none`: an unset field is present as null.
 */
export const evalSchema = agnoObject(
  { model: "EvalSchema", file: "os/routers/evals/schemas.py" },
  {
    id: z.string().describe("Unique identifier for the evaluation run"),
    agent_id: z.string().nullable().describe("Agent ID that was evaluated"),
    model_id: z.string().nullable().describe("Model ID used in evaluation"),
    model_provider: z.string().nullable().describe("Model provider name"),
    team_id: z.string().nullable().describe("Team ID that was evaluated"),
    workflow_id: z.string().nullable().describe("Workflow ID that was evaluated"),
    name: z.string().nullable().describe("Name of the evaluation run"),
    evaluated_component_name: z.string().nullable().describe("Name of the evaluated component"),
    user_id: z.string().nullable().describe("Owner of the evaluation run"),
    eval_type: z.enum(EVAL_TYPES).describe("Type of evaluation (accuracy, agent_as_judge, performance, reliability)"),
    eval_data: z.record(z.string(), z.unknown()).describe("Evaluation results and metrics"),
    eval_input: z.record(z.string(), z.unknown()).nullable().describe("Input parameters used for the evaluation"),
    created_at: agnoDatetime().nullable().describe("Timestamp when evaluation was created"),
    updated_at: agnoDatetime().nullable().describe("Timestamp when evaluation was last updated"),
  },
);

export const paginatedEvalsSchema = paginated(evalSchema);

const agnoTime = (epochSeconds: number | null) =>
  typeof epochSeconds === "number" ? agnoDatetimeOf(epochSeconds * 1000) : null;

/** A stored eval run as agno's EvalSchema.from_dict answers it (`run_id` as `id`). */
export function evalView(r: EvalRunRecord): z.infer<typeof evalSchema> {
  return {
    id: r.run_id,
    agent_id: r.agent_id,
    model_id: r.model_id,
    model_provider: r.model_provider,
    team_id: r.team_id,
    workflow_id: r.workflow_id,
    name: r.name,
    evaluated_component_name: r.evaluated_component_name,
    user_id: r.user_id,
    eval_type: r.eval_type,
    eval_data: r.eval_data,
    eval_input: r.eval_input,
    created_at: agnoTime(r.created_at),
    updated_at: agnoTime(r.updated_at),
  };
}
