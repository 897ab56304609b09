export { FinanceTools, type FinanceToolsOptions } from "./finance-tools.js";
export { financialDatasetsProvider, type FinancialDatasetsOptions } from "./financial-datasets-provider.js";
export { yahooFinanceProvider, type YahooFinanceOptions } from "./yahoo-finance-provider.js";
export { FinanceProviderError } from "./finance-provider-error.js";
export type {
  AnalystRecommendations,
  CompanyProfile,
  EarningsReport,
  Filing,
  FinanceProvider,
  FinanceRequest,
  FinancialStatement,
  InsiderTrade,
  KeyMetrics,
  NewsItem,
  PriceBar,
  PriceHistory,
  Quote,
  SymbolMatch,
} from "./finance-provider.js";
export {
  FINANCE_CAPABILITIES,
  INTERVALS,
  PERIODS,
  STATEMENT_PERIODS,
  STATEMENTS,
  type FinanceCapability,
  type FinanceInterval,
  type FinancePeriod,
  type FinanceStatementKind,
  type FinanceStatementPeriod,
} from "./finance-vocabulary.js";
