import { Agent } from "../agent/agent.js";
import { componentOrigin } from "./component-origin.js";
import type { Db } from "../db/port.js";
import { Team } from "../team/team.js";
import type { WorkflowBlock } from "../workflow/block.js";
import { innerBlocks } from "../workflow/inner-blocks.js";
import { Condition } from "../workflow/condition.js";
import { Step } from "../workflow/step.js";
import type { Workflow } from "../workflow/workflow.js";
import { agentResponse } from "./agent-response.js";
import { teamResponse } from "./team-response.js";

/**
 * One block as agno's `to_dict_for_steps` describes a step (name, description, type), with the
 * agent or team a Step runs as its response, and the blocks inside (a Condition's else branch
 * apart), None pruned.
 */
function stepDict(block: WorkflowBlock, db: Db | undefined): Record<string, unknown> {
  const description = (block as { description?: string }).description;
  const executor = block instanceof Step ? block.executor : undefined;
  const inner = block instanceof Condition ? block.steps : block instanceof Step ? [] : innerBlocks(block);
  return {
    name: block.name ?? `unnamed_${block.stepType.toLowerCase()}`,
    ...(description !== undefined && { description }),
    type: block.stepType,
    ...(executor instanceof Agent && { agent: agentResponse(executor, db) }),
    ...(executor instanceof Team && { team: teamResponse(executor, db) }),
    ...(block instanceof Step ? {} : { steps: inner.map((b) => stepDict(b, db)) }),
    ...(block instanceof Condition &&
      block.elseSteps.length > 0 && { else_steps: block.elseSteps.map((b) => stepDict(b, db)) }),
  };
}

/** agno's WorkflowResponse for one workflow (`WorkflowResponse.from_workflow`, exclude-none). */
export function workflowResponse(workflow: Workflow, db: Db | undefined): Record<string, unknown> {
  return {
    id: workflow.id,
    name: workflow.name,
    ...(db && { db_id: db.id }),
    ...(workflow.description !== undefined && { description: workflow.description }),
    ...(workflow.steps.length > 0 && { steps: workflow.steps.map((b) => stepDict(b, db)) }),
    workflow_agent: false,
    is_factory: false,
    ...componentOrigin(workflow.stored),
  };
}
