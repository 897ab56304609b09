import { ModelProviderError } from "../../models/provider-error.js";
import { EmbedderError } from "../errors.js";

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * One embedding call with the model calls' retry rule: rate limits, server errors and network
 * failures are retried with jittered backoff (or the provider's Retry-After); anything else, or
 * the last failure, is an EmbedderError naming the provider and the kind.
 */
export async function withEmbedRetries<T>(
  provider: string,
  maxRetries: number,
  call: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = ModelProviderError.from(err, provider);
      if (!failure.retryable || attempt >= maxRetries) {
        const status = (err as { statusCode?: number }).statusCode;
        throw new EmbedderError(`embedding failed: ${failure.message}`, status, { cause: err });
      }
      await sleep(failure.retryAfterMs ?? Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2), signal);
    }
  }
}

/** `texts` in slices of at most `size`. */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
