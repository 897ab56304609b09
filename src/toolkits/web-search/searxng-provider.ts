import { httpJson } from "../http-json.js";
import { UpstreamError } from "../upstream-error.js";
import type { NewsResult, ProviderHttpOptions, SearchProvider, SearchRequest, WebResult } from "./search-provider.js";

export interface SearxngOptions extends ProviderHttpOptions {
  /** the instance, e.g. https://searx.example.org (its settings must enable the `json` format) */
  baseUrl: string;
  /** sent as a Bearer token, for instances behind a proxy that wants one */
  apiKey?: string;
  language?: string;
}

interface SearxngResult {
  title?: string;
  url?: string;
  content?: string;
  publishedDate?: string | null;
  engine?: string;
}

/** Search through a SearXNG instance's JSON API (`GET /search?format=json`, category general or news). */
export function searxngProvider(opts: SearxngOptions): SearchProvider {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const search = async (req: SearchRequest, categories: string): Promise<SearxngResult[]> => {
    const params = new URLSearchParams({ q: req.query, format: "json", categories });
    if (opts.language) params.set("language", opts.language);
    const body = await httpJson(
      `${base}/search?${params}`,
      { headers: { accept: "application/json", ...(opts.apiKey && { authorization: `Bearer ${opts.apiKey}` }) } },
      {
        service: "searxng",
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxBytes: opts.maxBytes ?? 1024 * 1024,
        fetch: opts.fetch,
        signal: req.signal,
      },
    );
    const results = (body as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw new UpstreamError("searxng answered without a results list");
    return results.slice(0, req.maxResults) as SearxngResult[];
  };
  return {
    name: "searxng",
    async web(req): Promise<WebResult[]> {
      return (await search(req, "general")).map((r) => ({
        title: r.title ?? "",
        href: r.url ?? "",
        body: r.content ?? "",
      }));
    },
    async news(req): Promise<NewsResult[]> {
      return (await search(req, "news")).map((r) => ({
        date: r.publishedDate ?? null,
        title: r.title ?? "",
        body: r.content ?? "",
        url: r.url ?? "",
        source: r.engine ?? null,
      }));
    },
  };
}
