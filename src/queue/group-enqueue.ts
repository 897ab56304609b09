import { asError } from "../errors.js";
import type { EnqueueOutcome, EnqueueRunInput, JobStore } from "./types.js";

export interface GroupEnqueueOptions {
  /** enqueue statements in flight before later ones wait to be committed together (default 2) */
  inFlight?: number;
  /** the fewest waiting enqueues worth a batch's transaction; fewer go one by one (default 4) */
  minBatch?: number;
  /** the most enqueues in one batch (default 200) */
  maxBatch?: number;
}

/**
 * Group commit for enqueues: while `inFlight` are being written, the ones that arrive wait and
 * are then written together by `enqueueRuns` (a transaction of a few statements, whatever their
 * number), each with the outcome `enqueueRun` would have given it alone. An idle queue adds no
 * wait; a busy one writes fewer statements per job the busier it gets.
 */
export class GroupEnqueue {
  private readonly waiting: Array<{ input: EnqueueRunInput; settle: (outcome: EnqueueOutcome) => void }> = [];
  private writing = 0;
  private readonly inFlight: number;
  private readonly minBatch: number;
  private readonly maxBatch: number;

  constructor(
    private readonly store: () => Pick<JobStore, "enqueueRun" | "enqueueRuns">,
    opts: GroupEnqueueOptions = {},
  ) {
    this.inFlight = opts.inFlight ?? 2;
    this.minBatch = opts.minBatch ?? 4;
    this.maxBatch = opts.maxBatch ?? 200;
  }

  /** Commits one enqueue, alone or with others; never throws (a refusal is the outcome's error). */
  enqueue(input: EnqueueRunInput): Promise<EnqueueOutcome> {
    if (this.writing < this.inFlight) return this.one(input);
    return new Promise((settle) => this.waiting.push({ input, settle }));
  }

  private async one(input: EnqueueRunInput): Promise<EnqueueOutcome> {
    this.writing++;
    try {
      return await this.store().enqueueRun(input);
    } catch (error) {
      return { error: asError(error) };
    } finally {
      this.writing--;
      this.flush();
    }
  }

  private async many(
    batch: Array<{ input: EnqueueRunInput; settle: (outcome: EnqueueOutcome) => void }>,
  ): Promise<void> {
    this.writing++;
    try {
      const outcomes = await enqueueEach(
        () => this.store(),
        batch.map((w) => w.input),
      );
      batch.forEach((w, i) => w.settle(outcomes[i]!));
    } finally {
      this.writing--;
      this.flush();
    }
  }

  private flush(): void {
    while (this.waiting.length > 0 && this.writing < this.inFlight) {
      if (this.waiting.length >= this.minBatch) {
        void this.many(this.waiting.splice(0, this.maxBatch));
      } else {
        const { input, settle } = this.waiting.shift()!;
        void this.one(input).then(settle);
      }
    }
  }
}

/**
 * `enqueueRuns` that never throws: each input's outcome, and when the transaction fails as a
 * whole (the database went away), nothing of the batch was written and that is every input's error.
 */
export async function enqueueEach(
  jobs: () => Pick<JobStore, "enqueueRuns">,
  inputs: EnqueueRunInput[],
): Promise<EnqueueOutcome[]> {
  try {
    return await jobs().enqueueRuns(inputs);
  } catch (error) {
    return inputs.map(() => ({ error: asError(error) }));
  }
}
