import { httpJson } from "../http-json.js";
import { jsonRecord } from "./json-record.js";
import { UpstreamError } from "../upstream-error.js";
import { FinanceProviderError } from "./finance-provider-error.js";
import type { FinanceProvider, NewsItem, PriceBar, PriceHistory, Quote, SymbolMatch } from "./finance-provider.js";

export interface YahooFinanceOptions {
  /** default https://query1.finance.yahoo.com */
  baseUrl?: string;
  /** per request, in milliseconds (default 15 s) */
  timeoutMs?: number;
  /** largest answer read per request, in bytes (default 2 MiB) */
  maxBytes?: number;
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;

const SERVICE = "yahoo finance";
const obj = jsonRecord;
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);
const isoSeconds = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00");

/**
 * Yahoo Finance's public chart and search endpoints as a keyless FinanceProvider: symbol search,
 * quotes, price history and news (what agno's yfinance provider reads from the same endpoints).
 * Unofficial, rate-limited and, by Yahoo's terms, for personal use: use a keyed provider such as
 * financialDatasetsProvider when that matters.
 */
export function yahooFinanceProvider(opts: YahooFinanceOptions = {}): FinanceProvider {
  const base = (opts.baseUrl ?? "https://query1.finance.yahoo.com").replace(/\/+$/, "");
  const get = async (path: string, params: Record<string, string | number>, signal?: AbortSignal): Promise<Json> => {
    const q = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const body = await httpJson(
      `${base}${path}?${q}`,
      { headers: { accept: "application/json", "user-agent": "Mozilla/5.0 (compatible; agno-edge)" } },
      {
        service: SERVICE,
        timeoutMs: opts.timeoutMs ?? 15_000,
        maxBytes: opts.maxBytes ?? 2 * 1024 * 1024,
        fetch: opts.fetch,
        signal,
      },
    );
    const data = obj(body);
    if (!data) throw new FinanceProviderError(`${SERVICE} ${path}: unexpected response shape`);
    return data;
  };
  /** One symbol's chart: its `meta` and bars. Yahoo answers 404 for a symbol it does not know. */
  const chart = async (symbol: string, range: string, interval: string, signal?: AbortSignal) => {
    let data: Json;
    try {
      data = await get(`/v8/finance/chart/${encodeURIComponent(symbol)}`, { range, interval }, signal);
    } catch (error) {
      if (error instanceof UpstreamError && / answered 404\b/.test(error.message))
        throw new FinanceProviderError(`No data found for symbol ${symbol}; check the ticker`);
      throw error;
    }
    const result = obj((obj(data.chart)?.result as unknown[] | undefined)?.[0]);
    const meta = obj(result?.meta);
    if (!result || !meta) throw new FinanceProviderError(`No data found for symbol ${symbol}; check the ticker`);
    return { meta, result };
  };

  return {
    id: "yahoo_finance",
    name: "Yahoo Finance (public endpoints, no key)",
    capabilities: ["search_symbols", "get_quote", "get_price_history", "get_news"],

    async searchSymbols({ query, limit, signal }): Promise<SymbolMatch[]> {
      const data = await get("/v1/finance/search", { q: query, quotesCount: limit, newsCount: 0 }, signal);
      const quotes = Array.isArray(data.quotes) ? data.quotes.map(obj) : [];
      return quotes
        .filter((q): q is Json => !!q && !!str(q.symbol))
        .map((q) => ({
          symbol: str(q.symbol)!,
          name: str(q.longname) ?? str(q.shortname),
          exchange: str(q.exchDisp) ?? str(q.exchange),
          type: str(q.quoteType),
        }));
    },

    async getQuote({ symbol, signal }): Promise<Quote> {
      const { meta } = await chart(symbol, "1d", "1d", signal);
      const price = num(meta.regularMarketPrice);
      if (price === null) throw new FinanceProviderError(`No quote data for symbol ${symbol}; check the ticker`);
      const previous = num(meta.chartPreviousClose) ?? num(meta.previousClose);
      const change = previous === null ? null : price - previous;
      const time = num(meta.regularMarketTime);
      return {
        symbol: str(meta.symbol) ?? symbol,
        price,
        currency: str(meta.currency),
        name: str(meta.longName) ?? str(meta.shortName),
        change,
        change_percent: change !== null && previous ? (change / previous) * 100 : null,
        high: num(meta.regularMarketDayHigh),
        low: num(meta.regularMarketDayLow),
        previous_close: previous,
        volume: num(meta.regularMarketVolume),
        fifty_two_week_high: num(meta.fiftyTwoWeekHigh),
        fifty_two_week_low: num(meta.fiftyTwoWeekLow),
        exchange: str(meta.fullExchangeName) ?? str(meta.exchangeName),
        as_of: time === null ? null : isoSeconds(time),
      };
    },

    async getPriceHistory({ symbol, period, interval, signal }): Promise<PriceHistory> {
      const { meta, result } = await chart(symbol, period, interval, signal);
      const times = Array.isArray(result.timestamp) ? result.timestamp : [];
      const q = obj((obj(result.indicators)?.quote as unknown[] | undefined)?.[0]) ?? {};
      const col = (k: string, i: number) => num((q[k] as unknown[] | undefined)?.[i]);
      const bars: PriceBar[] = [];
      times.forEach((t, i) => {
        const close = col("close", i);
        // A row without a close (the session not settled yet) is not a bar.
        if (typeof t !== "number" || close === null) return;
        bars.push({
          date: new Date(t * 1000).toISOString().slice(0, 10),
          open: col("open", i),
          high: col("high", i),
          low: col("low", i),
          close,
          volume: col("volume", i),
        });
      });
      if (bars.length === 0)
        throw new FinanceProviderError(
          `No price history for symbol ${symbol} (period=${period}, interval=${interval})`,
        );
      return { symbol, period, interval, currency: str(meta.currency), bars };
    },

    async getNews({ symbol, limit, signal }): Promise<NewsItem[]> {
      const data = await get("/v1/finance/search", { q: symbol, quotesCount: 0, newsCount: limit }, signal);
      const news = Array.isArray(data.news) ? data.news.map(obj) : [];
      return news
        .filter((n): n is Json => !!n && !!str(n.title))
        .map((n) => {
          const published = num(n.providerPublishTime);
          return {
            title: str(n.title),
            url: str(n.link),
            source: str(n.publisher),
            published_at: published === null ? null : isoSeconds(published),
          };
        });
    },
  };
}
