import type { Component } from "../agent/component.js";
import { storedOrigin } from "./stored-basics.js";
import type { ComponentConfigRecord, ComponentRecord } from "../db/ports/component-store.js";
import { ValidationError } from "../errors.js";
import { Step } from "../workflow/step.js";
import { Workflow } from "../workflow/workflow.js";
import type { StepRef } from "./validate-config.js";

/**
 * A Workflow built from a stored config (agno's Workflow.from_dict with a registry): its identity
 * and description, and one Step per parsed entry of its `steps` (stepsOf), in order, each running
 * the agent or team the caller resolved for it, under the step's own name, id, description,
 * retries and skip-on-failure as the config gives them (agno's Step.to_dict keys).
 */
export function buildStoredWorkflow(
  component: ComponentRecord,
  config: ComponentConfigRecord,
  steps: Array<{ step: StepRef; executor: Component }>,
): Workflow {
  const c = config.config;
  if (steps.length === 0)
    throw new ValidationError(`workflow ${component.component_id} v${config.version}: a workflow needs steps`, "steps");
  return new Workflow({
    id: component.component_id,
    name: typeof c.name === "string" && c.name ? c.name : (component.name ?? component.component_id),
    ...(typeof c.description === "string" ? { description: c.description } : {}),
    stored: storedOrigin(config),
    steps: steps.map(
      ({ step: s, executor }) =>
        new Step({
          executor,
          ...(s.name !== undefined ? { name: s.name } : {}),
          ...(s.stepId !== undefined ? { stepId: s.stepId } : {}),
          ...(s.description !== undefined ? { description: s.description } : {}),
          ...(s.maxRetries !== undefined ? { maxRetries: s.maxRetries } : {}),
          ...(s.skipOnFailure !== undefined ? { skipOnFailure: s.skipOnFailure } : {}),
        }),
    ),
  });
}
