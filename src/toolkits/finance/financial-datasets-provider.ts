import { httpJson } from "../http-json.js";
import { jsonRecord } from "./json-record.js";
import { FinanceProviderError } from "./finance-provider-error.js";
import type {
  CompanyProfile,
  EarningsReport,
  FinanceProvider,
  FinancialStatement,
  Filing,
  InsiderTrade,
  KeyMetrics,
  NewsItem,
  PriceHistory,
  Quote,
} from "./finance-provider.js";
import type { FinanceInterval, FinancePeriod, FinanceStatementKind } from "./finance-vocabulary.js";

export interface FinancialDatasetsOptions {
  /** the key from financialdatasets.ai, sent as X-API-KEY (every request costs credits) */
  apiKey: string;
  /** default https://api.financialdatasets.ai */
  baseUrl?: string;
  /** per request, in milliseconds (default 30 s) */
  timeoutMs?: number;
  /** largest answer read per request, in bytes (default 2 MiB) */
  maxBytes?: number;
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;

const SERVICE = "financialdatasets.ai";
/** The API answers at most this many news articles per request. */
const NEWS_MAX = 10;
/** A hard stop on following `next_page_url` (list pages hold 10 records, /prices pages 100 bars). */
const MAX_PAGES = 30;
/**
 * Look-back window per period, in days (ytd: from 1 January). Short windows are widened so
 * weekends and holidays never give an empty range; TRIM_BARS then keeps the last bars.
 */
const PERIOD_DAYS: Record<FinancePeriod, number | null> = {
  "1d": 7,
  "5d": 12,
  "1mo": 31,
  "3mo": 92,
  "6mo": 183,
  "1y": 366,
  "2y": 731,
  "5y": 1827,
  ytd: null,
  max: 365 * 40,
};
const TRIM_BARS: Partial<Record<FinancePeriod, number>> = { "1d": 1, "5d": 5 };
const INTERVAL: Record<FinanceInterval, string> = { "1d": "day", "1wk": "week", "1mo": "month" };
const STATEMENT_PATH: Record<FinanceStatementKind, string> = {
  income: "financials/income-statements",
  balance_sheet: "financials/balance-sheets",
  cash_flow: "financials/cash-flow-statements",
};
const STATEMENT_KEY: Record<FinanceStatementKind, string> = {
  income: "income_statements",
  balance_sheet: "balance_sheets",
  cash_flow: "cash_flow_statements",
};
/** Metadata on statement records; every other field is a line item. */
const STATEMENT_META = new Set([
  "ticker",
  "report_period",
  "fiscal_period",
  "period",
  "currency",
  "accession_number",
  "form_type",
  "filing_url",
  "filing_date",
  "filing_datetime",
  "cik",
]);

const num = (v: unknown): number | null => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim()) {
    const n = Number(v.replace(/,/g, ""));
    return Number.isFinite(n) ? n : null;
  }
  return null;
};
const int = (v: unknown): number | null => {
  const n = num(v);
  return n === null ? null : Math.trunc(n);
};
const str = (v: unknown): string | null => {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).trim();
  return s || null;
};
const obj = jsonRecord;
const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((r): r is Json => obj(r) !== null) : []);
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "+00:00");
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * financialdatasets.ai's REST API as a FinanceProvider (agno 3.0's FinancialDatasets): prices,
 * company facts, metrics, statements, news, insider trades, earnings and SEC filings for US
 * companies, with an X-API-KEY. The API has no symbol search and no analyst recommendations, so
 * FinanceTools does not offer those tools with this provider. Lists follow `next_page_url` (on
 * the API's own origin only, so the key never goes elsewhere) until the limit, at most 30 pages.
 *
 * @example
 * new FinanceTools({ provider: financialDatasetsProvider({ apiKey: env.FINANCIAL_DATASETS_API_KEY }) })
 */
export function financialDatasetsProvider(opts: FinancialDatasetsOptions): FinanceProvider {
  if (!opts.apiKey) throw new TypeError("financialDatasetsProvider needs an apiKey");
  const base = (opts.baseUrl ?? "https://api.financialdatasets.ai").replace(/\/+$/, "");
  const origin = new URL(base).origin;

  const getUrl = async (url: string, path: string, signal?: AbortSignal): Promise<Json> => {
    const body = await httpJson(
      url,
      { headers: { "x-api-key": opts.apiKey, accept: "application/json" } },
      {
        service: SERVICE,
        timeoutMs: opts.timeoutMs ?? 30_000,
        maxBytes: opts.maxBytes ?? 2 * 1024 * 1024,
        fetch: opts.fetch,
        signal,
      },
    );
    const data = obj(body);
    if (!data) throw new FinanceProviderError(`${SERVICE} ${path}: unexpected response shape`);
    return data;
  };
  const get = (path: string, params: Record<string, string | number | undefined>, signal?: AbortSignal) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    return getUrl(`${base}/${path}?${q}`, path, signal);
  };
  /** One list, page after page until `limit` records (every page up to MAX_PAGES without one). */
  const pages = async (
    path: string,
    params: Record<string, string | number | undefined>,
    key: string,
    limit: number | undefined,
    signal?: AbortSignal,
  ): Promise<Json[]> => {
    let data = await get(path, params, signal);
    const items = records(data[key]);
    for (let n = 1; n < MAX_PAGES && (limit === undefined || items.length < limit); n++) {
      const next = typeof data.next_page_url === "string" ? safeNext(data.next_page_url) : null;
      if (!next) break;
      data = await getUrl(next, path, signal);
      items.push(...records(data[key]));
    }
    return limit === undefined ? items : items.slice(0, limit);
  };
  const safeNext = (next: string): string | null => {
    try {
      const url = new URL(next, `${base}/`);
      return url.origin === origin ? url.href : null;
    } catch {
      return null;
    }
  };

  return {
    id: "financial_datasets",
    name: "Financial Datasets (financialdatasets.ai)",
    capabilities: [
      "get_quote",
      "get_price_history",
      "get_company_profile",
      "get_key_metrics",
      "get_news",
      "get_financials",
      "get_insider_trades",
      "get_earnings",
      "get_sec_filings",
    ],

    async getQuote({ symbol, signal }): Promise<Quote> {
      const snap = obj((await get("prices/snapshot", { ticker: symbol }, signal)).snapshot);
      if (!snap || num(snap.price) === null) throw new FinanceProviderError(`No quote data for symbol ${symbol}`);
      return {
        symbol: str(snap.ticker) ?? symbol,
        price: num(snap.price),
        currency: "USD",
        change: num(snap.day_change),
        change_percent: num(snap.day_change_percent),
        as_of: str(snap.time),
      };
    },

    async getPriceHistory({ symbol, period, interval, signal }): Promise<PriceHistory> {
      const today = new Date();
      const days = PERIOD_DAYS[period];
      const start =
        days === null
          ? new Date(Date.UTC(today.getUTCFullYear(), 0, 1))
          : new Date(today.getTime() - days * 86_400_000);
      const prices = await pages(
        "prices",
        {
          ticker: symbol,
          interval: INTERVAL[interval],
          interval_multiplier: 1,
          start_date: day(start),
          end_date: day(today),
        },
        "prices",
        undefined,
        signal,
      );
      if (prices.length === 0)
        throw new FinanceProviderError(
          `No price history for symbol ${symbol} (period=${period}, interval=${interval})`,
        );
      let bars = prices.map((p) => ({
        date: str(p.time) ?? "",
        open: num(p.open),
        high: num(p.high),
        low: num(p.low),
        close: num(p.close),
        volume: num(p.volume),
      }));
      // Bars come oldest first; short periods asked for a wider window, so keep the tail.
      const trim = TRIM_BARS[period];
      if (trim !== undefined && bars.length > trim) bars = bars.slice(-trim);
      return { symbol, period, interval, currency: "USD", bars };
    },

    async getCompanyProfile({ symbol, signal }): Promise<CompanyProfile> {
      const facts = obj((await get("company/facts", { ticker: symbol }, signal)).company_facts);
      if (!facts || Object.keys(facts).length === 0)
        throw new FinanceProviderError(`No company facts for symbol ${symbol}`);
      return {
        symbol: str(facts.ticker) ?? symbol,
        name: str(facts.name),
        sector: str(facts.sector),
        industry: str(facts.industry) ?? str(facts.sic_industry),
        exchange: str(facts.exchange),
        location: str(facts.location),
        website: str(facts.website) ?? str(facts.website_url),
        employees: int(facts.number_of_employees),
        market_cap: num(facts.market_cap),
        cik: str(facts.cik),
      };
    },

    async getKeyMetrics({ symbol, signal }): Promise<KeyMetrics> {
      const snap = obj((await get("financial-metrics/snapshot", { ticker: symbol }, signal)).snapshot);
      if (!snap || Object.keys(snap).length === 0)
        throw new FinanceProviderError(`No financial metrics for symbol ${symbol}`);
      return {
        symbol: str(snap.ticker) ?? symbol,
        currency: str(snap.currency),
        market_cap: num(snap.market_cap),
        enterprise_value: num(snap.enterprise_value),
        pe_ratio: num(snap.price_to_earnings_ratio),
        peg_ratio: num(snap.peg_ratio),
        price_to_book: num(snap.price_to_book_ratio),
        price_to_sales: num(snap.price_to_sales_ratio),
        ev_to_ebitda: num(snap.enterprise_value_to_ebitda_ratio),
        eps: num(snap.earnings_per_share),
        gross_margin: num(snap.gross_margin),
        operating_margin: num(snap.operating_margin),
        net_margin: num(snap.net_margin),
        return_on_equity: num(snap.return_on_equity),
        return_on_assets: num(snap.return_on_assets),
        revenue_growth: num(snap.revenue_growth),
        earnings_growth: num(snap.earnings_growth),
        debt_to_equity: num(snap.debt_to_equity),
        current_ratio: num(snap.current_ratio),
        as_of: now(),
      };
    },

    async getFinancials({ symbol, statement, period, limit, signal }): Promise<FinancialStatement[]> {
      const rows = await pages(
        STATEMENT_PATH[statement],
        { ticker: symbol, period, limit },
        STATEMENT_KEY[statement],
        limit,
        signal,
      );
      if (rows.length === 0) throw new FinanceProviderError(`No ${period} ${statement} statement for symbol ${symbol}`);
      return rows.map((r) => ({
        symbol: str(r.ticker) ?? symbol,
        statement,
        period: str(r.period) ?? period,
        report_period: str(r.report_period),
        fiscal_period: str(r.fiscal_period),
        currency: str(r.currency),
        items: Object.fromEntries(Object.entries(r).filter(([k, v]) => !STATEMENT_META.has(k) && v != null)),
      }));
    },

    async getNews({ symbol, limit, signal }): Promise<NewsItem[]> {
      const capped = Math.min(limit, NEWS_MAX);
      const news = await pages("news", { ticker: symbol, limit: capped }, "news", capped, signal);
      return news
        .filter((n) => str(n.title))
        .map((n) => {
          const sentiment = str(n.sentiment);
          return {
            title: str(n.title),
            url: str(n.url),
            source: str(n.source),
            published_at: str(n.date),
            summary: sentiment ? `sentiment: ${sentiment}` : null,
          };
        });
    },

    async getInsiderTrades({ symbol, limit, signal }): Promise<InsiderTrade[]> {
      const trades = await pages("insider-trades", { ticker: symbol, limit }, "insider_trades", limit, signal);
      return trades.map((t) => ({
        symbol: str(t.ticker) ?? symbol,
        insider: str(t.name),
        title: str(t.title),
        transaction_type: str(t.transaction_type) ?? str(t.transaction_code),
        transaction_date: str(t.transaction_date),
        shares: num(t.transaction_shares),
        price: num(t.transaction_price_per_share),
        value: num(t.transaction_value),
        shares_owned_after: num(t.shares_owned_after_transaction),
        filing_date: str(t.filing_date),
      }));
    },

    async getEarnings({ symbol, limit, signal }): Promise<EarningsReport[]> {
      const data = await get("earnings", { ticker: symbol, limit }, signal);
      // A list of filings; older answers held one record instead.
      const rows = Array.isArray(data.earnings) ? records(data.earnings) : records([data.earnings]);
      return rows.slice(0, limit).map((e) => {
        const block = obj(e.quarterly) ?? obj(e.annual) ?? {};
        return {
          symbol: str(e.ticker) ?? symbol,
          report_period: str(e.report_period),
          fiscal_period: str(e.fiscal_period),
          eps: num(block.earnings_per_share),
          eps_estimate: num(block.estimated_earnings_per_share),
          surprise_percent: num(block.eps_surprise_pct),
          revenue: num(block.revenue),
          net_income: num(block.net_income),
          filing_date: str(e.filing_date),
          url: str(e.filing_url),
        };
      });
    },

    async getSecFilings({ symbol, formType, limit, signal }): Promise<Filing[]> {
      const filings = await pages(
        "filings",
        { ticker: symbol, limit, filing_type: formType },
        "filings",
        limit,
        signal,
      );
      return filings.map((f) => ({
        symbol: str(f.ticker) ?? symbol,
        form_type: str(f.filing_type),
        filing_date: str(f.filing_date),
        report_period: str(f.report_date),
        url: str(f.url),
        accession_number: str(f.accession_number),
      }));
    },
  };
}
