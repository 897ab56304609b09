import type { PauseFrame } from "./pause.js";

/**
 * How far a run got: the top-level step to run next, and the way down into the containers in
 * flight (their inner step to run next, the outputs before it, their state), as a pause records
 * it. A run restarted after a crash goes on from here.
 */
export interface Checkpoint {
  index: number;
  frames: PauseFrame[];
}

/**
 * Records a durable run's progress as its steps end: every step that ends, at any depth (but
 * inside a Parallel, whose branches run at once), is saved before the next one starts, so a
 * restarted run runs again only the step that was in flight.
 */
export class RunProgress {
  /** the top-level step in flight */
  private top = 0;
  /** each container sequence in flight, outermost first: where it stands */
  private readonly trail: Array<() => PauseFrame> = [];

  constructor(private readonly save: (checkpoint: Checkpoint) => Promise<void>) {}

  /** A top-level step starts. */
  starting(index: number): void {
    this.top = index;
  }

  /** A container's sequence starts; the returned function is called when it ends. */
  enter(where: () => PauseFrame): () => void {
    this.trail.push(where);
    return () => {
      const at = this.trail.lastIndexOf(where);
      if (at >= 0) this.trail.splice(at, 1);
    };
  }

  /** A top-level step ended: the run goes on at `next`. */
  async stepEnded(next: number): Promise<void> {
    await this.save({ index: next, frames: [] });
  }

  /** A container stands between its sequences (a Loop between iterations): saved with it at `where`. */
  async between(where: () => PauseFrame): Promise<void> {
    const leave = this.enter(where);
    try {
      await this.innerStepEnded();
    } finally {
      leave();
    }
  }

  /** A step inside a container ended: the trail says where each container stands now. */
  async innerStepEnded(): Promise<void> {
    await this.save({ index: this.top, frames: this.trail.map((where) => where()) });
  }
}
