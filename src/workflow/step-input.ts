import { lastContent } from "./deepest-content.js";
import type { StepOutput } from "./step-output.js";

/** The fields of a StepInput (agno's names). */
export interface StepInputFields {
  /** the workflow's input */
  input: unknown;
  /** the content of the step before (the deepest one when it was a container) */
  previous_step_content: unknown;
  /** the outputs of the steps before, by step name, in the order they ran */
  previous_step_outputs: Record<string, StepOutput>;
  /** what the caller passed as `additionalData` */
  additional_data: Record<string, unknown>;
  /**
   * The run's session state: changes made here are the workflow's (and are stored with its
   * session). Inside a Parallel branch it is the branch's own copy, merged back when all end.
   */
  session_state: Record<string, unknown>;
}

/** What a step is given (agno's StepInput). */
export class StepInput implements StepInputFields {
  input: unknown;
  previous_step_content: unknown;
  previous_step_outputs: Record<string, StepOutput>;
  additional_data: Record<string, unknown>;
  session_state: Record<string, unknown>;

  constructor(fields: StepInputFields) {
    this.input = fields.input;
    this.previous_step_content = fields.previous_step_content;
    this.previous_step_outputs = fields.previous_step_outputs;
    this.additional_data = fields.additional_data;
    this.session_state = fields.session_state;
  }

  /** The output of a step that ran before, by name, found at any depth (inside a Parallel, a Loop, …). */
  getStepOutput(name: string): StepOutput | undefined {
    const direct = this.previous_step_outputs[name];
    if (direct) return direct;
    const search = (outs: StepOutput[] | undefined): StepOutput | undefined => {
      for (const out of outs ?? []) {
        if (out.step_name === name) return out;
        const found = search(out.steps);
        if (found) return found;
      }
      return undefined;
    };
    return search(Object.values(this.previous_step_outputs));
  }

  /**
   * The content of a step that ran before, by name: a container's deepest content; for a
   * Parallel, each branch's content by branch name (as agno's `get_step_content`).
   */
  getStepContent(name: string): unknown {
    const out = this.getStepOutput(name);
    if (!out) return undefined;
    if (out.step_type === "Parallel" && out.steps?.length) {
      const byBranch: Record<string, unknown> = {};
      for (const branch of out.steps) if (branch.step_name) byBranch[branch.step_name] = lastContent(branch);
      return byBranch;
    }
    return lastContent(out);
  }

  /** The input of the step after `output` (named `name`): its content and outputs so far, the same state. */
  after(name: string, output: StepOutput): StepInput {
    return new StepInput({
      ...this,
      previous_step_content: lastContent(output),
      previous_step_outputs: { ...this.previous_step_outputs, [name]: output },
    });
  }

  /** The same input working on another session state (a Parallel branch's copy). */
  withState(state: Record<string, unknown>): StepInput {
    return new StepInput({ ...this, session_state: state });
  }
}
