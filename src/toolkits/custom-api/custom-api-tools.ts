import { z } from "zod";
import { tool, Toolkit } from "../../tools/tool.js";
import { readCapped } from "../../read-capped.js";
import { bytesToBase64 } from "../../base64.js";
import { checkRemoteUrl, type HostLookup } from "../../knowledge/remote/safe-fetch.js";
import { runtimeHostLookup } from "../../knowledge/remote/runtime-lookup.js";
import { UpstreamError } from "../upstream-error.js";

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const;
/** Headers the model may not set: they belong to the transport or to the toolkit's own credentials. */
const RESERVED_HEADERS = /^(host|content-length|connection|transfer-encoding|cookie|authorization|proxy-.*)$/i;

export interface CustomApiToolsOptions {
  /** endpoints are paths under this URL (agno's `base_url`); its host is allowed */
  baseUrl?: string;
  /** further hosts (exact names, or `*.example.com` for subdomains) the model may call with absolute URLs */
  allowedHosts?: string[];
  /** HTTP methods the model may use (default all of GET, POST, PUT, DELETE, PATCH) */
  allowedMethods?: Array<(typeof METHODS)[number]>;
  username?: string;
  password?: string;
  /** sent as `Authorization: Bearer`, only to the base URL's host (as agno) */
  apiKey?: string;
  /** sent with every request (agno's `headers`) */
  headers?: Record<string, string>;
  /** per request, in milliseconds (default 30 s, agno's) */
  timeoutMs?: number;
  /** largest response body read, in bytes (default 1 MiB) */
  maxBytes?: number;
  /** let allowed hosts be private, loopback or link-local addresses (an internal API); default false */
  allowPrivateNetwork?: boolean;
  lookup?: HostLookup;
  fetch?: typeof fetch;
  include?: string[];
  exclude?: string[];
}

function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

function hostAllowed(host: string, allowed: string[]): boolean {
  const h = host.toLowerCase();
  return allowed.some((a) => {
    const p = a.toLowerCase();
    return p.startsWith("*.") ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
  });
}

/**
 * agno's CustomApiTools: `make_request` to an API, limited to the hosts the developer allows
 * (the base URL's and `allowedHosts`), with a deadline and a size cap. Redirects are not
 * followed: the model sees the 3xx and its Location. An error status is an answer carrying
 * `error` (agno's shape); no answer at all is a tool error.
 */
export class CustomApiTools extends Toolkit {
  constructor(opts: CustomApiToolsOptions) {
    const base = opts.baseUrl ? new URL(opts.baseUrl) : undefined;
    const allowed = [...(base ? [base.host] : []), ...(opts.allowedHosts ?? [])];
    if (allowed.length === 0) throw new TypeError("CustomApiTools needs a baseUrl or allowedHosts");
    const methods = opts.allowedMethods ?? [...METHODS];
    const lookup = opts.lookup ?? runtimeHostLookup();
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const maxBytes = opts.maxBytes ?? 1024 * 1024;

    const target = (endpoint: string): URL => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(endpoint)) return new URL(endpoint);
      if (endpoint.startsWith("//")) return new URL(`https:${endpoint}`);
      if (!base) throw new TypeError("a relative endpoint needs the toolkit's baseUrl");
      const path = endpoint.split(/[?#]/)[0]!;
      if (/(^|\/)\.\.?(\/|$)/.test(path) || /%2e|%2f|%5c/i.test(path))
        throw new TypeError("the endpoint may not contain dot segments or encoded separators");
      return new URL(`${base.href.replace(/\/+$/, "")}/${endpoint.replace(/^\/+/, "")}`);
    };

    const parameters = z
      .object({
        endpoint: z
          .string()
          .min(1)
          .max(2048)
          .describe("API endpoint (a path under the base URL, or an allowed absolute URL)"),
        method: z
          .enum(methods as [string, ...string[]])
          .default("GET")
          .describe("HTTP method"),
        params: z
          .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
          .optional()
          .describe("Query parameters"),
        data: z
          .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
          .optional()
          .describe("Form data to send"),
        headers: z.record(z.string(), z.string()).optional().describe("Additional headers"),
        json_data: z.record(z.string(), z.unknown()).optional().describe("JSON data to send"),
      })
      .superRefine((args, ctx) => {
        let url: URL;
        try {
          url = target(args.endpoint);
        } catch (e) {
          ctx.addIssue({ code: "custom", path: ["endpoint"], message: (e as Error).message });
          return;
        }
        if (url.protocol !== "https:" && url.protocol !== "http:")
          ctx.addIssue({ code: "custom", path: ["endpoint"], message: "only http and https" });
        else if (!hostAllowed(url.host, allowed))
          ctx.addIssue({ code: "custom", path: ["endpoint"], message: `${url.host} is not an allowed host` });
        for (const name of Object.keys(args.headers ?? {}))
          if (RESERVED_HEADERS.test(name))
            ctx.addIssue({ code: "custom", path: ["headers", name], message: "this header is set by the toolkit" });
        if (args.data && args.json_data)
          ctx.addIssue({ code: "custom", path: ["data"], message: "send data or json_data, not both" });
      });

    super({
      id: "api_tools",
      name: "api_tools",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "make_request",
          description: `Make an HTTP request to the API${base ? ` at ${base.origin}` : ""}. Allowed hosts: ${allowed.join(", ")}.`,
          parameters,
          execute: async (args, ctx) => {
            const url = target(args.endpoint);
            if (!opts.allowPrivateNetwork) await checkRemoteUrl(url.toString(), { lookup });
            for (const [k, v] of Object.entries(args.params ?? {})) url.searchParams.append(k, String(v));
            const headers = new Headers(opts.headers);
            for (const [k, v] of Object.entries(args.headers ?? {})) if (!headers.has(k)) headers.set(k, v);
            if (opts.username && opts.password)
              headers.set(
                "authorization",
                `Basic ${bytesToBase64(new TextEncoder().encode(`${opts.username}:${opts.password}`))}`,
              );
            else if (opts.apiKey && base && url.host === base.host)
              headers.set("authorization", `Bearer ${opts.apiKey}`);
            let body: string | undefined;
            if (args.json_data) {
              headers.set("content-type", "application/json");
              body = JSON.stringify(args.json_data);
            } else if (args.data) {
              headers.set("content-type", "application/x-www-form-urlencoded");
              body = new URLSearchParams(Object.entries(args.data).map(([k, v]) => [k, String(v)])).toString();
            }
            const deadline = AbortSignal.timeout(timeoutMs);
            let res: Response;
            let bytes: Uint8Array | null;
            try {
              res = await (opts.fetch ?? globalThis.fetch)(url.toString(), {
                method: args.method,
                headers,
                body,
                redirect: "manual",
                signal: AbortSignal.any([deadline, ctx.signal]),
              });
              bytes = await readCapped(res, maxBytes);
            } catch (error) {
              if (ctx.signal.aborted) throw error;
              if (deadline.aborted) throw new UpstreamError(`${url.host} did not answer within ${timeoutMs} ms`);
              throw new UpstreamError(`${url.host} could not be reached: ${(error as Error).message}`);
            }
            if (!bytes) throw new UpstreamError(`${url.host} answered more than ${maxBytes} bytes`);
            const text = new TextDecoder().decode(bytes);
            let data: unknown;
            try {
              data = JSON.parse(text);
            } catch {
              data = { text };
            }
            return {
              status_code: res.status,
              headers: headersOf(res.headers),
              data,
              ...(res.status >= 400 && { error: "Request failed" }),
            };
          },
        }),
      ],
    });
  }
}
