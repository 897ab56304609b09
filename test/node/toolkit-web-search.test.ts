import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searxngProvider, tavilyProvider, WebSearchTools } from "../../src/toolkits/web-search/index.js";
import { callThroughAgent, fakeServer, type FakeServer } from "../support/toolkit-kit.js";

let tavily: FakeServer;
let searx: FakeServer;

beforeAll(async () => {
  // Tavily's REST API: POST /search with a Bearer key, JSON in and out; errors as {"detail": {"error": ...}}
  tavily = await fakeServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== "Bearer tvly-test") {
      res.statusCode = 401;
      res.end(JSON.stringify({ detail: { error: "Unauthorized: missing or invalid API key." } }));
      return;
    }
    const body = JSON.parse(req.body) as { query: string; topic: string; max_results: number };
    if (body.query === "overload") {
      res.statusCode = 432;
      res.end(JSON.stringify({ detail: { error: "This request exceeds your plan's set usage limit." } }));
      return;
    }
    const results = Array.from({ length: 8 }, (_, i) => ({
      title: `${body.topic} ${body.query} ${i}`,
      url: `https://news${i}.example/a`,
      content: `about ${body.query}`,
      score: 0.9 - i / 10,
      raw_content: null,
      ...(body.topic === "news" && { published_date: "Mon, 30 Nov 2026 10:00:00 GMT" }),
    })).slice(0, body.max_results);
    res.end(JSON.stringify({ query: body.query, answer: null, images: [], results, response_time: 0.42 }));
  });
  // SearXNG's JSON API: GET /search?q=&format=json&categories=
  searx = await fakeServer((req, res) => {
    if (req.query.get("format") !== "json") {
      res.statusCode = 403;
      res.end("Forbidden");
      return;
    }
    res.setHeader("content-type", "application/json");
    const category = req.query.get("categories");
    res.end(
      JSON.stringify({
        query: req.query.get("q"),
        number_of_results: 0,
        results: [1, 2, 3].map((i) => ({
          url: `https://r${i}.example/`,
          title: `${category} hit ${i}`,
          content: "snippet",
          engine: "duckduckgo",
          engines: ["duckduckgo"],
          score: 1,
          category,
          publishedDate: category === "news" ? "2026-11-30T10:00:00" : null,
        })),
        answers: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
});
afterAll(async () => {
  await tavily.close();
  await searx.close();
});

const tavilyTools = (apiKey = "tvly-test", extra = {}) =>
  new WebSearchTools({ provider: tavilyProvider({ apiKey, baseUrl: tavily.url }), ...extra });

describe("WebSearchTools", () => {
  it("has agno 3.0's id and names; enable flags pick the tools", () => {
    const t = tavilyTools();
    expect(t.id).toBe("websearch");
    expect(t.tools.map((x) => x.name)).toEqual(["web_search", "search_news"]);
    expect(tavilyTools("k", { enableNews: false }).tools.map((x) => x.name)).toEqual(["web_search"]);
  });

  it("web_search and search_news through Tavily answer in agno's shapes", async () => {
    const before = tavily.requests.length;
    const web = await callThroughAgent([tavilyTools("tvly-test", { modifier: "site:docs" })], "web_search", {
      query: "workers",
      max_results: 2,
    });
    expect(JSON.parse(web.execution.result!)).toEqual([
      { title: "general site:docs workers 0", href: "https://news0.example/a", body: "about site:docs workers" },
      { title: "general site:docs workers 1", href: "https://news1.example/a", body: "about site:docs workers" },
    ]);
    const news = await callThroughAgent([tavilyTools()], "search_news", { query: "edge" });
    const items = JSON.parse(news.execution.result!) as unknown[];
    expect(items).toHaveLength(5);
    expect(items[0]).toEqual({
      date: "Mon, 30 Nov 2026 10:00:00 GMT",
      title: "news edge 0",
      body: "about edge",
      url: "https://news0.example/a",
      source: "news0.example",
    });
    const sent = tavily.requests
      .slice(before)
      .map((r) => ({ method: r.method, path: r.path, body: JSON.parse(r.body) }));
    expect(sent).toEqual([
      {
        method: "POST",
        path: "/search",
        body: { query: "site:docs workers", topic: "general", max_results: 2, search_depth: "basic" },
      },
      {
        method: "POST",
        path: "/search",
        body: { query: "edge", topic: "news", max_results: 5, search_depth: "basic" },
      },
    ]);
  });

  it("SearXNG's JSON API is a provider too", async () => {
    const tools = new WebSearchTools({ provider: searxngProvider({ baseUrl: searx.url }), fixedMaxResults: 2 });
    const web = await callThroughAgent([tools], "web_search", { query: "hono", max_results: 10 });
    expect(JSON.parse(web.execution.result!)).toEqual([
      { title: "general hit 1", href: "https://r1.example/", body: "snippet" },
      { title: "general hit 2", href: "https://r2.example/", body: "snippet" },
    ]);
    const news = await callThroughAgent([tools], "search_news", { query: "hono" });
    expect((JSON.parse(news.execution.result!) as unknown[])[0]).toEqual({
      date: "2026-11-30T10:00:00",
      title: "news hit 1",
      body: "snippet",
      url: "https://r1.example/",
      source: "duckduckgo",
    });
    expect(searx.requests.at(-1)!.query.get("categories")).toBe("news");
  });

  it("rejects bad arguments before any request", async () => {
    const before = tavily.requests.length;
    for (const args of [{ query: "" }, { query: "x", max_results: 500 }, { max_results: 3 }, { query: 42 }]) {
      const { execution, toolMessage } = await callThroughAgent([tavilyTools()], "web_search", args);
      expect(execution.tool_call_error).toBe(true);
      expect(toolMessage).toMatch(/invalid arguments for web_search/);
    }
    expect(tavily.requests.length).toBe(before);
  });

  it("an upstream failure is a clear tool error the model reads", async () => {
    const denied = await callThroughAgent([tavilyTools("wrong")], "web_search", { query: "x" });
    expect(denied.execution.tool_call_error).toBe(true);
    expect(denied.toolMessage).toBe("Error: tavily answered 401: Unauthorized: missing or invalid API key.");
    const limited = await callThroughAgent([tavilyTools()], "search_news", { query: "overload" });
    expect(limited.toolMessage).toBe("Error: tavily answered 432: This request exceeds your plan's set usage limit.");
    const down = await fakeServer(() => undefined);
    await down.close();
    const unreachable = await callThroughAgent(
      [new WebSearchTools({ provider: searxngProvider({ baseUrl: down.url }) })],
      "web_search",
      { query: "x" },
    );
    expect(unreachable.toolMessage).toMatch(/^Error: searxng could not be reached/);
  });

  it("a slow or oversized answer is cut off", async () => {
    const slow = await fakeServer(() => new Promise(() => undefined));
    try {
      const tools = new WebSearchTools({ provider: searxngProvider({ baseUrl: slow.url, timeoutMs: 150 }) });
      const { toolMessage } = await callThroughAgent([tools], "web_search", { query: "x" });
      expect(toolMessage).toBe("Error: searxng did not answer within 150 ms");
    } finally {
      await slow.close();
    }
    const tools = new WebSearchTools({ provider: searxngProvider({ baseUrl: searx.url, maxBytes: 200 }) });
    const { toolMessage } = await callThroughAgent([tools], "web_search", { query: "x" });
    expect(toolMessage).toBe("Error: searxng answered more than 200 bytes");
  });
});
