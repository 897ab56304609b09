import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FINANCE_CAPABILITIES,
  FinanceProviderError,
  FinanceTools,
  financialDatasetsProvider,
  yahooFinanceProvider,
  type FinanceProvider,
} from "../../src/toolkits/finance/index.js";
import { callThroughAgent, fakeServer, routedFetch, type FakeServer } from "../support/toolkit-kit.js";

const KEY = "fd-secret-key-123";
const HOST = "api.financialdatasets.ai";
let fd: FakeServer;
let yahoo: FakeServer;

/** `count` records made by `make`, served 10 to a page with financialdatasets.ai's `next_page_url`. */
function paged(
  req: { path: string; query: URLSearchParams },
  key: string,
  count: number,
  make: (i: number) => unknown,
  nextHost = HOST,
) {
  const page = Number(req.query.get("page") ?? "0");
  const all = Array.from({ length: count }, (_, i) => make(i));
  const q = new URLSearchParams(req.query);
  q.set("page", String(page + 1));
  const more = (page + 1) * 10 < count;
  return {
    [key]: all.slice(page * 10, page * 10 + 10),
    next_page_url: more ? `https://${nextHost}${req.path}?${q}` : null,
  };
}

beforeAll(async () => {
  // financialdatasets.ai's REST API: GET with an X-API-KEY header, JSON answers keyed by resource,
  // list pages of 10 with an absolute next_page_url, errors as {"error", "message"}.
  fd = await fakeServer((req, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(body));
    };
    if (req.headers["x-api-key"] !== KEY) return send(401, { error: "Unauthorized", message: "Invalid API key" });
    const ticker = req.query.get("ticker") ?? "";
    if (ticker === "BOOM") {
      res.statusCode = 503;
      return res.end("upstream unavailable");
    }
    if (ticker === "JUNK") return res.end("<html>maintenance</html>");
    if (ticker === "NONE") return send(404, { error: "Not Found", message: `No data found for ticker ${ticker}` });
    if (ticker === "EMPTY") return send(200, { snapshot: {} });
    switch (req.path) {
      case "/prices/snapshot":
        return send(200, {
          snapshot: {
            ticker,
            price: 181.123456,
            day_change: 2.5,
            day_change_percent: 1.3999999,
            time: "2026-11-30T20:00:00Z",
            time_milliseconds: 1796068800000,
          },
        });
      case "/prices": {
        // one bar per calendar day of the asked range, 100 to a page, oldest first
        const start = Date.parse(req.query.get("start_date")!);
        const end = Date.parse(req.query.get("end_date")!);
        const days = Math.round((end - start) / 86_400_000) + 1;
        const page = Number(req.query.get("page") ?? "0");
        const prices = Array.from({ length: days }, (_, i) => ({
          ticker,
          open: 100 + i,
          close: 101 + i,
          high: 102 + i,
          low: 99 + i,
          volume: 1000 * i,
          time: new Date(start + i * 86_400_000).toISOString().slice(0, 10) + "T00:00:00Z",
        })).slice(page * 100, page * 100 + 100);
        const q = new URLSearchParams(req.query);
        q.set("page", String(page + 1));
        return send(200, {
          ticker,
          prices,
          next_page_url: (page + 1) * 100 < days ? `https://${HOST}/prices?${q}` : null,
        });
      }
      case "/company/facts":
        return send(200, {
          company_facts: {
            ticker,
            name: "NVIDIA Corp",
            cik: "0001045810",
            industry: "Semiconductors",
            sector: "Information Technology",
            exchange: "NASDAQ",
            location: "Santa Clara, CA",
            market_cap: 4.4e12,
            number_of_employees: 36000,
            website_url: "https://www.nvidia.com",
            sic_industry: "Semiconductors & Related Devices",
          },
        });
      case "/financial-metrics/snapshot":
        return send(200, {
          snapshot: {
            ticker,
            currency: "USD",
            market_cap: 4.4e12,
            price_to_earnings_ratio: 52.123456,
            peg_ratio: null,
            gross_margin: 0.75123456,
            net_margin: 0.000044412,
            earnings_per_share: 3.1,
          },
        });
      case "/financials/income-statements":
        return send(
          200,
          paged(req, "income_statements", 12, (i) => ({
            ticker,
            report_period: `${2025 - i}-01-26`,
            fiscal_period: `${2025 - i}-FY`,
            period: "annual",
            currency: "USD",
            accession_number: `000-${i}`,
            revenue: 130e9 - i * 1e9,
            net_income: 72e9 - i * 1e9,
            research_and_development: null,
          })),
        );
      case "/news":
        return send(
          200,
          paged(req, "news", Number(req.query.get("limit")), (i) => ({
            ticker,
            title: `Headline ${i}`,
            author: "A. Writer",
            source: "Reuters",
            date: "2026-11-30",
            url: `https://news.example/${i}`,
            sentiment: "positive",
          })),
        );
      case "/insider-trades":
        return send(
          200,
          paged(req, "insider_trades", 35, (i) => ({
            ticker,
            issuer: "NVIDIA Corp",
            name: `Insider ${i}`,
            title: "Director",
            is_board_director: true,
            transaction_date: "2026-11-01",
            transaction_shares: -1000,
            transaction_price_per_share: 180.5,
            transaction_value: -180500,
            shares_owned_after_transaction: 50000,
            filing_date: "2026-11-03",
          })),
        );
      case "/earnings":
        return send(200, {
          earnings: Array.from({ length: 12 }, (_, i) => ({
            ticker,
            report_period: `2026-${String(10 - (i % 10)).padStart(2, "0")}-26`,
            fiscal_period: `Q${(i % 4) + 1}`,
            source_type: "8-K",
            filing_date: "2026-11-19",
            filing_url: "https://www.sec.gov/x",
            currency: "USD",
            quarterly: {
              revenue: 57e9,
              earnings_per_share: 1.3,
              estimated_earnings_per_share: 1.25,
              eps_surprise: "BEAT",
              eps_surprise_pct: 4,
              net_income: 31.9e9,
            },
          })),
        });
      case "/filings": {
        const off = ticker === "EVIL";
        return send(
          200,
          paged(
            req,
            "filings",
            35,
            (i) => ({
              ticker,
              cik: 1045810,
              accession_number: `0001045810-26-${i}`,
              filing_type: req.query.get("filing_type") ?? "10-Q",
              report_date: "2026-10-26",
              filing_date: "2026-11-19",
              url: `https://www.sec.gov/f/${i}`,
            }),
            off ? "evil.example" : HOST,
          ),
        );
      }
    }
    return send(404, { error: "Not Found", message: "no route" });
  });
  // Yahoo Finance's public endpoints: /v8/finance/chart/{symbol} and /v1/finance/search, no key;
  // an unknown symbol is a 404 with {"chart": {"result": null, "error": {...}}}
  yahoo = await fakeServer((req, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(body));
    };
    if (req.path === "/v1/finance/search") {
      const quotes = Number(req.query.get("quotesCount"));
      const news = Number(req.query.get("newsCount"));
      return send(200, {
        explains: [],
        count: quotes + news,
        quotes: [
          {
            exchange: "NMS",
            shortname: "NVIDIA Corp",
            quoteType: "EQUITY",
            symbol: "NVDA",
            longname: "NVIDIA Corporation",
            exchDisp: "NASDAQ",
            score: 1,
          },
          { exchange: "NEO", shortname: "NVIDIA CDR", quoteType: "EQUITY", symbol: "NVDA.NE", exchDisp: "NEO" },
        ].slice(0, quotes),
        news: Array.from({ length: news }, (_, i) => ({
          uuid: `u${i}`,
          title: `${req.query.get("q")} story ${i}`,
          publisher: "Motley Fool",
          link: `https://finance.yahoo.com/news/${i}`,
          providerPublishTime: 1796068800,
          type: "STORY",
        })),
      });
    }
    const symbol = decodeURIComponent(req.path.replace("/v8/finance/chart/", ""));
    if (symbol === "LIMIT") {
      res.statusCode = 429;
      return res.end("Too Many Requests");
    }
    if (symbol !== "NVDA" && symbol !== "^GSPC")
      return send(404, {
        chart: { result: null, error: { code: "Not Found", description: "No data found, symbol may be delisted" } },
      });
    const day = 1796016000;
    return send(200, {
      chart: {
        result: [
          {
            meta: {
              currency: "USD",
              symbol,
              exchangeName: "NMS",
              fullExchangeName: "NasdaqGS",
              instrumentType: "EQUITY",
              regularMarketTime: 1796068800,
              regularMarketPrice: 181.5,
              chartPreviousClose: 180,
              fiftyTwoWeekHigh: 212.19,
              fiftyTwoWeekLow: 86.62,
              regularMarketDayHigh: 183,
              regularMarketDayLow: 179.25,
              regularMarketVolume: 150000000,
              longName: "NVIDIA Corporation",
              range: req.query.get("range"),
              dataGranularity: req.query.get("interval"),
            },
            timestamp: [day - 172800, day - 86400, day],
            indicators: {
              quote: [
                {
                  open: [170, 175, 180.5],
                  high: [172, 178, 183],
                  low: [169, 174, 179.25],
                  close: [171, 177.123456, null],
                  volume: [1e8, 1.2e8, 1.5e8],
                },
              ],
            },
          },
        ],
        error: null,
      },
    });
  });
});
afterAll(async () => {
  await fd.close();
  await yahoo.close();
});

const provider = (apiKey = KEY) => financialDatasetsProvider({ apiKey, fetch: routedFetch({ [HOST]: fd.url }) });
const finance = (extra: Omit<Partial<ConstructorParameters<typeof FinanceTools>[0]>, "provider"> = {}, key = KEY) =>
  new FinanceTools({ provider: provider(key), all: true, ...extra });
const run = async (name: string, args: Record<string, unknown>, tools = finance()) => {
  const { execution, toolMessage } = await callThroughAgent([tools], name, args);
  return { execution, toolMessage, body: execution.tool_call_error ? null : JSON.parse(execution.result!) };
};

/** A provider that serves the two capabilities financialdatasets.ai lacks, answering from memory. */
const memoryProvider: FinanceProvider = {
  id: "memory",
  name: "Memory",
  capabilities: ["search_symbols", "get_analyst_recommendations"],
  searchSymbols: async ({ query, limit }) =>
    Array.from({ length: 40 }, (_, i) => ({ symbol: `${query.slice(0, 3).toUpperCase()}${i}`, name: query })).slice(
      0,
      limit + 5, // more than asked: the toolkit's cap must hold anyway
    ),
  getAnalystRecommendations: async ({ symbol }) => {
    if (symbol === "NOPE") throw new FinanceProviderError(`No analyst data for symbol ${symbol}`);
    return { symbol, consensus: "buy", buy: 40, hold: 5, num_analysts: 45, target_mean: 225.55555, as_of: null };
  },
};

describe("FinanceTools", () => {
  it("has agno 3.0's id, tool names and defaults; a provider's capabilities decide what is registered", () => {
    expect(FINANCE_CAPABILITIES).toEqual([
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
    ]);
    const byDefault = new FinanceTools({ provider: provider() });
    expect([byDefault.id, byDefault.name]).toEqual(["finance_tools", "finance_tools"]);
    // default-on tools the provider serves; search_symbols and analyst recommendations are not financialdatasets.ai's
    expect(byDefault.tools.map((t) => t.name)).toEqual([
      "get_quote",
      "get_price_history",
      "get_company_profile",
      "get_key_metrics",
      "get_news",
    ]);
    expect(finance().tools.map((t) => t.name)).toEqual(
      FINANCE_CAPABILITIES.filter((c) => provider().capabilities.includes(c)),
    );
    expect(
      new FinanceTools({ provider: provider(), quote: false, news: false, earnings: true }).tools.map((t) => t.name),
    ).toEqual(["get_price_history", "get_company_profile", "get_key_metrics", "get_earnings"]);
    // naming a tool in include turns it on
    expect(new FinanceTools({ provider: provider(), include: ["get_financials"] }).tools.map((t) => t.name)).toEqual([
      "get_financials",
    ]);
    expect(finance({ exclude: ["get_news"] }).tools.map((t) => t.name)).not.toContain("get_news");
    expect(new FinanceTools({ provider: memoryProvider }).tools.map((t) => t.name)).toEqual([
      "search_symbols",
      "get_analyst_recommendations",
    ]);
  });

  it("refuses a tool the provider cannot serve, and a provider missing a declared method", () => {
    expect(() => new FinanceTools({ provider: provider(), include: ["search_symbols"] })).toThrow(
      /Financial Datasets \(financialdatasets\.ai\) does not serve search_symbols/,
    );
    expect(() => new FinanceTools({ provider: { ...memoryProvider, capabilities: ["get_quote"] } })).toThrow(
      /declares get_quote but has no getQuote\(\)/,
    );
    expect(() => financialDatasetsProvider({ apiKey: "" })).toThrow(/needs an apiKey/);
  });

  it("get_quote, get_company_profile and get_key_metrics answer agno's records, rounded, nulls left out", async () => {
    const before = fd.requests.length;
    const quote = await run("get_quote", { symbol: " nvda " });
    expect(quote.body).toEqual({
      symbol: "NVDA",
      price: 181.1235,
      currency: "USD",
      change: 2.5,
      change_percent: 1.4,
      as_of: "2026-11-30T20:00:00Z",
      provider: "financial_datasets",
    });
    const profile = await run("get_company_profile", { symbol: "NVDA" });
    expect(profile.body).toEqual({
      symbol: "NVDA",
      name: "NVIDIA Corp",
      sector: "Information Technology",
      industry: "Semiconductors",
      exchange: "NASDAQ",
      location: "Santa Clara, CA",
      website: "https://www.nvidia.com",
      employees: 36000,
      market_cap: 4.4e12,
      cik: "0001045810",
      provider: "financial_datasets",
    });
    const metrics = await run("get_key_metrics", { symbol: "NVDA" });
    expect(metrics.body).toMatchObject({
      symbol: "NVDA",
      currency: "USD",
      pe_ratio: 52.1235,
      gross_margin: 0.7512,
      net_margin: 0.00004441, // 4 significant digits below 0.01, not 0
      eps: 3.1,
      provider: "financial_datasets",
    });
    expect(metrics.body).not.toHaveProperty("peg_ratio");
    expect(metrics.body.as_of).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    const sent = fd.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      "GET /prices/snapshot?ticker=NVDA",
      "GET /company/facts?ticker=NVDA",
      "GET /financial-metrics/snapshot?ticker=NVDA",
    ]);
    for (const r of sent) expect(r.headers["x-api-key"]).toBe(KEY);
  });

  it("get_price_history asks for the period's range and follows next_page_url; short periods keep the last bars", async () => {
    const before = fd.requests.length;
    const year = await run("get_price_history", { symbol: "NVDA", period: "1y", interval: "1d" });
    const asked = fd.requests[before]!.query;
    expect(Object.fromEntries(asked)).toMatchObject({ ticker: "NVDA", interval: "day", interval_multiplier: "1" });
    const days = (Date.parse(asked.get("end_date")!) - Date.parse(asked.get("start_date")!)) / 86_400_000;
    expect(days).toBe(366);
    expect(fd.requests.length - before).toBe(4); // 367 bars, 100 to a page
    expect(year.body).toMatchObject({ symbol: "NVDA", period: "1y", interval: "1d", currency: "USD" });
    expect(year.body.bars).toHaveLength(367);
    expect(year.body.bars[0]).toEqual({
      date: `${asked.get("start_date")}T00:00:00Z`,
      open: 100,
      high: 102,
      low: 99,
      close: 101,
      volume: 0,
    });
    const week = await run("get_price_history", { symbol: "NVDA", period: "5d", interval: "1wk" });
    expect(fd.requests.at(-1)!.query.get("interval")).toBe("week");
    expect(week.body.bars).toHaveLength(5);
    expect(week.body.bars.at(-1).date).toBe(`${fd.requests.at(-1)!.query.get("end_date")}T00:00:00Z`);
    const defaults = await run("get_price_history", { symbol: "NVDA" });
    expect(defaults.body).toMatchObject({ period: "1mo", interval: "1d" });
    expect(defaults.body.bars).toHaveLength(32);
  });

  it("get_financials, get_news, get_insider_trades, get_earnings and get_sec_filings answer `results` with the request echoed", async () => {
    const before = fd.requests.length;
    const fin = await run("get_financials", { symbol: "NVDA", statement: "income", period: "annual", limit: 2 });
    expect(fin.body).toEqual({
      symbol: "NVDA",
      statement: "income",
      period: "annual",
      provider: "financial_datasets",
      results: [
        {
          symbol: "NVDA",
          statement: "income",
          period: "annual",
          report_period: "2025-01-26",
          fiscal_period: "2025-FY",
          currency: "USD",
          items: { revenue: 130e9, net_income: 72e9 },
        },
        {
          symbol: "NVDA",
          statement: "income",
          period: "annual",
          report_period: "2024-01-26",
          fiscal_period: "2024-FY",
          currency: "USD",
          items: { revenue: 129e9, net_income: 71e9 },
        },
      ],
    });
    expect(Object.fromEntries(fd.requests[before]!.query)).toEqual({ ticker: "NVDA", period: "annual", limit: "2" });
    expect(fd.requests[before]!.path).toBe("/financials/income-statements");

    const news = await run("get_news", { symbol: "NVDA", limit: 3 });
    expect(news.body.results).toHaveLength(3);
    expect(news.body.results[0]).toEqual({
      title: "Headline 0",
      url: "https://news.example/0",
      source: "Reuters",
      published_at: "2026-11-30",
      summary: "sentiment: positive",
    });

    const trades = await run("get_insider_trades", { symbol: "NVDA", limit: 25 });
    expect(trades.body.results).toHaveLength(25); // three pages of ten, cut to the limit
    expect(trades.body.results[24]).toEqual({
      symbol: "NVDA",
      insider: "Insider 24",
      title: "Director",
      transaction_date: "2026-11-01",
      shares: -1000,
      price: 180.5,
      value: -180500,
      shares_owned_after: 50000,
      filing_date: "2026-11-03",
    });

    const earnings = await run("get_earnings", { symbol: "NVDA", limit: 2 });
    expect(earnings.body.results).toHaveLength(2);
    expect(earnings.body.results[0]).toEqual({
      symbol: "NVDA",
      report_period: "2026-10-26",
      fiscal_period: "Q1",
      eps: 1.3,
      eps_estimate: 1.25,
      surprise_percent: 4,
      revenue: 57e9,
      net_income: 31.9e9,
      filing_date: "2026-11-19",
      url: "https://www.sec.gov/x",
    });

    const filings = await run("get_sec_filings", { symbol: "NVDA", form_type: " 10-k ", limit: 2 });
    expect(filings.body).toMatchObject({ symbol: "NVDA", form_type: "10-K", provider: "financial_datasets" });
    expect(filings.body.results).toEqual([
      {
        symbol: "NVDA",
        form_type: "10-K",
        filing_date: "2026-11-19",
        report_period: "2026-10-26",
        url: "https://www.sec.gov/f/0",
        accession_number: "0001045810-26-0",
      },
      {
        symbol: "NVDA",
        form_type: "10-K",
        filing_date: "2026-11-19",
        report_period: "2026-10-26",
        url: "https://www.sec.gov/f/1",
        accession_number: "0001045810-26-1",
      },
    ]);
    expect(fd.requests.at(-1)!.query.get("filing_type")).toBe("10-K");
  });

  it("search_symbols and get_analyst_recommendations through a provider that serves them", async () => {
    const tools = new FinanceTools({ provider: memoryProvider });
    const search = await run("search_symbols", { query: "Nvidia", limit: 3 }, tools);
    expect(search.body).toEqual({
      query: "Nvidia",
      provider: "memory",
      results: [
        { symbol: "NVI0", name: "Nvidia" },
        { symbol: "NVI1", name: "Nvidia" },
        { symbol: "NVI2", name: "Nvidia" },
      ],
    });
    const recs = await run("get_analyst_recommendations", { symbol: "nvda" }, tools);
    expect(recs.body).toEqual({
      symbol: "NVDA",
      consensus: "buy",
      buy: 40,
      hold: 5,
      num_analysts: 45,
      target_mean: 225.5556,
      provider: "memory",
    });
    const none = await run("get_analyst_recommendations", { symbol: "NOPE" }, tools);
    expect(none.execution.tool_call_error).toBe(true);
    expect(none.toolMessage).toBe("Error: No analyst data for symbol NOPE");
  });

  it("rejects bad arguments before any request", async () => {
    const before = fd.requests.length;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["get_quote", {}, /invalid arguments for get_quote/],
      ["get_quote", { symbol: "" }, /ticker symbol/],
      ["get_quote", { symbol: "../../admin" }, /ticker symbol/],
      ["get_quote", { symbol: "A".repeat(21) }, /ticker symbol/],
      ["get_price_history", { symbol: "NVDA", period: "10y" }, /period/],
      ["get_price_history", { symbol: "NVDA", interval: "1h" }, /interval/],
      ["get_financials", { symbol: "NVDA", statement: "equity" }, /statement/],
      ["get_financials", { symbol: "NVDA", period: "monthly" }, /period/],
      ["get_financials", { symbol: "NVDA", limit: 21 }, /limit/],
      ["get_news", { symbol: "NVDA", limit: 51 }, /limit/],
      ["get_news", { symbol: "NVDA", limit: 0 }, /limit/],
      ["get_insider_trades", { symbol: "NVDA", limit: 101 }, /limit/],
      ["get_earnings", { symbol: "NVDA", limit: 41 }, /limit/],
      ["get_sec_filings", { symbol: "NVDA", limit: 101 }, /limit/],
      ["get_sec_filings", { symbol: "NVDA", form_type: "10-K&ticker=AAPL" }, /form type/],
      ["get_earnings", { symbol: "NVDA", limit: 2.5 }, /limit/],
    ];
    for (const [name, args, message] of cases) {
      const { execution, toolMessage } = await run(name, args);
      expect(execution.tool_call_error, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(toolMessage, `${name} ${JSON.stringify(args)}`).toMatch(message);
    }
    const search = await run("search_symbols", { query: "  " }, new FinanceTools({ provider: memoryProvider }));
    expect(search.execution.tool_call_error).toBe(true);
    expect(fd.requests.length).toBe(before);
  });

  it("caps lists whatever is asked or answered", async () => {
    // financialdatasets.ai answers at most 10 articles a request: one request, limit 10
    const before = fd.requests.length;
    const news = await run("get_news", { symbol: "NVDA", limit: 50 });
    expect(news.body.results).toHaveLength(10);
    expect(fd.requests.slice(before).map((r) => r.query.get("limit"))).toEqual(["10"]);
    // every page up to the limit, no further
    const filings = await run("get_sec_filings", { symbol: "NVDA", limit: 100 });
    expect(filings.body.results).toHaveLength(35);
    const earnings = await run("get_earnings", { symbol: "NVDA", limit: 5 });
    expect(earnings.body.results).toHaveLength(5); // the API answered 12
    // a provider answering more than asked is cut to the limit
    const search = await run(
      "search_symbols",
      { query: "bank", limit: 25 },
      new FinanceTools({ provider: memoryProvider }),
    );
    expect(search.body.results).toHaveLength(25);
  });

  it("never follows a next_page_url off the API's origin (the key stays with financialdatasets.ai)", async () => {
    const before = fd.requests.length;
    const filings = await run("get_sec_filings", { symbol: "EVIL", limit: 30 });
    expect(filings.execution.tool_call_error).toBeFalsy();
    expect(filings.body.results).toHaveLength(10);
    expect(fd.requests.length - before).toBe(1);
  });

  it("an upstream failure is a clear tool error the model reads; the key never reaches it", async () => {
    const cases: Array<[string, Record<string, unknown>, string, string?]> = [
      ["get_quote", { symbol: "NVDA" }, "Error: financialdatasets.ai answered 401: Invalid API key", "wrong-key"],
      ["get_quote", { symbol: "BOOM" }, "Error: financialdatasets.ai answered 503: upstream unavailable"],
      ["get_quote", { symbol: "JUNK" }, "Error: financialdatasets.ai answered 200 with a body that is not JSON"],
      [
        "get_company_profile",
        { symbol: "NONE" },
        "Error: financialdatasets.ai answered 404: No data found for ticker NONE",
      ],
      ["get_quote", { symbol: "EMPTY" }, "Error: No quote data for symbol EMPTY"],
      ["get_key_metrics", { symbol: "EMPTY" }, "Error: No financial metrics for symbol EMPTY"],
    ];
    for (const [name, args, message, key] of cases) {
      const { execution, toolMessage } = await run(name, args, finance({}, key ?? KEY));
      expect(execution.tool_call_error, message).toBe(true);
      expect(toolMessage).toBe(message);
      expect(JSON.stringify(execution)).not.toContain(KEY);
    }
    // unreachable and too slow are errors too, naming the service
    const down = financialDatasetsProvider({ apiKey: KEY, baseUrl: "http://127.0.0.1:9" });
    const unreachable = await run("get_quote", { symbol: "NVDA" }, new FinanceTools({ provider: down }));
    expect(unreachable.toolMessage).toMatch(/^Error: financialdatasets\.ai could not be reached/);
    expect(unreachable.toolMessage).not.toContain(KEY);
    const slow = await fakeServer(() => undefined);
    try {
      const late = financialDatasetsProvider({ apiKey: KEY, baseUrl: slow.url, timeoutMs: 200 });
      const timedOut = await run("get_quote", { symbol: "NVDA" }, new FinanceTools({ provider: late }));
      expect(timedOut.toolMessage).toBe("Error: financialdatasets.ai did not answer within 200 ms");
    } finally {
      await slow.close();
    }
    // an answer over the size cap is refused, not read
    const small = financialDatasetsProvider({ apiKey: KEY, baseUrl: fd.url, maxBytes: 200 });
    const big = await run("get_price_history", { symbol: "NVDA" }, new FinanceTools({ provider: small }));
    expect(big.toolMessage).toBe("Error: financialdatasets.ai answered more than 200 bytes");
  });

  it("successful answers never carry the key", async () => {
    for (const name of ["get_quote", "get_company_profile", "get_key_metrics", "get_news"]) {
      const { execution, toolMessage } = await run(name, { symbol: "NVDA" });
      expect(execution.tool_call_error).toBeFalsy();
      expect(toolMessage).not.toContain(KEY);
      expect(execution.result).not.toContain(KEY);
    }
  });
});

describe("yahooFinanceProvider (keyless)", () => {
  const tools = () =>
    new FinanceTools({
      provider: yahooFinanceProvider({ fetch: routedFetch({ "query1.finance.yahoo.com": yahoo.url }) }),
    });

  it("serves search_symbols, get_quote, get_price_history and get_news from Yahoo's public endpoints", async () => {
    expect(tools().tools.map((t) => t.name)).toEqual(["search_symbols", "get_quote", "get_price_history", "get_news"]);
    const before = yahoo.requests.length;
    const search = await run("search_symbols", { query: "nvidia", limit: 2 }, tools());
    expect(search.body).toEqual({
      query: "nvidia",
      provider: "yahoo_finance",
      results: [
        { symbol: "NVDA", name: "NVIDIA Corporation", exchange: "NASDAQ", type: "EQUITY" },
        { symbol: "NVDA.NE", name: "NVIDIA CDR", exchange: "NEO", type: "EQUITY" },
      ],
    });
    const quote = await run("get_quote", { symbol: "nvda" }, tools());
    expect(quote.body).toEqual({
      symbol: "NVDA",
      price: 181.5,
      currency: "USD",
      name: "NVIDIA Corporation",
      change: 1.5,
      change_percent: 0.8333,
      high: 183,
      low: 179.25,
      previous_close: 180,
      volume: 150000000,
      fifty_two_week_high: 212.19,
      fifty_two_week_low: 86.62,
      exchange: "NasdaqGS",
      as_of: "2026-11-30T20:00:00+00:00",
      provider: "yahoo_finance",
    });
    const history = await run("get_price_history", { symbol: "^gspc", period: "ytd", interval: "1wk" }, tools());
    expect(history.body).toEqual({
      symbol: "^GSPC",
      period: "ytd",
      interval: "1wk",
      currency: "USD",
      provider: "yahoo_finance",
      // the last row has no close yet: not a bar
      bars: [
        { date: "2026-11-28", open: 170, high: 172, low: 169, close: 171, volume: 1e8 },
        { date: "2026-11-29", open: 175, high: 178, low: 174, close: 177.1235, volume: 1.2e8 },
      ],
    });
    const news = await run("get_news", { symbol: "NVDA", limit: 2 }, tools());
    expect(news.body.results).toEqual([
      {
        title: "NVDA story 0",
        url: "https://finance.yahoo.com/news/0",
        source: "Motley Fool",
        published_at: "2026-11-30T20:00:00+00:00",
      },
      {
        title: "NVDA story 1",
        url: "https://finance.yahoo.com/news/1",
        source: "Motley Fool",
        published_at: "2026-11-30T20:00:00+00:00",
      },
    ]);
    expect(yahoo.requests.slice(before).map((r) => `${r.path}?${r.query}`)).toEqual([
      "/v1/finance/search?q=nvidia&quotesCount=2&newsCount=0",
      "/v8/finance/chart/NVDA?range=1d&interval=1d",
      "/v8/finance/chart/%5EGSPC?range=ytd&interval=1wk",
      "/v1/finance/search?q=NVDA&quotesCount=0&newsCount=2",
    ]);
  });

  it("an unknown symbol and Yahoo's rate limit are clear tool errors", async () => {
    const unknown = await run("get_quote", { symbol: "ZZZZ" }, tools());
    expect(unknown.execution.tool_call_error).toBe(true);
    expect(unknown.toolMessage).toBe("Error: No data found for symbol ZZZZ; check the ticker");
    const limited = await run("get_price_history", { symbol: "LIMIT" }, tools());
    expect(limited.toolMessage).toBe("Error: yahoo finance answered 429: Too Many Requests");
  });
});
