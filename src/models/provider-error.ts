import { AgnoError, errorMessage } from "../errors.js";

export type ProviderErrorKind = "rate_limit" | "auth" | "context_length" | "server" | "network" | "unknown";

const CONTEXT_PATTERNS =
  /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|max_tokens.*exceed|reduce the length/i;
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "UND_ERR_SOCKET",
]);
/** Transport failures by message: workerd's fetch says "Network connection lost." (a plain Error, no code), Node's undici "terminated". */
const NETWORK_MESSAGES =
  /network connection lost|fetch failed|network error|socket hang up|other side closed|^terminated$|connection (reset|refused|lost|closed)/i;

function statusOf(error: unknown): number | undefined {
  const e = error as { statusCode?: unknown; status?: unknown } | null;
  const status = e?.statusCode ?? e?.status;
  return typeof status === "number" ? status : undefined;
}

function textOf(error: unknown): string {
  const e = error as { message?: unknown; responseBody?: unknown } | null;
  return `${typeof e?.message === "string" ? e.message : String(error)} ${typeof e?.responseBody === "string" ? e.responseBody : ""}`;
}

/**
 * A model provider failed. `kind` says what to do about it: wait and retry (rate_limit,
 * server, network), fix credentials (auth), or shorten the input (context_length).
 *
 * @example
 * const kind = ModelProviderError.classify(err); // "rate_limit"
 */
export class ModelProviderError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "model_provider_error";

  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly provider: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get retryable(): boolean {
    return this.kind === "rate_limit" || this.kind === "server" || this.kind === "network";
  }

  /** Sorts any provider failure (AI SDK errors, fetch errors, HTTP statuses) into a kind. */
  static classify(error: unknown): ProviderErrorKind {
    if (error instanceof ModelProviderError) return error.kind;
    const status = statusOf(error);
    const text = textOf(error);
    if (status === 429 || (status === undefined && /rate.?limit|quota/i.test(text))) return "rate_limit";
    if (status === 401 || status === 403) return "auth";
    if ((error as { name?: unknown } | null)?.name === "AI_LoadAPIKeyError" || /api key is missing/i.test(text))
      return "auth";
    if ((status === 400 || status === 413 || status === undefined) && CONTEXT_PATTERNS.test(text))
      return "context_length";
    if (status !== undefined && status >= 500) return "server";
    if (status === 408 || status === 409) return "server";
    // A transport failure can arrive bare, or wrapped (the AI SDK reports a stream cut after a
    // 200 as an API error whose cause is the fetch layer's TypeError): look down the chain.
    if (status === undefined || status < 400) {
      for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === "string" && NETWORK_CODES.has(code)) return "network";
        if (e instanceof TypeError && /fetch failed|terminated|network|socket|connection/i.test(e.message))
          return "network";
        if (e instanceof Error && NETWORK_MESSAGES.test(e.message)) return "network";
      }
      if (
        status === undefined &&
        /fetch failed|network error|socket hang up|terminated|connection (reset|refused)/i.test(text)
      )
        return "network";
    }
    return "unknown";
  }

  static from(error: unknown, provider: string): ModelProviderError {
    if (error instanceof ModelProviderError) return error;
    const kind = ModelProviderError.classify(error);
    const headers = (error as { responseHeaders?: Record<string, string> } | null)?.responseHeaders;
    const retryAfter = headers?.["retry-after"] ?? headers?.["Retry-After"];
    const retryAfterMs =
      retryAfter !== undefined && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) * 1000 : undefined;
    const status = statusOf(error);
    if (kind === "network") {
      // A connection cut after a 200 is reported by the SDK as "Failed to process successful response": say what happened.
      let root: unknown = error;
      while (root instanceof Error && root.cause instanceof Error) root = root.cause;
      const reason = errorMessage(root);
      return new ModelProviderError(
        `${provider} network: the connection to the model was lost (${reason})`,
        kind,
        provider,
        retryAfterMs,
        { cause: error },
      );
    }
    const detail = errorMessage(error);
    return new ModelProviderError(
      `${provider} ${kind}${status ? ` (HTTP ${status})` : ""}: ${detail}`,
      kind,
      provider,
      retryAfterMs,
      { cause: error },
    );
  }
}
