import { providerResults } from "./provider-results.js";
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
    return providerResults<SearxngResult>(
      "searxng",
      `${base}/search?${params}`,
      { headers: { accept: "application/json", ...(opts.apiKey && { authorization: `Bearer ${opts.apiKey}` }) } },
      req,
      opts,
    );
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
