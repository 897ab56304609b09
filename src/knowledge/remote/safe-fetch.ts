import { readCapped } from "../../read-capped.js";
import { blockedHostName, isBlockedAddress } from "./blocked-address.js";
import { UnsupportedContentTypeError } from "../errors.js";
import { RemoteContentTooLargeError, RemoteFetchError, UnsafeUrlError } from "./errors.js";

/** The content types the knowledge readers take (text, Markdown, HTML, JSON, CSV, PDF). */
export const DEFAULT_REMOTE_CONTENT_TYPES: readonly string[] = [
  "text/plain",
  "text/markdown",
  "text/x-markdown",
  "text/html",
  "application/xhtml+xml",
  "application/json",
  "text/csv",
  "application/csv",
  "application/pdf",
];

/** Resolves a host name to its addresses (Node's dns.lookup with `all: true`, or a test's stand-in). */
export type HostLookup = (host: string) => Promise<string[]>;

export interface SafeFetchOptions {
  /** largest body read, in bytes (default 10 MiB) */
  maxBytes?: number;
  /** whole fetch, redirects and body included, in milliseconds (default 15 s) */
  timeoutMs?: number;
  /** redirects followed, each checked like the first URL (default 3) */
  maxRedirects?: number;
  /** media types accepted (parameters such as charset ignored); default DEFAULT_REMOTE_CONTENT_TYPES */
  contentTypes?: readonly string[];
  /**
   * Resolves host names so their addresses are checked too. Workers cannot resolve names (and
   * their fetch cannot reach private networks anyway); a Node host passes `dns.lookup`. Without
   * it, IP literals and internal names are still refused.
   */
  lookup?: HostLookup;
  /** the fetch to use (default globalThis.fetch) */
  fetch?: typeof fetch;
  /** the caller's cancellation, besides the timeout */
  signal?: AbortSignal;
}

export interface FetchedContent {
  /** the URL the bytes came from, after redirects */
  url: string;
  bytes: Uint8Array;
  /** the media type without parameters, lower case */
  contentType: string;
  /** the last path segment of the URL, when there is one */
  fileName?: string;
}

/** A fetcher as the knowledge base takes one (`Knowledge`'s `fetcher` option). */
export type RemoteFetcher = (url: string, opts?: { signal?: AbortSignal }) => Promise<FetchedContent>;

/**
 * Checks a URL before anything is fetched: http or https only, no credentials in it, no
 * loopback, private, link-local (cloud metadata) or otherwise internal address, whether written
 * as an IP literal (the URL parser normalises decimal, octal and hex IPv4 forms) or reached
 * through a name that resolves to one (when `lookup` is given). Throws UnsafeUrlError.
 */
export async function checkRemoteUrl(raw: string, opts: Pick<SafeFetchOptions, "lookup"> = {}): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError(`not a URL: ${truncate(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UnsafeUrlError(`only http and https URLs are fetched, not ${url.protocol.replace(/:$/, "")}`);
  if (url.username || url.password) throw new UnsafeUrlError("a URL with credentials in it is not fetched");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = isIpLiteral(host);
  if (literal ? isBlockedAddress(host) : blockedHostName(host))
    throw new UnsafeUrlError(`${url.hostname} is a private, loopback or internal address: it is not fetched`);
  if (!literal && opts.lookup) {
    let addresses: string[];
    try {
      addresses = await opts.lookup(host);
    } catch {
      throw new UnsafeUrlError(`${url.hostname} does not resolve`);
    }
    if (addresses.length === 0 || addresses.some(isBlockedAddress))
      throw new UnsafeUrlError(
        `${url.hostname} resolves to a private, loopback or internal address: it is not fetched`,
      );
  }
  return url;
}

/**
 * Fetches remote content for ingestion, safely: every URL (the first and each redirect's) passes
 * `checkRemoteUrl`, redirects are followed by hand (at most `maxRedirects`), the whole exchange
 * has one deadline, the media type must be allowed, and the body is read up to `maxBytes` (a
 * larger Content-Length is refused before reading, a body that grows past it is cut off).
 */
export async function safeFetch(raw: string, opts: SafeFetchOptions = {}): Promise<FetchedContent> {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 3;
  const allowed = new Set((opts.contentTypes ?? DEFAULT_REMOTE_CONTENT_TYPES).map((t) => t.toLowerCase()));
  const doFetch = opts.fetch ?? globalThis.fetch;
  const deadline = AbortSignal.timeout(opts.timeoutMs ?? 15_000);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let url = await checkRemoteUrl(raw, opts);
  try {
    for (let hop = 0; ; hop++) {
      const res = await doFetch(url.toString(), {
        redirect: "manual",
        signal,
        headers: { accept: [...allowed].join(", ") },
      });
      if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
        await res.body?.cancel();
        if (hop >= maxRedirects) throw new RemoteFetchError(`${url.hostname}: more than ${maxRedirects} redirects`);
        url = await checkRemoteUrl(new URL(res.headers.get("location")!, url).toString(), opts);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new RemoteFetchError(`${url.hostname} answered ${res.status}`);
      }
      const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!allowed.has(contentType)) {
        await res.body?.cancel();
        throw new UnsupportedContentTypeError(contentType || "none");
      }
      const declared = Number(res.headers.get("content-length") ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await res.body?.cancel();
        throw new RemoteContentTooLargeError(`${url.hostname} sent ${declared} bytes; the limit is ${maxBytes}`);
      }
      const bytes = await readCappedOrRefuse(res, maxBytes, url);
      const last = decodeURIComponent(url.pathname.split("/").pop() ?? "");
      return { url: url.toString(), bytes, contentType, ...(last ? { fileName: last } : {}) };
    }
  } catch (error) {
    if (deadline.aborted)
      throw new RemoteFetchError(`${url.hostname} did not answer within ${opts.timeoutMs ?? 15_000} ms`);
    throw error;
  }
}

/** A fetcher with these options, for `Knowledge`'s `fetcher`. */
export function safeFetcher(opts: SafeFetchOptions = {}): RemoteFetcher {
  return (url, call) => safeFetch(url, call?.signal ? { ...opts, signal: call.signal } : opts);
}

async function readCappedOrRefuse(res: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  const bytes = await readCapped(res, maxBytes);
  if (!bytes) throw new RemoteContentTooLargeError(`${url.hostname} sent more than ${maxBytes} bytes`);
  return bytes;
}

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

function truncate(s: string): string {
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
}
