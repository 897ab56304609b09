/** One search hit as agno's WebSearchTools answers `web_search` (DDGS's text results). */
export interface WebResult {
  title: string;
  href: string;
  body: string;
}

/** One news hit as agno's WebSearchTools answers `search_news` (DDGS's news results). */
export interface NewsResult {
  date: string | null;
  title: string;
  body: string;
  url: string;
  source: string | null;
}

export interface SearchRequest {
  query: string;
  maxResults: number;
  signal?: AbortSignal;
}

/** The port a search backend implements; WebSearchTools asks it and answers the model in agno's shapes. */
export interface SearchProvider {
  /** names the backend in errors and in the toolkit's description */
  readonly name: string;
  web(req: SearchRequest): Promise<WebResult[]>;
  news(req: SearchRequest): Promise<NewsResult[]>;
}

/** What every HTTP provider takes besides its own settings. */
export interface ProviderHttpOptions {
  /** per request, in milliseconds (default 10 s) */
  timeoutMs?: number;
  /** largest answer read, in bytes (default 1 MiB) */
  maxBytes?: number;
  fetch?: typeof fetch;
}
