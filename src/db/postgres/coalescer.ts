/**
 * Statements of one kind (a key) called in the same turn of the event loop, batched: the first
 * call of a key schedules a flush at the end of the current microtasks, every call of that key
 * until then joins it, and the batch function answers them all at once (in order). Jobs a queue
 * starts together reach their reads and writes together, so they make one statement instead of
 * one each; a lone call waits for nothing but the microtasks already queued. (Enqueues arrive in
 * separate RPCs, never in one turn: they are grouped by `GroupEnqueue` while others are in flight.)
 */
export class Coalescer<I, O> {
  private readonly pending = new Map<
    string,
    Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }>
  >();

  constructor(private readonly batch: (key: string, inputs: I[]) => Promise<O[]>) {}

  run(key: string, input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let calls = this.pending.get(key);
      if (!calls) {
        this.pending.set(key, (calls = []));
        queueMicrotask(() => void this.flush(key));
      }
      calls.push({ input, resolve, reject });
    });
  }

  private async flush(key: string): Promise<void> {
    const calls = this.pending.get(key)!;
    this.pending.delete(key);
    try {
      const outputs = await this.batch(
        key,
        calls.map((c) => c.input),
      );
      calls.forEach((c, i) => c.resolve(outputs[i]!));
    } catch (error) {
      for (const c of calls) c.reject(error);
    }
  }
}
