import type { Component } from "../agent/component.js";
import { storedOrigin } from "./stored-basics.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import { Step } from "../workflow/step.js";
import { Workflow } from "../workflow/workflow.js";
import { stepsOf } from "./validate-config.js";

/**
 * A Workflow built from a stored config (agno's Workflow.from_dict with a registry): its identity
 * and description, and one Step per entry of `steps`, in order, each running the agent or team
 * the caller resolved for it (`executors`, in the same order) under the step's own name, id,
 * description, retries and skip-on-failure as the config gives them (agno's Step.to_dict keys).
 */
export function buildStoredWorkflow(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  executors: Component[],
): Workflow {
  const c = config.config;
  const { steps, problems } = stepsOf(c);
  const at = `workflow ${component.component_id} v${config.version}`;
  if (problems.length) throw new ValidationError(`${at}: ${problems.join("; ")}`, "steps");
  if (steps.length === 0) throw new ValidationError(`${at}: a workflow needs steps`, "steps");
  if (executors.length !== steps.length)
    throw new Error(`${at}: ${executors.length} executors for ${steps.length} steps`);
  return new Workflow({
    id: component.component_id,
    name: typeof c.name === "string" && c.name ? c.name : (component.name ?? component.component_id),
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    stored: storedOrigin(config),
    steps: steps.map(
      (s, i) =>
        new Step({
          executor: executors[i]!,
          ...(s.name !== undefined ? { name: s.name } : {}),
          ...(s.stepId !== undefined ? { stepId: s.stepId } : {}),
          ...(s.description !== undefined ? { description: s.description } : {}),
          ...(s.maxRetries !== undefined ? { maxRetries: s.maxRetries } : {}),
          ...(s.skipOnFailure !== undefined ? { skipOnFailure: s.skipOnFailure } : {}),
        }),
    ),
  });
}
