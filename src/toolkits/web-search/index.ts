export { WebSearchTools, type WebSearchToolsOptions } from "./web-search-tools.js";
export { tavilyProvider, type TavilyOptions } from "./tavily-provider.js";
export { searxngProvider, type SearxngOptions } from "./searxng-provider.js";
export type { NewsResult, ProviderHttpOptions, SearchProvider, SearchRequest, WebResult } from "./search-provider.js";
