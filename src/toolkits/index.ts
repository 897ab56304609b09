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
  AgentMailTools,
  verifyAgentMailWebhook,
  type AgentMailToolsOptions,
  type AgentMailWebhookEvent,
  type VerifyAgentMailWebhookOptions,
} from "./inbox/index.js";
export {
  FINANCE_CAPABILITIES,
  FinanceProviderError,
  FinanceTools,
  financialDatasetsProvider,
  yahooFinanceProvider,
  INTERVALS,
  PERIODS,
  STATEMENT_PERIODS,
  STATEMENTS,
  type AnalystRecommendations,
  type CompanyProfile,
  type EarningsReport,
  type Filing,
  type FinanceCapability,
  type FinanceProvider,
  type FinanceRequest,
  type FinanceToolsOptions,
  type FinancialDatasetsOptions,
  type YahooFinanceOptions,
  type FinancialStatement,
  type InsiderTrade,
  type FinanceInterval,
  type KeyMetrics,
  type NewsItem,
  type FinancePeriod,
  type PriceBar,
  type PriceHistory,
  type Quote,
  type FinanceStatementKind,
  type FinanceStatementPeriod,
  type SymbolMatch,
} from "./finance/index.js";
export {
  MINIMAX_VIDEO_JOB_TYPE,
  MINIMAX_VIDEOS_STATE_KEY,
  MiniMaxTools,
  type MiniMaxToolsOptions,
  type MiniMaxVideoJobPayload,
  type MiniMaxVideoModel,
  type MiniMaxVideoResult,
} from "./minimax/index.js";
export {
  StudioTools,
  type StudioError,
  type StudioErrorCode,
  type StudioResult,
  type StudioToolsOptions,
} from "./studio/index.js";
