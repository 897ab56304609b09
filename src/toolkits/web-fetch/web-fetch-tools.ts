import { z } from "zod";
import { tool, Toolkit } from "../../tools/tool.js";
import { checkRemoteUrl, safeFetch, type HostLookup } from "../../knowledge/remote/safe-fetch.js";
import { runtimeHostLookup } from "../../knowledge/remote/runtime-lookup.js";
import { readableText } from "./readable-text.js";

const TEXT_TYPES = [
  "text/html",
  "application/xhtml+xml",
  "text/plain",
  "text/markdown",
  "text/x-markdown",
  "text/csv",
  "application/json",
  "application/xml",
  "text/xml",
];

export interface WebFetchToolsOptions {
  /** largest body read, in bytes (default 2 MiB); a larger page is refused */
  maxBytes?: number;
  /** longest text handed to the model, in characters (default 20,000); longer text is cut and says so */
  maxChars?: number;
  /** the whole fetch, redirects included, in milliseconds (default 10 s) */
  timeoutMs?: number;
  /** redirects followed, each re-checked like the first URL (default 5) */
  maxRedirects?: number;
  /** media types read (default: HTML, text, Markdown, CSV, JSON, XML) */
  contentTypes?: readonly string[];
  /** resolves host names so their addresses are checked too (default: Node's DNS where there is one; Workers' fetch cannot reach private networks) */
  lookup?: HostLookup;
  /** the fetch to use (default globalThis.fetch) */
  fetch?: typeof fetch;
  include?: string[];
  exclude?: string[];
}

const urlArg = z
  .string()
  .max(2048)
  .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), { message: "an absolute http(s) URL" })
  .describe("The URL to read (http or https).");

/**
 * Reads web pages for the model: agno's WebsiteTools `read_url` (and WebTools `expand_url`),
 * fetched the safe way: http(s) only, no private, loopback, link-local or metadata address (each
 * redirect re-checked), one deadline, a size cap, text media types only; HTML reduced to its
 * readable text.
 */
export class WebFetchTools extends Toolkit {
  constructor(opts: WebFetchToolsOptions = {}) {
    const maxChars = opts.maxChars ?? 20_000;
    const fetchOpts = {
      maxBytes: opts.maxBytes ?? 2 * 1024 * 1024,
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxRedirects: opts.maxRedirects ?? 5,
      contentTypes: opts.contentTypes ?? TEXT_TYPES,
      lookup: opts.lookup ?? runtimeHostLookup(),
      ...(opts.fetch && { fetch: opts.fetch }),
    };
    super({
      id: "web_fetch",
      name: "web_fetch",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "read_url",
          description: "Read a web page and return its readable text (menus and scripts removed).",
          parameters: z.object({ url: urlArg }),
          execute: async ({ url }, ctx) => {
            const got = await safeFetch(url, { ...fetchOpts, signal: ctx.signal });
            const raw = new TextDecoder("utf-8").decode(got.bytes);
            const html = got.contentType === "text/html" || got.contentType === "application/xhtml+xml";
            const { title, text } = html ? readableText(raw) : { title: null, text: raw };
            const truncated = text.length > maxChars;
            return {
              url: got.url,
              content_type: got.contentType,
              ...(title && { title }),
              content: truncated ? text.slice(0, maxChars) : text,
              ...(truncated && { truncated: true, total_chars: text.length }),
            };
          },
        }),
        tool({
          name: "expand_url",
          description: "Follow a (shortened) URL's redirects and return where it leads.",
          parameters: z.object({ url: urlArg }),
          execute: async ({ url }, ctx) => {
            const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(fetchOpts.timeoutMs)]);
            const doFetch = opts.fetch ?? globalThis.fetch;
            let at = await checkRemoteUrl(url, fetchOpts);
            for (let hop = 0; hop <= fetchOpts.maxRedirects; hop++) {
              const res = await doFetch(at.toString(), { method: "HEAD", redirect: "manual", signal });
              await res.body?.cancel();
              const location = res.headers.get("location");
              if (res.status < 300 || res.status >= 400 || !location) return { url: at.toString(), status: res.status };
              at = await checkRemoteUrl(new URL(location, at).toString(), fetchOpts);
            }
            throw new Error(`${url}: more than ${fetchOpts.maxRedirects} redirects`);
          },
        }),
      ],
    });
  }
}
