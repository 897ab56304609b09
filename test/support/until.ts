/**
 * Polls `probe` until `done` accepts its value, and returns that value; after `ms` it throws,
 * naming `what` and the last value. With `retryErrors`, a probe that throws (a server being
 * restarted) is tried again until the deadline instead of failing the test at once.
 */
export async function until<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  opts: { ms?: number; every?: number; retryErrors?: boolean } = {},
): Promise<T> {
  const { ms = 20_000, every = 100, retryErrors = false } = opts;
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      last = await probe();
      if (done(last)) return last;
    } catch (error) {
      if (!retryErrors) throw error;
      failure = error;
    }
    if (Date.now() > deadline) {
      const seen = last === undefined ? String(failure) : JSON.stringify(last).slice(0, 300);
      throw new Error(`timed out after ${ms} ms waiting for ${what}: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
