import { readCapped } from "../read-capped.js";
import { UpstreamError } from "./upstream-error.js";

export interface HttpJsonOptions {
  /** names the service in errors, e.g. "tavily" */
  service: string;
  timeoutMs: number;
  /** largest response body read */
  maxBytes: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** The message an API put in its error body, for the common shapes (`message`, `error`, `detail`, `errors[]`). */
function apiMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.slice(0, 300) || undefined;
  if (!body || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ["message", "error", "detail", "error_description"]) {
    const v = b[key];
    if (typeof v === "string" && v) return v.slice(0, 300);
    if (v && typeof v === "object") {
      const inner = apiMessage(v);
      if (inner) return inner;
    }
  }
  if (Array.isArray(b.errors) && b.errors.length > 0) return apiMessage(b.errors[0]);
  return undefined;
}

/**
 * One call to a JSON API with a deadline and a cap on the answer's size; an error status, a
 * timeout, a network failure or a body that is not JSON is an UpstreamError naming the service
 * and what went wrong, so the model can tell the user or try something else.
 */
export async function httpJson(url: string, init: RequestInit, opts: HttpJsonOptions): Promise<unknown> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  let res: Response;
  let bytes: Uint8Array | null;
  try {
    // Not followed: an API that redirects is misconfigured or not the API. "manual", because
    // Workers' fetch refuses `redirect: "error"` outright.
    res = await (opts.fetch ?? globalThis.fetch)(url, { ...init, signal, redirect: "manual" });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new UpstreamError(`${opts.service} answered a redirect (${res.status}), which is not followed`);
    }
    bytes = await readCapped(res, opts.maxBytes);
  } catch (error) {
    if (opts.signal?.aborted || error instanceof UpstreamError) throw error;
    if (deadline.aborted) throw new UpstreamError(`${opts.service} did not answer within ${opts.timeoutMs} ms`);
    throw new UpstreamError(`${opts.service} could not be reached: ${(error as Error).message}`, { cause: error });
  }
  if (!bytes) throw new UpstreamError(`${opts.service} answered more than ${opts.maxBytes} bytes`);
  const text = new TextDecoder().decode(bytes);
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    if (res.ok) throw new UpstreamError(`${opts.service} answered ${res.status} with a body that is not JSON`);
  }
  if (!res.ok) {
    const message = apiMessage(body);
    throw new UpstreamError(`${opts.service} answered ${res.status}${message ? `: ${message}` : ""}`);
  }
  return body;
}
