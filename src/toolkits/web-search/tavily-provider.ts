import { providerResults } from "./provider-results.js";
import type { NewsResult, ProviderHttpOptions, SearchProvider, SearchRequest, WebResult } from "./search-provider.js";

export interface TavilyOptions extends ProviderHttpOptions {
  apiKey: string;
  /** default https://api.tavily.com */
  baseUrl?: string;
  /** Tavily's `search_depth` (default basic) */
  searchDepth?: "basic" | "advanced";
}

interface TavilyResult {
  title?: string;
  url?: string;
  content?: string;
  published_date?: string;
}

/** Search through Tavily's REST API (`POST /search`, `topic` general or news). */
export function tavilyProvider(opts: TavilyOptions): SearchProvider {
  if (!opts.apiKey) throw new TypeError("tavilyProvider needs an apiKey");
  const base = (opts.baseUrl ?? "https://api.tavily.com").replace(/\/+$/, "");
  const search = async (req: SearchRequest, topic: "general" | "news"): Promise<TavilyResult[]> => {
    return providerResults<TavilyResult>(
      "tavily",
      `${base}/search`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          query: req.query,
          topic,
          max_results: req.maxResults,
          search_depth: opts.searchDepth ?? "basic",
        }),
      },
      req,
      opts,
    );
  };
  return {
    name: "tavily",
    async web(req): Promise<WebResult[]> {
      return (await search(req, "general")).map((r) => ({
        title: r.title ?? "",
        href: r.url ?? "",
        body: r.content ?? "",
      }));
    },
    async news(req): Promise<NewsResult[]> {
      return (await search(req, "news")).map((r) => ({
        date: r.published_date ?? null,
        title: r.title ?? "",
        body: r.content ?? "",
        url: r.url ?? "",
        source: hostOf(r.url),
      }));
    },
  };
}

function hostOf(url: string | undefined): string | null {
  try {
    return url ? new URL(url).hostname : null;
  } catch {
    return null;
  }
}
