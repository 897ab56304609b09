export { CalculatorTools, type CalculatorToolsOptions } from "./calculator/index.js";
export { DateTimeTools, type DateTimeToolsOptions } from "./date-time/index.js";
export { WebFetchTools, type WebFetchToolsOptions } from "./web-fetch/index.js";
export {
  searxngProvider,
  tavilyProvider,
  WebSearchTools,
  type NewsResult,
  type ProviderHttpOptions,
  type SearchProvider,
  type SearchRequest,
  type SearxngOptions,
  type TavilyOptions,
  type WebResult,
  type WebSearchToolsOptions,
} from "./web-search/index.js";
export { CustomApiTools, type CustomApiToolsOptions } from "./custom-api/index.js";
export {
  pgPoolConnector,
  SQLTools,
  type PgLikePool,
  type SqlConnector,
  type SqlResult,
  type SqlSession,
  type SqlToolsOptions,
} from "./sql/index.js";
export { FileTools, type FileToolsOptions } from "./files/index.js";
export { UpstreamError } from "./upstream-error.js";
export { GithubTools, type GithubToolsOptions } from "./github/index.js";
export { ResendTools, type ResendToolsOptions } from "./email/index.js";
export {
  MINIMAX_VIDEO_JOB_TYPE,
  MINIMAX_VIDEOS_STATE_KEY,
  MiniMaxTools,
  type MiniMaxToolsOptions,
  type MiniMaxVideoJobPayload,
  type MiniMaxVideoModel,
  type MiniMaxVideoResult,
} from "./minimax/index.js";
