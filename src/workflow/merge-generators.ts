/** How one of the merged generators ended. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs generators concurrently, yielding their values as they come (interleaved), and returns
 * how each ended, in the order given. A generator that throws ends alone; the others go on.
 */
export async function* mergeGenerators<T, R>(gens: Array<AsyncGenerator<T, R>>): AsyncGenerator<T, Array<Settled<R>>> {
  const settled: Array<Settled<R> | undefined> = gens.map(() => undefined);
  const pull = (i: number) =>
    gens[i]!.next().then(
      (result) => ({ i, result }),
      (error: unknown) => ({ i, error }),
    );
  const pending = new Map(gens.map((_, i) => [i, pull(i)]));
  while (pending.size > 0) {
    const next = await Promise.race(pending.values());
    if ("error" in next) {
      settled[next.i] = { ok: false, error: next.error };
      pending.delete(next.i);
    } else if (next.result.done) {
      settled[next.i] = { ok: true, value: next.result.value };
      pending.delete(next.i);
    } else {
      pending.set(next.i, pull(next.i));
      yield next.result.value;
    }
  }
  return settled as Array<Settled<R>>;
}
