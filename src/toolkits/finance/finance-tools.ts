import { z } from "zod";
import { tool, Toolkit, type Tool } from "../../tools/tool.js";
import { financePayload } from "./finance-payload.js";
import type { FinanceProvider } from "./finance-provider.js";
import {
  FINANCE_CAPABILITIES,
  INTERVALS,
  PERIODS,
  STATEMENT_PERIODS,
  STATEMENTS,
  type FinanceCapability,
} from "./finance-vocabulary.js";

// Upper bounds on list sizes (agno's), so one call cannot flood the model's context.
const MAX_SEARCH_RESULTS = 25;
const MAX_STATEMENTS = 20;
const MAX_NEWS = 50;
const MAX_INSIDER_TRADES = 100;
const MAX_EARNINGS = 40;
const MAX_FILINGS = 100;
/** Price bars kept (the most recent): a `max` history of daily bars would otherwise run to thousands. */
const MAX_BARS = 3000;

/** Letters, digits and the marks tickers use (BRK.B, ^GSPC, EURUSD=X, BTC-USD); never a path separator. */
const SYMBOL = /^[A-Z0-9.^=:_-]{1,20}$/;

export interface FinanceToolsOptions {
  /** the data source: financialDatasetsProvider({ apiKey }) or your own FinanceProvider */
  provider: FinanceProvider;
  /** `search_symbols` (company name to ticker); default true */
  searchSymbols?: boolean;
  /** `get_quote`; default true */
  quote?: boolean;
  /** `get_price_history`; default true */
  priceHistory?: boolean;
  /** `get_company_profile`; default true */
  companyProfile?: boolean;
  /** `get_key_metrics`; default true */
  keyMetrics?: boolean;
  /** `get_news`; default true */
  news?: boolean;
  /** `get_analyst_recommendations`; default true */
  analystRecommendations?: boolean;
  /** `get_financials` (statements: large answers); default false */
  financials?: boolean;
  /** `get_insider_trades`; default false */
  insiderTrades?: boolean;
  /** `get_earnings`; default false */
  earnings?: boolean;
  /** `get_sec_filings`; default false */
  secFilings?: boolean;
  /** every tool the provider serves, whatever the flags say; default false */
  all?: boolean;
  /** only these tools; naming a finance tool here turns it on (as agno's include_tools does) */
  include?: string[];
  exclude?: string[];
}

type Toggle = Exclude<keyof FinanceToolsOptions, "provider" | "all" | "include" | "exclude">;
type Method = Exclude<keyof FinanceProvider, "id" | "name" | "capabilities">;

/** Per capability: the option that turns it on, agno's default, and the provider method that serves it. */
const WIRING: Record<FinanceCapability, { toggle: Toggle; on: boolean; method: Method }> = {
  search_symbols: { toggle: "searchSymbols", on: true, method: "searchSymbols" },
  get_quote: { toggle: "quote", on: true, method: "getQuote" },
  get_price_history: { toggle: "priceHistory", on: true, method: "getPriceHistory" },
  get_company_profile: { toggle: "companyProfile", on: true, method: "getCompanyProfile" },
  get_key_metrics: { toggle: "keyMetrics", on: true, method: "getKeyMetrics" },
  get_news: { toggle: "news", on: true, method: "getNews" },
  get_analyst_recommendations: { toggle: "analystRecommendations", on: true, method: "getAnalystRecommendations" },
  get_financials: { toggle: "financials", on: false, method: "getFinancials" },
  get_insider_trades: { toggle: "insiderTrades", on: false, method: "getInsiderTrades" },
  get_earnings: { toggle: "earnings", on: false, method: "getEarnings" },
  get_sec_filings: { toggle: "secFilings", on: false, method: "getSecFilings" },
};

const symbol = z
  .string()
  .trim()
  .toUpperCase()
  .regex(SYMBOL, "a ticker symbol such as NVDA, BRK.B or ^GSPC")
  .describe('Ticker symbol, e.g. "NVDA".');
const limit = (cap: number, byDefault: number, what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(cap)
    .default(byDefault)
    .describe(`Maximum number of ${what} (1 to ${cap}). Defaults to ${byDefault}.`);
const bySymbol = z.object({ symbol });

/** The arguments echoed on every answer so the model can tie a result to its request (agno's context). */
const ECHOED = ["symbol", "query", "statement", "period", "interval", "form_type"] as const;

/**
 * agno 3.0's FinanceTools: one finance toolkit over a swappable data provider. The toolkit owns
 * the tool names, arguments and JSON answers; the provider (financialDatasetsProvider or any
 * FinanceProvider) supplies the data. A tool is registered only when its flag is on and the
 * provider declares the capability, so the model never sees a tool the provider cannot serve.
 * Arguments are checked before any request; a provider's failure is the tool error the model reads.
 *
 * @example
 * new FinanceTools({ provider: financialDatasetsProvider({ apiKey: env.FINANCIAL_DATASETS_API_KEY }), financials: true })
 */
export class FinanceTools extends Toolkit {
  readonly provider: FinanceProvider;

  constructor(opts: FinanceToolsOptions) {
    const provider = opts.provider;
    const capabilities: readonly FinanceCapability[] | undefined = provider?.capabilities;
    if (!Array.isArray(capabilities))
      throw new TypeError("FinanceTools needs a provider (a FinanceProvider with its capabilities)");
    const serves = (c: FinanceCapability) => provider.capabilities.includes(c);
    for (const c of provider.capabilities) {
      const wiring = Object.hasOwn(WIRING, c) ? WIRING[c] : undefined;
      if (!wiring) throw new TypeError(`finance provider ${provider.id} declares an unknown capability ${c}`);
      if (typeof provider[wiring.method] !== "function")
        throw new TypeError(`finance provider ${provider.id} declares ${c} but has no ${wiring.method}()`);
    }
    for (const name of opts.include ?? [])
      if ((FINANCE_CAPABILITIES as readonly string[]).includes(name) && !serves(name as FinanceCapability))
        throw new TypeError(`${provider.name} does not serve ${name}; it serves ${provider.capabilities.join(", ")}`);

    const call = <A extends Record<string, unknown>>(
      name: FinanceCapability,
      description: string,
      parameters: z.ZodType<A>,
      ask: (args: A, signal: AbortSignal) => Promise<unknown> | undefined,
    ): Tool =>
      tool({
        name,
        description,
        parameters,
        execute: async (args: A, ctx) => {
          let result = await ask(args, ctx.signal);
          // The cap holds whatever a provider answers.
          if (Array.isArray(result) && typeof args.limit === "number") result = result.slice(0, args.limit);
          const context: Record<string, unknown> = {};
          for (const key of ECHOED) if (args[key] !== undefined && args[key] !== "") context[key] = args[key];
          return financePayload(result, context, provider.id);
        },
      });

    const byName: Record<FinanceCapability, () => Tool> = {
      search_symbols: () =>
        call(
          "search_symbols",
          'Search for ticker symbols by company name or keyword. Use this when you have a company name but not its ticker (e.g. "NVIDIA" -> NVDA). Returns `results` (symbol, name, exchange, type).',
          z.object({
            query: z.string().trim().min(1).max(200).describe("Company name or keyword."),
            limit: limit(MAX_SEARCH_RESULTS, 5, "matches"),
          }),
          ({ query, limit }, signal) => provider.searchSymbols?.({ query, limit, signal }),
        ),
      get_quote: () =>
        call(
          "get_quote",
          "Get the current price and day change for a ticker symbol: price, currency, change, change_percent, open/high/low, previous_close, volume, market_cap, 52-week range, exchange, as_of.",
          bySymbol,
          ({ symbol }, signal) => provider.getQuote?.({ symbol, signal }),
        ),
      get_price_history: () =>
        call(
          "get_price_history",
          "Get historical OHLCV price bars for a ticker symbol, oldest first: symbol, period, interval, currency, `bars` (date, open, high, low, close, volume).",
          z.object({
            symbol,
            period: z
              .enum(PERIODS)
              .default("1mo")
              .describe(`Look-back window, one of ${PERIODS.join(", ")}.`),
            interval: z
              .enum(INTERVALS)
              .default("1d")
              .describe(`Bar size, one of ${INTERVALS.join(", ")}.`),
          }),
          async ({ symbol, period, interval }, signal) => {
            const history = await provider.getPriceHistory?.({ symbol, period, interval, signal });
            return history && history.bars.length > MAX_BARS
              ? { ...history, bars: history.bars.slice(-MAX_BARS) }
              : history;
          },
        ),
      get_company_profile: () =>
        call(
          "get_company_profile",
          "Get the company profile for a ticker symbol: name, description, sector, industry, exchange, location, website, employees.",
          bySymbol,
          ({ symbol }, signal) => provider.getCompanyProfile?.({ symbol, signal }),
        ),
      get_key_metrics: () =>
        call(
          "get_key_metrics",
          "Get key financial metrics for a ticker symbol: market cap, P/E, PEG, P/B, P/S, EV/EBITDA, EPS, dividend yield, beta, margins, ROE/ROA, growth, debt-to-equity, current ratio, free cash flow, revenue, EBITDA. Ratios and margins are fractions (0.05 is 5%); missing metrics are left out.",
          bySymbol,
          ({ symbol }, signal) => provider.getKeyMetrics?.({ symbol, signal }),
        ),
      get_news: () =>
        call(
          "get_news",
          "Get recent news headlines for a ticker symbol: `results` (title, url, source, published_at, summary).",
          z.object({ symbol, limit: limit(MAX_NEWS, 10, "articles") }),
          ({ symbol, limit }, signal) => provider.getNews?.({ symbol, limit, signal }),
        ),
      get_analyst_recommendations: () =>
        call(
          "get_analyst_recommendations",
          "Get analyst consensus and price targets for a ticker symbol: consensus, strong_buy/buy/hold/sell/strong_sell counts, num_analysts, target_mean/high/low/median, current_price, as_of.",
          bySymbol,
          ({ symbol }, signal) => provider.getAnalystRecommendations?.({ symbol, signal }),
        ),
      get_financials: () =>
        call(
          "get_financials",
          "Get financial statements for a ticker symbol, most recent period first: `results`, one record per period (report_period, fiscal_period, currency, `items` = line items as snake_case keys).",
          z.object({
            symbol,
            statement: z
              .enum(STATEMENTS)
              .default("income")
              .describe(`One of ${STATEMENTS.join(", ")}.`),
            period: z
              .enum(STATEMENT_PERIODS)
              .default("annual")
              .describe(`One of ${STATEMENT_PERIODS.join(", ")}.`),
            limit: limit(MAX_STATEMENTS, 4, "periods"),
          }),
          ({ symbol, statement, period, limit }, signal) =>
            provider.getFinancials?.({ symbol, statement, period, limit, signal }),
        ),
      get_insider_trades: () =>
        call(
          "get_insider_trades",
          "Get recent insider transactions (buys, sells, grants) for a ticker symbol: `results` (insider, title, transaction_type, transaction_date, shares, price, value, shares_owned_after, filing_date, url).",
          z.object({ symbol, limit: limit(MAX_INSIDER_TRADES, 20, "transactions") }),
          ({ symbol, limit }, signal) => provider.getInsiderTrades?.({ symbol, limit, signal }),
        ),
      get_earnings: () =>
        call(
          "get_earnings",
          "Get reported and estimated earnings by period for a ticker symbol: `results` (report_period, fiscal_period, eps, eps_estimate, surprise_percent, revenue, net_income, filing_date, url).",
          z.object({ symbol, limit: limit(MAX_EARNINGS, 8, "periods") }),
          ({ symbol, limit }, signal) => provider.getEarnings?.({ symbol, limit, signal }),
        ),
      get_sec_filings: () =>
        call(
          "get_sec_filings",
          "Get recent SEC filings for a ticker symbol: `results` (form_type, filing_date, report_period, title, url, accession_number).",
          z.object({
            symbol,
            form_type: z
              .string()
              .trim()
              .toUpperCase()
              .regex(/^(?:[A-Z0-9][A-Z0-9 ./-]{0,19})?$/, "a form type such as 10-K, 10-Q or 8-K")
              .optional()
              .describe('Filter by form type, e.g. "10-K", "10-Q", "8-K". Defaults to all.'),
            limit: limit(MAX_FILINGS, 10, "filings"),
          }),
          ({ symbol, form_type, limit }, signal) =>
            provider.getSecFilings?.({ symbol, formType: form_type || undefined, limit, signal }),
        ),
    };

    const included = new Set(opts.include ?? []);
    const tools = FINANCE_CAPABILITIES.filter(
      (c) => (opts.all || (opts[WIRING[c].toggle] ?? WIRING[c].on) || included.has(c)) && serves(c),
    ).map((c) => byName[c]());
    super({ id: "finance_tools", name: "finance_tools", tools, include: opts.include, exclude: opts.exclude });
    this.provider = provider;
  }
}
