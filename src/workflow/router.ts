import type { Component } from "../agent/component.js";
import { BadRequestError, ConflictError, ValidationError } from "../errors.js";
import { asText, deepestContent } from "./deepest-content.js";
import { runAgent } from "./run-executor.js";
import { isComponent } from "./step.js";
import type { HumanReview } from "./human-review.js";
import { workflowEvent, type RunScope, type StepPosition, type WorkflowBlock, placeOf } from "./block.js";
import { compileCel, stepInputContext, type CelProgram } from "./cel.js";
import type { WorkflowStreamEvent } from "./events.js";
import type { BlockResume } from "./pause.js";
import { containerOutput, resumeFrom, runSequence } from "./sequence.js";
import type { StepInput } from "./step-input.js";
import { StepOutput } from "./step-output.js";
import { toBlock, toBlocks, type StepLike } from "./to-block.js";

/** What a selector may answer: a choice's name, a choice itself, or a list of them (run in that order). */
export type RouterSelection = string | StepLike | Array<string | StepLike> | null | undefined;

/** Chooses the step(s) to run from the StepInput; `choices` are the Router's steps. */
export type RouterSelector = (input: StepInput, choices: WorkflowBlock[]) => RouterSelection | Promise<RouterSelection>;

export interface RouterOptions {
  /** a person confirms (or gives input) before it runs: the run pauses there (not inside a Parallel) */
  humanReview?: HumanReview;
  name?: string;
  description?: string;
  choices: StepLike[];
  /**
   * A function; a CEL expression returning a choice's name, over the Condition's variables plus
   * `step_choices` (e.g. `'input.contains("video") ? "video" : "image"'`); or an agent, which is
   * shown the choices (names and descriptions) and the input and answers with the name(s).
   */
  selector: RouterSelector | string | Component;
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
  private readonly selector: RouterSelector | CelProgram | Component;
  private readonly isCel: boolean;

  constructor(opts: RouterOptions) {
    this.name = opts.name;
    this.description = opts.description;
    opts.humanReview?.checkFor("Router");
    this.humanReview = opts.humanReview;
    this.originals = Array.isArray(opts.choices) ? [...opts.choices] : [];
    this.choices = toBlocks(opts.choices, "choices");
    const selector = opts.selector as unknown;
    if (typeof selector !== "string" && typeof selector !== "function" && !isComponent(selector))
      throw new ValidationError("selector must be a function, a CEL expression or an agent", "selector");
    this.isCel = typeof selector === "string";
    this.selector = typeof selector === "string" ? compileCel(selector, "selector") : (selector as RouterSelector);
  }

  private async *select(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
  ): AsyncGenerator<WorkflowStreamEvent, WorkflowBlock[]> {
    const names = this.choices.map((c) => c.name).filter((n): n is string => n !== undefined);
    if (this.isCel) {
      try {
        return this.resolve((this.selector as CelProgram)({ ...stepInputContext(input), step_choices: names }));
      } catch {
        return [];
      }
    }
    if (isComponent(this.selector)) {
      const run = yield* runAgent(this.selector, this.selectionPrompt(input), input.session_state, scope, {
        stepId: this.stepId,
        stepName: this.name,
        index: at.index,
      });
      if (run.status !== "COMPLETED")
        throw new BadRequestError(
          `router ${this.name}: its selector agent ended ${run.status}: ${asText(run.content)}`,
        );
      return this.resolve(namesIn(asText(run.content), names));
    }
    return this.resolve(await (this.selector as RouterSelector)(input, this.choices));
  }

  /** What a selector agent is asked: the choices, and the input the chosen steps would get. */
  private selectionPrompt(input: StepInput): string {
    const last = Object.values(input.previous_step_outputs).at(-1);
    const text = asText(last ? deepestContent(last) : input.input);
    const choices = this.choices
      .filter((c) => c.name !== undefined)
      .map((c) => `- ${c.name}${c.description ? `: ${c.description}` : ""}`);
    return [
      "Choose which of these steps should handle the input below.",
      ...choices,
      "Answer with the chosen step names only, one per line, in the order they should run.",
      "",
      "Input:",
      text,
    ].join("\n");
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

  async *execute(
    input: StepInput,
    scope: RunScope,
    at: StepPosition,
    resume?: BlockResume,
  ): AsyncGenerator<WorkflowStreamEvent, StepOutput> {
    const id = this.stepId;
    const place = placeOf(this, at);
    // A continued run comes back into the selection it paused in, without selecting again.
    const resumed = resumeFrom(resume?.point);
    const state = resume?.point?.frames[0]?.state as { selected: number[] } | undefined;
    // A person's pick (route selection) runs instead of the selector.
    const picked = resume?.selection?.map((name) => this.choices.find((c) => c.name === name));
    const selected = state
      ? state.selected.map((i) => this.choices[i])
      : (picked ?? (yield* this.select(input, scope, at)));
    if (selected.some((s) => s === undefined))
      throw new ConflictError(
        `router ${this.name} paused in a step that is not one of its choices: it cannot go back to it`,
      );
    const blocks = selected as WorkflowBlock[];
    const names = blocks.map((s, i) => s.name ?? `step_${i + 1}`);
    if (!resumed) yield workflowEvent(scope, "RouterExecutionStarted", { ...place, selected_steps: names });
    const frame = () => ({
      step_type: "Router" as const,
      step_name: this.name ?? null,
      state: { selected: blocks.map((b) => this.choices.indexOf(b)) },
    });
    const { results } = blocks.length
      ? yield* runSequence(blocks, input, scope, { index: at.index, id, frame }, "record", resumed)
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

/** The choice names a selector agent's answer holds, in the order it gives them (each once). */
function namesIn(answer: string, names: string[]): string[] {
  const picked: string[] = [];
  for (const part of answer.split(/[\n,]/)) {
    const word = part.replace(/^[\s\-*\d.)]+|[\s`"'.]+$/g, "").replace(/^[`"']/, "");
    const name = names.find((n) => n === word) ?? names.find((n) => n.toLowerCase() === word.toLowerCase());
    if (name && !picked.includes(name)) picked.push(name);
  }
  return picked;
}
