import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { R2Storage } from "../../src/offload/r2-storage.js";
import {
  AgentMailTools,
  CalculatorTools,
  DateTimeTools,
  FileTools,
  FinanceTools,
  financialDatasetsProvider,
  verifyAgentMailWebhook,
  WebFetchTools,
} from "../../src/sdk.js";
import { scriptModel } from "../support/model-script.js";

/** The built-in toolkits inside workerd: a run that calls several of them, as a deployed Worker would. */
describe("built-in toolkits on Workers", () => {
  it("an agent run calls calculator, date/time, files on R2 and a refused private fetch", async () => {
    const user = `tk-${crypto.randomUUID().slice(0, 8)}`;
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      {
        toolCalls: [
          { name: "multiply", arguments: { a: 6, b: 7 } },
          { name: "get_current_time", arguments: { timezone: "Asia/Kolkata" } },
          { name: "save_file", arguments: { contents: "hello", file_name: "notes/a.txt" } },
          { name: "read_url", arguments: { url: "http://169.254.169.254/latest/meta-data/" } },
        ],
      },
      { toolCalls: [{ name: "list_files", arguments: {} }] },
      { text: "done" },
    ]);
    const storage = new R2Storage(env.STORAGE, { bucketName: "agno-edge-storage" });
    const agent = new Agent({
      id: "toolkits",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [new CalculatorTools(), new DateTimeTools(), new FileTools({ storage }), new WebFetchTools()],
    });
    const out = await agent.run("go", { userId: user });
    expect(out.status).toBe("COMPLETED");
    const byName = Object.fromEntries(out.tools.map((t) => [t.tool_name, t]));
    expect(JSON.parse(byName.multiply!.result!)).toEqual({ operation: "multiplication", result: 42 });
    expect(JSON.parse(byName.get_current_time!.result!).datetime).toMatch(/\+05:30$/);
    expect(byName.save_file!.result).toBe("notes/a.txt");
    expect(byName.read_url!.tool_call_error).toBe(true);
    expect(byName.read_url!.result).toMatch(/private, loopback or internal address/);
    expect(JSON.parse(byName.list_files!.result!)).toEqual(["notes/a.txt"]);
    expect(await storage.head(`files/users/u-${user}/notes/a.txt`)).toMatchObject({ size: 5 });
  });
  it("an agent reads and answers its AgentMail inbox, and a signed webhook is verified, inside workerd", async () => {
    // AgentMail's wire answered inside the Worker (the Node suite runs it against a fake server over HTTP)
    const seen: string[] = [];
    const agentmail: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      const url = new URL(req.url);
      seen.push(`${req.method} ${decodeURIComponent(url.pathname)} ${req.headers.get("authorization")}`);
      const message = {
        inbox_id: "agent@agentmail.to",
        thread_id: "thd_1",
        message_id: "<m1@example.com>",
        labels: ["received", "unread"],
        timestamp: "2026-05-04T09:00:00.000Z",
        from: "Ana <ana@example.com>",
        to: ["agent@agentmail.to"],
        subject: "Hello",
        html: "<p>Hi <b>agent</b></p><script>x()</script>",
        size: 100,
        created_at: "2026-05-04T09:00:00.000Z",
        updated_at: "2026-05-04T09:00:00.000Z",
      };
      if (url.pathname.endsWith("/reply"))
        return Response.json({ message_id: "<r1@agentmail.to>", thread_id: "thd_1" });
      return Response.json(message);
    };
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      { toolCalls: [{ name: "get_email", arguments: { message_id: "<m1@example.com>" } }] },
      { toolCalls: [{ name: "send_email_reply", arguments: { message_id: "<m1@example.com>", body: "Hello Ana" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      id: "inbox",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [new AgentMailTools({ apiKey: "am_k", inboxId: "agent@agentmail.to", fetch: agentmail })],
    });
    const out = await agent.run("answer your mail");
    expect(out.status).toBe("COMPLETED");
    const read = JSON.parse(out.tools[0]!.result!);
    expect(read.body).toMatch(
      /^<<<EMAIL BODY [0-9a-f]{12} \(untrusted\)>>>\nHi agent\n<<<END EMAIL BODY [0-9a-f]{12}>>>$/,
    );
    expect(JSON.parse(out.tools[1]!.result!)).toMatchObject({ thread_id: "thd_1", to: ["ana@example.com"] });
    expect(seen).toEqual([
      "GET /v0/inboxes/agent@agentmail.to/messages/<m1@example.com> Bearer am_k",
      "GET /v0/inboxes/agent@agentmail.to/messages/<m1@example.com> Bearer am_k",
      "POST /v0/inboxes/agent@agentmail.to/messages/<m1@example.com>/reply Bearer am_k",
    ]);

    // Svix's published example, checked with workerd's WebCrypto
    const signed = new Request("https://worker.example/agentmail", {
      method: "POST",
      body: '{"test": 2432232314}',
      headers: {
        "svix-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "svix-timestamp": "1614265330",
        "svix-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
      },
    });
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(await verifyAgentMailWebhook(secret, signed.clone(), { nowSeconds: 1614265330 })).toEqual({
      test: 2432232314,
    });
    await expect(verifyAgentMailWebhook(secret, signed, { nowSeconds: 1614265330 + 3600 })).rejects.toMatchObject({
      status: 401,
    });
  });

  it("FinanceTools over financialdatasets.ai's wire: a quote, paged insider trades and an upstream error", async () => {
    // financialdatasets.ai answered in-process (workerd reaches no test server of ours): the
    // toolkit's own code (validation, paging, capped reads, errors) runs in the Workers runtime.
    const seen: Array<{ url: URL; key: string | null }> = [];
    const upstream: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      seen.push({ url, key: new Headers(init?.headers).get("x-api-key") });
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      const ticker = url.searchParams.get("ticker");
      if (ticker === "BOOM") return new Response("upstream unavailable", { status: 503 });
      if (url.pathname === "/prices/snapshot")
        return json(200, { snapshot: { ticker, price: 181.5, day_change: -1.25, time: "2026-11-30T20:00:00Z" } });
      if (url.pathname === "/insider-trades") {
        const page = Number(url.searchParams.get("page") ?? "0");
        const next = new URL(url);
        next.searchParams.set("page", String(page + 1));
        return json(200, {
          insider_trades: Array.from({ length: 10 }, (_, i) => ({ ticker, name: `Insider ${page * 10 + i}` })),
          next_page_url: next.href,
        });
      }
      return json(404, { error: "Not Found", message: "no route" });
    };
    const script = await scriptModel(env.MODEL_SERVER_URL, [
      {
        toolCalls: [
          { name: "get_quote", arguments: { symbol: "nvda" } },
          { name: "get_insider_trades", arguments: { symbol: "NVDA", limit: 15 } },
          { name: "get_quote", arguments: { symbol: "BOOM" } },
          { name: "get_news", arguments: { symbol: "NVDA", limit: 500 } },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      id: "finance",
      model: createModel("openai:gpt-test", { credentials: { openai: { baseURL: script.baseURL, apiKey: "k" } } }),
      tools: [
        new FinanceTools({
          provider: financialDatasetsProvider({ apiKey: "fd-key", fetch: upstream }),
          insiderTrades: true,
        }),
      ],
      parallelToolCalls: false,
    });
    const out = await agent.run("go");
    expect(out.status).toBe("COMPLETED");
    const [quote, trades, boom, news] = out.tools;
    expect(JSON.parse(quote!.result!)).toEqual({
      symbol: "NVDA",
      price: 181.5,
      currency: "USD",
      change: -1.25,
      as_of: "2026-11-30T20:00:00Z",
      provider: "financial_datasets",
    });
    const results = JSON.parse(trades!.result!).results as Array<{ insider: string }>;
    expect(results.map((r) => r.insider)).toEqual(Array.from({ length: 15 }, (_, i) => `Insider ${i}`));
    expect(boom!.tool_call_error).toBe(true);
    expect(boom!.result).toBe("Error: financialdatasets.ai answered 503: upstream unavailable");
    expect(news!.tool_call_error).toBe(true);
    expect(news!.result).toMatch(/invalid arguments for get_news/);
    // quote, two pages of trades, the failing quote; the bad get_news asked nothing
    expect(seen.map((s) => `${s.url.pathname}?${s.url.searchParams}`)).toEqual([
      "/prices/snapshot?ticker=NVDA",
      "/insider-trades?ticker=NVDA&limit=15",
      "/insider-trades?ticker=NVDA&limit=15&page=1",
      "/prices/snapshot?ticker=BOOM",
    ]);
    expect(seen.every((s) => s.key === "fd-key" && s.url.host === "api.financialdatasets.ai")).toBe(true);
  });
});
