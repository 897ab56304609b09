import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebFetchTools } from "../../src/toolkits/web-fetch/index.js";
import { callThroughAgent, fakeServer, routedFetch, type FakeServer } from "../support/toolkit-kit.js";

const PAGE = `<!doctype html><html><head><title>Edge &amp; agents</title><script>alert(1)</script></head>
<body><nav><a href="/">Home</a> | <a href="/x">Menu item</a></nav>
<main><h1>Running agents at the edge</h1><p>Workers start in milliseconds.</p><ul><li>fast</li><li>cheap</li></ul></main>
<footer>Copyright footer</footer></body></html>`;

let site: FakeServer;
const publicLookup = async () => ["93.184.216.34"];

beforeAll(async () => {
  site = await fakeServer((req, res) => {
    if (req.path === "/page") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(PAGE);
    } else if (req.path === "/moved") {
      res.writeHead(302, { location: "https://docs.example/page" }).end();
    } else if (req.path === "/to-metadata") {
      res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    } else if (req.path === "/to-internal") {
      res.writeHead(307, { location: "https://intranet.example/secret" }).end();
    } else if (req.path === "/image") {
      res.setHeader("content-type", "image/png");
      res.end(Buffer.alloc(100));
    } else if (req.path === "/big") {
      res.setHeader("content-type", "text/plain");
      res.end("x".repeat(50_000));
    } else if (req.path === "/slow") {
      setTimeout(() => res.end("late"), 2_000);
    } else if (req.path === "/gone") {
      res.statusCode = 503;
      res.end("down");
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
});
afterAll(() => site.close());

function toolkit(extra: ConstructorParameters<typeof WebFetchTools>[0] = {}) {
  return new WebFetchTools({
    fetch: routedFetch({ "docs.example": site.url, "intranet.example": site.url }),
    lookup: async (host) => (host === "intranet.example" ? ["10.1.2.3"] : publicLookup()),
    ...extra,
  });
}

describe("WebFetchTools", () => {
  it("reads a page's readable text, following a redirect", async () => {
    const before = site.requests.length;
    const { execution } = await callThroughAgent([toolkit()], "read_url", { url: "https://docs.example/moved" });
    expect(execution.tool_call_error).toBeFalsy();
    const got = JSON.parse(execution.result!) as Record<string, string>;
    expect(got).toMatchObject({ url: "https://docs.example/page", content_type: "text/html", title: "Edge & agents" });
    expect(got.content).toContain("# Running agents at the edge");
    expect(got.content).toContain("- fast");
    expect(got.content).not.toMatch(/alert|Menu item|Copyright footer/);
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(["/moved", "/page"]);
  });

  it("expand_url follows redirects without reading bodies", async () => {
    const { execution } = await callThroughAgent([toolkit()], "expand_url", { url: "https://docs.example/moved" });
    expect(JSON.parse(execution.result!)).toEqual({ url: "https://docs.example/page", status: 200 });
  });

  it("cuts long text and says so", async () => {
    const { execution } = await callThroughAgent([toolkit({ maxChars: 100 })], "read_url", {
      url: "https://docs.example/big",
    });
    expect(JSON.parse(execution.result!)).toMatchObject({ truncated: true, total_chars: 50_000 });
  });

  it("rejects bad arguments before any request", async () => {
    const before = site.requests.length;
    for (const url of ["ftp://docs.example/page", "not a url", "/relative"]) {
      const { execution, toolMessage } = await callThroughAgent([toolkit()], "read_url", { url });
      expect(execution.tool_call_error).toBe(true);
      expect(toolMessage).toMatch(/invalid arguments for read_url/);
    }
    expect(site.requests.length).toBe(before);
  });

  it("refuses private, loopback, link-local and metadata targets, first URL or redirect", async () => {
    const before = site.requests.length;
    for (const url of [
      "http://127.0.0.1/admin",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://10.0.0.1/",
      "http://localhost:8080/",
      "http://metadata.google.internal/",
      "http://0x7f000001/",
      "https://intranet.example/secret",
      `${site.url}/page`,
    ]) {
      const { execution, toolMessage } = await callThroughAgent([toolkit()], "read_url", { url });
      expect(execution.tool_call_error, url).toBe(true);
      expect(toolMessage, url).toMatch(/private, loopback or internal address/);
    }
    expect(site.requests.length).toBe(before);
    for (const path of ["/to-metadata", "/to-internal"]) {
      const { toolMessage } = await callThroughAgent([toolkit()], "read_url", { url: `https://docs.example${path}` });
      expect(toolMessage).toMatch(/private, loopback or internal address: it is not fetched/);
    }
    expect(site.requests.slice(before).map((r) => r.path)).toEqual(["/to-metadata", "/to-internal"]);
  });

  it("refuses other media types, oversize bodies and slow servers; an upstream error is a clear tool error", async () => {
    const call = async (path: string, opts = {}) =>
      (await callThroughAgent([toolkit(opts)], "read_url", { url: `https://docs.example${path}` })).toolMessage;
    expect(await call("/image")).toBe('Error: unsupported content type "image/png"');
    expect(await call("/big", { maxBytes: 1000 })).toMatch(/sent 50000 bytes; the limit is 1000/);
    expect(await call("/slow", { timeoutMs: 200 })).toMatch(/did not answer within 200 ms/);
    expect(await call("/gone")).toBe("Error: docs.example answered 503");
  });
});
