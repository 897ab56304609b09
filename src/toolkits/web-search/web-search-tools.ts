import { z } from "zod";
import { tool, Toolkit, type Tool } from "../../tools/tool.js";
import type { SearchProvider } from "./search-provider.js";

/** More results than this are not asked for: they cost tokens the model rarely uses. */
const MAX_RESULTS = 20;

export interface WebSearchToolsOptions {
  /** the search backend (tavilyProvider, searxngProvider or your own SearchProvider) */
  provider: SearchProvider;
  /** agno's `enable_search` (default true) */
  enableSearch?: boolean;
  /** agno's `enable_news` (default true) */
  enableNews?: boolean;
  /** prepended to every web query (agno's `modifier`) */
  modifier?: string;
  /** every call returns this many results, whatever the model asks (agno's `fixed_max_results`) */
  fixedMaxResults?: number;
  include?: string[];
  exclude?: string[];
}

const params = z.object({
  query: z.string().trim().min(1).max(400).describe("The query to search for."),
  max_results: z.number().int().min(1).max(MAX_RESULTS).default(5).describe("The maximum number of results to return."),
});

/**
 * agno 3.0's WebSearchTools: `web_search` and `search_news`, answered in agno's result shapes
 * through a SearchProvider port instead of the DDGS library (which needs Python). Providers:
 * Tavily and SearXNG.
 *
 * @example
 * new WebSearchTools({ provider: tavilyProvider({ apiKey: env.TAVILY_API_KEY }) })
 */
export class WebSearchTools extends Toolkit {
  readonly provider: SearchProvider;

  constructor(opts: WebSearchToolsOptions) {
    const count = (asked: number) => Math.min(opts.fixedMaxResults ?? asked, MAX_RESULTS);
    const tools: Tool[] = [];
    if (opts.enableSearch ?? true)
      tools.push(
        tool({
          name: "web_search",
          description: "Use this function to search the web for a query.",
          parameters: params,
          execute: ({ query, max_results }, ctx) =>
            opts.provider.web({
              query: opts.modifier ? `${opts.modifier} ${query}` : query,
              maxResults: count(max_results),
              signal: ctx.signal,
            }),
        }),
      );
    if (opts.enableNews ?? true)
      tools.push(
        tool({
          name: "search_news",
          description: "Use this function to get the latest news from the web.",
          parameters: params,
          execute: ({ query, max_results }, ctx) =>
            opts.provider.news({ query, maxResults: count(max_results), signal: ctx.signal }),
        }),
      );
    super({ id: "websearch", name: "websearch", tools, include: opts.include, exclude: opts.exclude });
    this.provider = opts.provider;
  }
}
