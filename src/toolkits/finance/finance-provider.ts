import type {
  FinanceCapability,
  FinanceInterval,
  FinancePeriod,
  FinanceStatementKind,
  FinanceStatementPeriod,
} from "./finance-vocabulary.js";

/** What every provider call receives besides its arguments: aborted when the run is cancelled. */
export interface FinanceRequest {
  signal?: AbortSignal;
}

export interface SymbolMatch {
  symbol: string;
  name?: string | null;
  exchange?: string | null;
  type?: string | null;
}

export interface Quote {
  symbol: string;
  price?: number | null;
  currency?: string | null;
  name?: string | null;
  change?: number | null;
  change_percent?: number | null;
  open?: number | null;
  high?: number | null;
  low?: number | null;
  previous_close?: number | null;
  volume?: number | null;
  market_cap?: number | null;
  fifty_two_week_high?: number | null;
  fifty_two_week_low?: number | null;
  exchange?: string | null;
  as_of?: string | null;
}

export interface PriceBar {
  date: string;
  open?: number | null;
  high?: number | null;
  low?: number | null;
  close?: number | null;
  volume?: number | null;
}

/** Bars oldest first. */
export interface PriceHistory {
  symbol: string;
  period: FinancePeriod;
  interval: FinanceInterval;
  currency?: string | null;
  bars: PriceBar[];
}

export interface CompanyProfile {
  symbol: string;
  name?: string | null;
  description?: string | null;
  sector?: string | null;
  industry?: string | null;
  exchange?: string | null;
  country?: string | null;
  location?: string | null;
  website?: string | null;
  employees?: number | null;
  currency?: string | null;
  market_cap?: number | null;
  cik?: string | null;
}

/** Ratios, margins, growth rates and yields are fractions (0.05 is 5%); money in the reporting currency. */
export interface KeyMetrics {
  symbol: string;
  currency?: string | null;
  market_cap?: number | null;
  enterprise_value?: number | null;
  pe_ratio?: number | null;
  forward_pe?: number | null;
  peg_ratio?: number | null;
  price_to_book?: number | null;
  price_to_sales?: number | null;
  ev_to_ebitda?: number | null;
  eps?: number | null;
  dividend_yield?: number | null;
  beta?: number | null;
  gross_margin?: number | null;
  operating_margin?: number | null;
  net_margin?: number | null;
  return_on_equity?: number | null;
  return_on_assets?: number | null;
  revenue_growth?: number | null;
  earnings_growth?: number | null;
  debt_to_equity?: number | null;
  current_ratio?: number | null;
  free_cash_flow?: number | null;
  revenue?: number | null;
  ebitda?: number | null;
  fifty_two_week_high?: number | null;
  fifty_two_week_low?: number | null;
  as_of?: string | null;
}

/** One statement for one period; `items` keeps the provider's line items as snake_case keys. */
export interface FinancialStatement {
  symbol: string;
  statement: FinanceStatementKind;
  period: string;
  report_period?: string | null;
  fiscal_period?: string | null;
  currency?: string | null;
  items: Record<string, unknown>;
}

export interface NewsItem {
  title?: string | null;
  url?: string | null;
  source?: string | null;
  published_at?: string | null;
  summary?: string | null;
}

export interface AnalystRecommendations {
  symbol: string;
  consensus?: string | null;
  strong_buy?: number | null;
  buy?: number | null;
  hold?: number | null;
  sell?: number | null;
  strong_sell?: number | null;
  num_analysts?: number | null;
  target_mean?: number | null;
  target_high?: number | null;
  target_low?: number | null;
  target_median?: number | null;
  current_price?: number | null;
  as_of?: string | null;
}

export interface InsiderTrade {
  symbol: string;
  insider?: string | null;
  title?: string | null;
  transaction_type?: string | null;
  transaction_date?: string | null;
  shares?: number | null;
  price?: number | null;
  value?: number | null;
  shares_owned_after?: number | null;
  filing_date?: string | null;
  url?: string | null;
}

/** `report_period` is the fiscal period end; `announced_at` when results were (or will be) reported. */
export interface EarningsReport {
  symbol: string;
  report_period?: string | null;
  fiscal_period?: string | null;
  announced_at?: string | null;
  eps?: number | null;
  eps_estimate?: number | null;
  surprise_percent?: number | null;
  revenue?: number | null;
  net_income?: number | null;
  filing_date?: string | null;
  url?: string | null;
}

export interface Filing {
  symbol: string;
  form_type?: string | null;
  filing_date?: string | null;
  report_period?: string | null;
  title?: string | null;
  url?: string | null;
  accession_number?: string | null;
}

/**
 * The port a market-data source implements (agno 3.0's FinanceProvider): FinanceTools owns the
 * tool names, arguments and answer shapes; a provider declares the capabilities it serves (the
 * toolkit registers only those tools) and implements the method of each. Arguments arrive checked
 * (symbol upper-cased, enums and limits in range). Throw FinanceProviderError (or UpstreamError)
 * with a message the model may read on failure.
 */
export interface FinanceProvider {
  /** stable id, echoed as `provider` in every answer, e.g. "financial_datasets" */
  readonly id: string;
  /** human name, e.g. "Financial Datasets (financialdatasets.ai)" */
  readonly name: string;
  readonly capabilities: readonly FinanceCapability[];
  searchSymbols?(req: FinanceRequest & { query: string; limit: number }): Promise<SymbolMatch[]>;
  getQuote?(req: FinanceRequest & { symbol: string }): Promise<Quote>;
  getPriceHistory?(
    req: FinanceRequest & { symbol: string; period: FinancePeriod; interval: FinanceInterval },
  ): Promise<PriceHistory>;
  getCompanyProfile?(req: FinanceRequest & { symbol: string }): Promise<CompanyProfile>;
  getKeyMetrics?(req: FinanceRequest & { symbol: string }): Promise<KeyMetrics>;
  getNews?(req: FinanceRequest & { symbol: string; limit: number }): Promise<NewsItem[]>;
  getAnalystRecommendations?(req: FinanceRequest & { symbol: string }): Promise<AnalystRecommendations>;
  getFinancials?(
    req: FinanceRequest & {
      symbol: string;
      statement: FinanceStatementKind;
      period: FinanceStatementPeriod;
      limit: number;
    },
  ): Promise<FinancialStatement[]>;
  getInsiderTrades?(req: FinanceRequest & { symbol: string; limit: number }): Promise<InsiderTrade[]>;
  getEarnings?(req: FinanceRequest & { symbol: string; limit: number }): Promise<EarningsReport[]>;
  getSecFilings?(req: FinanceRequest & { symbol: string; formType?: string; limit: number }): Promise<Filing[]>;
}
