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

  private async many(batch: Array<{ input: EnqueueRunInput; settle: (outcome: EnqueueOutcome) => void }>): Promise<void> {
    this.writing++;
    try {
      const outcomes = await this.store().enqueueRuns(batch.map((w) => w.input));
      batch.forEach((w, i) => w.settle(outcomes[i] ?? { error: new Error("not enqueued") }));
    } catch (error) {
      // The transaction failed as a whole: nothing of the batch was written.
      for (const w of batch) w.settle({ error: asError(error) });
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
