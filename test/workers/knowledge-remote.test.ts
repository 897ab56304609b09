/**
 * The safe remote fetch behind knowledge URL uploads: what it refuses (schemes, credentials,
 * private, loopback, link-local and metadata addresses however they are written, names that
 * resolve to them, redirects to them) and its caps (size, type, time). A stand-in fetch plays the
 * remote server, so nothing leaves the test; it records every URL it was asked for, which proves
 * a refused URL was never requested.
 */
import { describe, expect, it } from "vitest";
import { isBlockedAddress } from "../../src/knowledge/remote/blocked-address.js";
import { RemoteContentTooLargeError, RemoteFetchError, UnsafeUrlError } from "../../src/knowledge/remote/errors.js";
import { checkRemoteUrl, safeFetch } from "../../src/knowledge/remote/safe-fetch.js";
import { UnsupportedContentTypeError } from "../../src/knowledge/errors.js";
import { defaultEmbedder, readEnvConfig } from "../../src/worker/env-config.js";

/** A remote server: answers by URL; records what was fetched. */
function server(routes: Record<string, () => Response>) {
  const asked: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    asked.push(url);
    expect(init?.redirect).toBe("manual");
    const route = routes[url];
    return route ? route() : new Response("missing", { status: 404 });
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

describe("blocked addresses", () => {
  it("refuses loopback, private, link-local, CGNAT, multicast and reserved IPv4 and IPv6, and IPv4 carried in IPv6", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "64:ff9b::10.0.0.1",
      "[::1]",
    ])
      expect({ a, blocked: isBlockedAddress(a) }).toEqual({ a, blocked: true });
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect({ a, blocked: isBlockedAddress(a) }).toEqual({ a, blocked: false });
  });

  it("refuses URLs to them however the host is written, internal names, other schemes and credentials", async () => {
    for (const url of [
      "http://127.0.0.1/x",
      "http://2130706433/", // 127.0.0.1 in decimal
      "http://0x7f.1/", // hex and short forms
      "http://017700000001/", // octal
      "http://[::1]:8080/",
      "http://[::ffff:127.0.0.1]/",
      "http://169.254.169.254/latest/meta-data/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://localhost:3000/",
      "http://api.localhost/",
      "http://printer.local/",
      "http://intranet/",
      "file:///etc/passwd",
      "ftp://example.com/a.txt",
      "gopher://example.com/",
      "http://user:pw@example.com/a.md",
      "not a url",
    ])
      await expect(checkRemoteUrl(url), url).rejects.toThrow(UnsafeUrlError);
    await expect(checkRemoteUrl("https://example.com/doc.md")).resolves.toBeInstanceOf(URL);
  });

  it("checks what a name resolves to when the host can resolve names", async () => {
    const lookup = async (host: string) =>
      host === "evil.example" ? ["93.184.216.34", "10.0.0.5"] : ["93.184.216.34"];
    await expect(checkRemoteUrl("https://evil.example/a.md", { lookup })).rejects.toThrow(/resolves to a private/);
    await expect(checkRemoteUrl("https://good.example/a.md", { lookup })).resolves.toBeInstanceOf(URL);
    const failing = async () => {
      throw new Error("ENOTFOUND");
    };
    await expect(checkRemoteUrl("https://nowhere.example/a.md", { lookup: failing })).rejects.toThrow(UnsafeUrlError);
  });
});

describe("safeFetch", () => {
  it("fetches an allowed type, following a redirect that stays public", async () => {
    const s = server({
      "https://docs.example/start": () => new Response(null, { status: 302, headers: { location: "/guide.md" } }),
      "https://docs.example/guide.md": () =>
        new Response("# Guide\nhello", { headers: { "content-type": "text/markdown; charset=utf-8" } }),
    });
    const got = await safeFetch("https://docs.example/start", { fetch: s.fetch });
    expect(got).toMatchObject({
      url: "https://docs.example/guide.md",
      contentType: "text/markdown",
      fileName: "guide.md",
    });
    expect(new TextDecoder().decode(got.bytes)).toBe("# Guide\nhello");
  });

  it("refuses a redirect to a private address without requesting it", async () => {
    const s = server({
      "https://docs.example/a": () =>
        new Response(null, { status: 301, headers: { location: "http://169.254.169.254/latest/meta-data/" } }),
    });
    await expect(safeFetch("https://docs.example/a", { fetch: s.fetch })).rejects.toThrow(UnsafeUrlError);
    expect(s.asked).toEqual(["https://docs.example/a"]);
  });

  it("caps redirects, size (declared and streamed), type and time", async () => {
    const loop = server({
      "https://a.example/1": () => new Response(null, { status: 302, headers: { location: "https://a.example/1" } }),
    });
    await expect(safeFetch("https://a.example/1", { fetch: loop.fetch, maxRedirects: 2 })).rejects.toThrow(
      RemoteFetchError,
    );
    expect(loop.asked).toHaveLength(3);

    const big = server({
      "https://a.example/declared": () =>
        new Response("x".repeat(10), { headers: { "content-type": "text/plain", "content-length": "5000" } }),
      "https://a.example/streamed": () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new Uint8Array(1024));
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    });
    await expect(safeFetch("https://a.example/declared", { fetch: big.fetch, maxBytes: 1000 })).rejects.toThrow(
      RemoteContentTooLargeError,
    );
    await expect(safeFetch("https://a.example/streamed", { fetch: big.fetch, maxBytes: 4096 })).rejects.toThrow(
      RemoteContentTooLargeError,
    );

    const typed = server({
      "https://a.example/app": () => new Response("MZ", { headers: { "content-type": "application/x-msdownload" } }),
      "https://a.example/none": () => new Response("?", { headers: { "content-type": "" } }),
      "https://a.example/500": () => new Response("boom", { status: 500, headers: { "content-type": "text/plain" } }),
    });
    await expect(safeFetch("https://a.example/app", { fetch: typed.fetch })).rejects.toThrow(
      UnsupportedContentTypeError,
    );
    await expect(safeFetch("https://a.example/none", { fetch: typed.fetch })).rejects.toThrow(
      UnsupportedContentTypeError,
    );
    await expect(safeFetch("https://a.example/500", { fetch: typed.fetch })).rejects.toThrow(/answered 500/);

    const slow = (async (_u: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }),
      )) as typeof globalThis.fetch;
    await expect(safeFetch("https://a.example/slow", { fetch: slow, timeoutMs: 50 })).rejects.toThrow(
      /did not answer within 50 ms/,
    );
  });
});

describe("EMBEDDER", () => {
  it("defaults to the embedding model of MODEL's provider, is taken as given, and must be provider:model-id", () => {
    expect(defaultEmbedder("openai:gpt-4.1-mini")).toBe("openai:text-embedding-3-small");
    expect(defaultEmbedder("google:gemini-2.5-flash")).toBe("google:gemini-embedding-001");
    expect(defaultEmbedder("anthropic:claude-sonnet-4")).toBeUndefined();
    expect(defaultEmbedder(undefined)).toBeUndefined();
    const read = (env: Record<string, unknown>) => readEnvConfig({ AGNO_AUTH: "none", ...env } as never);
    const ok = (env: Record<string, unknown>) => {
      const r = read(env);
      if (!r.ok) throw new Error(r.error.message);
      return r.config;
    };
    expect(ok({ MODEL: "openai:gpt-test" })).toMatchObject({ embedder: "openai:text-embedding-3-small" });
    expect(ok({ MODEL: "openai:gpt-test", EMBEDDER: "mistral:mistral-embed" })).toMatchObject({
      embedder: "mistral:mistral-embed",
    });
    expect(ok({ MODEL: "anthropic:claude" })).not.toHaveProperty("embedder");
    expect(ok({}).maxUploadBytes).toBe(10 * 1024 * 1024);
    expect(ok({ AGNO_KNOWLEDGE_MAX_UPLOAD_BYTES: "2048" }).maxUploadBytes).toBe(2048);
    const bad = read({ EMBEDDER: "text-embedding-3-small" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.problems.map((p) => p.variable)).toEqual(["EMBEDDER"]);
  });
});
