import { z } from "zod";
import type { ComponentRef } from "../agent/component.js";
import { EVAL_TYPES } from "../db/ports/eval-store.js";
import { BadRequestError } from "../errors.js";

/** An agent's or team's id, as every route takes one. */
const componentId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/**
 * agno's EvalRunInput: what `POST /eval-runs` runs, also what a background eval's job and an eval
 * schedule's payload carry.
 */
export const evalRunInputSchema = z
  .object({
    agent_id: componentId.nullable().optional().describe("Agent ID to evaluate"),
    team_id: componentId.nullable().optional().describe("Team ID to evaluate"),
    model_id: z
      .string()
      .min(1)
      .max(255)
      .nullable()
      .optional()
      .describe("Model ID to run the agent or team on (with model_provider)"),
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

/** An EvalRunInput as validated (defaults filled in). */
export type EvalRunInput = z.output<typeof evalRunInputSchema>;

/** The agent or team an input evaluates: exactly one of `agent_id` and `team_id` (else agno's 400). */
export function evalComponentRef(input: Pick<EvalRunInput, "agent_id" | "team_id">): Pick<ComponentRef, "type" | "id"> {
  if (input.agent_id && input.team_id) throw new BadRequestError("Only one of agent_id or team_id must be provided");
  if (input.agent_id) return { type: "agent", id: input.agent_id };
  if (input.team_id) return { type: "team", id: input.team_id };
  throw new BadRequestError("One of agent_id or team_id must be provided");
}

/** The field its eval type needs (agno's 400s): expected_output, criteria or expected_tool_calls. */
export function checkEvalFields(input: EvalRunInput): void {
  if (input.eval_type === "accuracy" && !input.expected_output)
    throw new BadRequestError("expected_output is required for accuracy evaluation");
  if (input.eval_type === "agent_as_judge" && !input.criteria)
    throw new BadRequestError("criteria is required for agent-as-judge evaluation");
  if (input.eval_type === "reliability" && !input.expected_tool_calls)
    throw new BadRequestError("expected_tool_calls is required for reliability evaluations");
}
