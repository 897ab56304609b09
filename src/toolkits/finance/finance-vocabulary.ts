/**
 * The finance port's vocabulary, agno 3.0's: capabilities are the tool names (in the order the
 * model's tool list shows them), and the enum-style arguments are checked by the toolkit before a
 * provider is asked, so the model reads one error whatever the provider.
 */
export const FINANCE_CAPABILITIES = [
  "search_symbols",
  "get_quote",
  "get_price_history",
  "get_company_profile",
  "get_key_metrics",
  "get_news",
  "get_analyst_recommendations",
  "get_financials",
  "get_insider_trades",
  "get_earnings",
  "get_sec_filings",
] as const;

export type FinanceCapability = (typeof FINANCE_CAPABILITIES)[number];

/** `get_price_history`'s look-back windows. */
export const PERIODS = ["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "ytd", "max"] as const;
/** `get_price_history`'s bar sizes. */
export const INTERVALS = ["1d", "1wk", "1mo"] as const;
/** `get_financials`'s statements. */
export const STATEMENTS = ["income", "balance_sheet", "cash_flow"] as const;
/** `get_financials`'s periods. */
export const STATEMENT_PERIODS = ["annual", "quarterly", "ttm"] as const;

export type FinancePeriod = (typeof PERIODS)[number];
export type FinanceInterval = (typeof INTERVALS)[number];
export type FinanceStatementKind = (typeof STATEMENTS)[number];
export type FinanceStatementPeriod = (typeof STATEMENT_PERIODS)[number];
