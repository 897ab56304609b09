import { ValidationError } from "../errors.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock } from "./block.js";
import { compileCel, stepInputContext, type CelProgram } from "./cel.js";
import type { WorkflowStreamEvent } from "./events.js";
import { containerOutput, runSequence } from "./sequence.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { toBlock, toBlocks, type StepLike } from "./to-block.js";

/** What a selector may answer: a choice's name, a choice itself, or a list of them (run in that order). */
export type RouterSelection = string | StepLike | Array<string | StepLike> | null | undefined;

/** Chooses the step(s) to run from the StepInput; `choices` are the Router's steps. */
export type RouterSelector = (input: StepInput, choices: WorkflowBlock[]) => RouterSelection | Promise<RouterSelection>;

export interface RouterOptions {
  /** a person confirms (or gives input) before it runs: the run pauses (top-level blocks only) */
  humanReview?: HumanReview;
  name?: string;
  description?: string;
  choices: StepLike[];
  /**
   * A function, or a CEL expression returning a choice's name, over the Condition's variables
   * plus `step_choices` (e.g. `'input.contains("video") ? "video" : "image"'`).
   */
  selector: RouterSelector | string;
}

/**
 * Runs the step(s) its selector picks from its choices, one after another (agno's Router). As
 * in agno, a name that is no choice selects nothing, a failing CEL expression selects nothing,
 * and a step that fails inside it ends it with a failed output instead of failing the workflow.
 */
export class Router implements WorkflowBlock {
  readonly stepType = "Router" as const;
  readonly stepId = crypto.randomUUID();
  readonly humanReview?: HumanReview;
  readonly name?: string;
  readonly description?: string;
  readonly choices: WorkflowBlock[];
  private readonly originals: unknown[];
  private readonly selector: RouterSelector | CelProgram;
  private readonly isCel: boolean;

  constructor(opts: RouterOptions) {
    this.name = opts.name;
    this.description = opts.description;
    opts.humanReview?.checkFor("Router");
    this.humanReview = opts.humanReview;
    this.originals = Array.isArray(opts.choices) ? [...opts.choices] : [];
    this.choices = toBlocks(opts.choices, "choices");
    const selector = opts.selector as unknown;
    if (typeof selector !== "string" && typeof selector !== "function")
      throw new ValidationError("selector must be a function or a CEL expression", "selector");
    this.isCel = typeof selector === "string";
    this.selector = typeof selector === "string" ? compileCel(selector, "selector") : (selector as RouterSelector);
  }

  private async select(input: StepInput): Promise<WorkflowBlock[]> {
    if (this.isCel) {
      try {
        const names = this.choices.map((c) => c.name).filter((n): n is string => n !== undefined);
        return this.resolve((this.selector as CelProgram)({ ...stepInputContext(input), step_choices: names }));
      } catch {
        return [];
      }
    }
    return this.resolve(await (this.selector as RouterSelector)(input, this.choices));
  }

  private resolve(selection: unknown): WorkflowBlock[] {
    if (selection === null || selection === undefined) return [];
    if (Array.isArray(selection)) return selection.flatMap((s) => this.resolve(s));
    if (typeof selection === "string") {
      const found = this.choices.find((c) => c.name === selection);
      return found ? [found] : [];
    }
    // One of the choices as it was given (an agent, a function): the Step made of it.
    const given = this.originals.indexOf(selection);
    if (given >= 0) return [this.choices[given]!];
    return [toBlock(selection as StepLike, "selector result")];
  }

  async *execute(input: StepInput, scope: RunScope, at: StepPosition): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const place = { step_name: this.name, step_index: at.index, step_id: id, parent_step_id: at.parentStepId };
    const selected = await this.select(input);
    const names = selected.map((s, i) => s.name ?? `step_${i + 1}`);
    yield workflowEvent(scope, "RouterExecutionStarted", { ...place, selected_steps: names });
    const { results } = selected.length
      ? yield* runSequence(selected, input, scope, { index: at.index, id }, "record")
      : { results: [] as StepOutput[] };
    yield workflowEvent(scope, "RouterExecutionCompleted", {
      ...place,
      selected_steps: names,
      executed_steps: results.length,
      step_results: results,
    });
    if (results.length === 0)
      return new StepOutput({
        step_name: this.name ?? null,
        step_id: id,
        step_type: "Router",
        content: `Router ${this.name} completed with 0 results (no steps selected)`,
      });
    return containerOutput({
      step_name: this.name ?? null,
      step_id: id,
      step_type: "Router",
      content: `Router ${this.name} completed with ${results.length} results`,
      steps: results,
    });
  }
}
