import { httpJson } from "../http-json.js";
import { UpstreamError } from "../upstream-error.js";
import type { ProviderHttpOptions, SearchRequest } from "./search-provider.js";

/**
 * One search call to a provider's JSON API, with the provider's limits (deadline, size, the
 * request's signal), and the `results` list of its answer cut to the request's maximum; an answer
 * without that list is an upstream error naming the provider.
 */
export async function providerResults<T>(
  service: string,
  url: string,
  init: RequestInit,
  req: SearchRequest,
  opts: ProviderHttpOptions,
): Promise<T[]> {
  const body = await httpJson(url, init, {
    service,
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxBytes: opts.maxBytes ?? 1024 * 1024,
    fetch: opts.fetch,
    signal: req.signal,
  });
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new UpstreamError(`${service} answered without a results list`);
  return results.slice(0, req.maxResults) as T[];
}
