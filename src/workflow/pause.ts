import type { StepOutput, StepType } from "./step-output.js";
import type { ErrorRequirement } from "./error-requirement.js";
import type { StepRequirement } from "./step-requirement.js";

/** Where a paused container stood: which inner step paused, what ran before it, what else it needs to go on. */
export interface PauseFrame {
  step_type?: StepType;
  step_name?: string | null;
  /** the inner step that paused (or holds the pause) */
  index: number;
  /** the outputs of its inner steps before that one */
  results: StepOutput[];
  /** a Loop's iteration and earlier iterations, a Condition's branch, a Router's selection */
  state?: Record<string, unknown>;
}

/**
 * Thrown by a sequence when a block asks for a person: each container it passes through adds
 * where it stood, outermost first, so a continue can go back down the same path.
 */
export class PauseSignal extends Error {
  readonly frames: PauseFrame[] = [];
  constructor(readonly requirement: StepRequirement | ErrorRequirement) {
    super(`paused for ${requirement.step_name ?? requirement.step_id}`);
    this.name = "PauseSignal";
  }
}

export function isPause(error: unknown): error is PauseSignal {
  return error instanceof PauseSignal;
}

/**
 * A continued run's way down to the paused block: the frames of the containers still to enter,
 * and the decision. A run restarted from a checkpoint has no decision: the block at the end of
 * the way runs afresh.
 */
export interface ResumePoint {
  frames: PauseFrame[];
  requirement?: StepRequirement | ErrorRequirement;
}

/** How a block resumes: a rejected review's else branch, a Router's route a person picked, or the way down to a pause inside it. */
export interface BlockResume {
  forceElse?: boolean;
  /** a Step whose agent paused: the requirement with the agent's resolved requirements */
  executor?: StepRequirement;
  selection?: string[];
  point?: ResumePoint;
}
