import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CustomApiTools } from "../../src/toolkits/custom-api/index.js";
import { callThroughAgent, fakeServer, routedFetch, type FakeServer } from "../support/toolkit-kit.js";

let api: FakeServer;

beforeAll(async () => {
  api = await fakeServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.path === "/v1/orders" && req.method === "GET") {
      res.end(JSON.stringify({ orders: [{ id: 1, status: req.query.get("status") }] }));
    } else if (req.path === "/v1/orders" && req.method === "POST") {
      res.statusCode = 201;
      res.end(JSON.stringify({ created: JSON.parse(req.body) }));
    } else if (req.path === "/v1/slow") {
      setTimeout(() => res.end("{}"), 2_000);
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ message: "no such route" }));
    }
  });
});
afterAll(() => api.close());

function toolkit(extra: Partial<ConstructorParameters<typeof CustomApiTools>[0]> = {}) {
  return new CustomApiTools({
    baseUrl: "https://api.shop.example/v1",
    apiKey: "sk-shop",
    headers: { "x-client": "agno-edge" },
    fetch: routedFetch({ "api.shop.example": api.url, "intranet.example": api.url }),
    lookup: async (host) => (host === "intranet.example" ? ["192.168.1.10"] : ["93.184.216.34"]),
    ...extra,
  });
}

describe("CustomApiTools", () => {
  it("make_request calls the base URL's API with the key, query and JSON body", async () => {
    const before = api.requests.length;
    const got = await callThroughAgent([toolkit()], "make_request", {
      endpoint: "/orders",
      params: { status: "open" },
    });
    expect(JSON.parse(got.execution.result!)).toMatchObject({
      status_code: 200,
      data: { orders: [{ id: 1, status: "open" }] },
    });
    const post = await callThroughAgent([toolkit()], "make_request", {
      endpoint: "orders",
      method: "POST",
      json_data: { sku: "A1", qty: 2 },
    });
    expect(JSON.parse(post.execution.result!)).toMatchObject({
      status_code: 201,
      data: { created: { sku: "A1", qty: 2 } },
    });
    const [first, second] = api.requests.slice(before);
    expect(first!.headers).toMatchObject({ authorization: "Bearer sk-shop", "x-client": "agno-edge" });
    expect(second!.headers["content-type"]).toBe("application/json");
  });

  it("an error status is answered in agno's shape; no answer is a tool error", async () => {
    const missing = await callThroughAgent([toolkit()], "make_request", { endpoint: "/nothing" });
    expect(JSON.parse(missing.execution.result!)).toMatchObject({
      status_code: 404,
      data: { message: "no such route" },
      error: "Request failed",
    });
    const slow = await callThroughAgent([toolkit({ timeoutMs: 150 })], "make_request", { endpoint: "/slow" });
    expect(slow.execution.tool_call_error).toBe(true);
    expect(slow.toolMessage).toBe("Error: api.shop.example did not answer within 150 ms");
    const gone = await fakeServer(() => undefined);
    await gone.close();
    const down = await callThroughAgent(
      [toolkit({ fetch: routedFetch({ "api.shop.example": gone.url }) })],
      "make_request",
      { endpoint: "/orders" },
    );
    expect(down.toolMessage).toMatch(/^Error: api\.shop\.example could not be reached/);
  });

  it("refuses hosts not allowed, path escapes, reserved headers and other methods before any request", async () => {
    const before = api.requests.length;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ endpoint: "https://evil.example/steal" }, /evil\.example is not an allowed host/],
      [{ endpoint: "//evil.example/x" }, /evil\.example is not an allowed host/],
      [{ endpoint: "http://169.254.169.254/latest/meta-data" }, /169\.254\.169\.254 is not an allowed host/],
      [{ endpoint: "../admin" }, /dot segments/],
      [{ endpoint: "orders/%2e%2e/admin" }, /dot segments/],
      [{ endpoint: "/orders", headers: { Authorization: "Bearer mine" } }, /set by the toolkit/],
      [{ endpoint: "/orders", method: "TRACE" }, /invalid arguments/],
      [{ endpoint: "/orders", data: { a: 1 }, json_data: { b: 2 } }, /not both/],
    ];
    for (const [args, message] of cases) {
      const { execution, toolMessage } = await callThroughAgent([toolkit()], "make_request", args);
      expect(execution.tool_call_error, JSON.stringify(args)).toBe(true);
      expect(toolMessage, JSON.stringify(args)).toMatch(message);
    }
    const readOnly = toolkit({ allowedMethods: ["GET"] });
    const del = await callThroughAgent([readOnly], "make_request", { endpoint: "/orders", method: "DELETE" });
    expect(del.execution.tool_call_error).toBe(true);
    expect(api.requests.length).toBe(before);
  });

  it("an allowed host on a private address is refused unless the developer allows private networks", async () => {
    const before = api.requests.length;
    const internal = toolkit({ baseUrl: "https://intranet.example/v1" });
    const { toolMessage } = await callThroughAgent([internal], "make_request", { endpoint: "/orders" });
    expect(toolMessage).toMatch(/resolves to a private, loopback or internal address/);
    expect(api.requests.length).toBe(before);
    const trusted = toolkit({ baseUrl: "https://intranet.example/v1", allowPrivateNetwork: true });
    const ok = await callThroughAgent([trusted], "make_request", { endpoint: "/orders" });
    expect(JSON.parse(ok.execution.result!)).toMatchObject({ status_code: 200 });
    expect(() => new CustomApiTools({})).toThrow(/baseUrl or allowedHosts/);
  });
});
