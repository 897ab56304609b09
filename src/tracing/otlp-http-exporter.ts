import type { SpanExporter } from "./span-exporter.js";
import type { AttributeValue, FinishedSpan, SpanKind, StatusCode } from "./span.js";

export interface OtlpHttpOptions {
  /** the collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `{endpoint}/v1/traces` */
  endpoint: string;
  /** sent with every export (OTEL_EXPORTER_OTLP_HEADERS: an API key, say) */
  headers?: Record<string, string>;
  /** how long one export may take before it is abandoned and its spans lost (default 5000 ms) */
  timeoutMs?: number;
  /** the resource's `service.name` (default "agno-edge") */
  serviceName?: string;
  /** for tests: the fetch to use */
  fetch?: typeof fetch;
}

const KINDS: Record<SpanKind, number> = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
const STATUS: Record<StatusCode, number> = { UNSET: 0, OK: 1, ERROR: 2 };

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

function anyValue(value: AttributeValue | string | number | boolean): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: (value as AttributeValue[]).map((v) => anyValue(v)) } };
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/** Epoch milliseconds as OTLP's nanoseconds (a decimal string: int64 in JSON). */
const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();

/** Spans as OTLP/JSON's ExportTraceServiceRequest (ids in hex, as the JSON encoding asks). */
export function otlpRequest(spans: FinishedSpan[], serviceName: string) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: anyValue(serviceName) }] },
        scopeSpans: [
          {
            scope: { name: "agno-edge" },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: KINDS[s.kind],
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: Object.entries(s.attributes).map(([key, value]) => ({ key, value: anyValue(value) })),
              status: { code: STATUS[s.status.code], ...(s.status.message ? { message: s.status.message } : {}) },
            })),
          },
        ],
      },
    ],
  };
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS as a header map: `k=v,k=v`, values percent-decoded (as the
 * OpenTelemetry spec writes them). Throws on an entry without `=`, for the config to report.
 */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const part of (raw ?? "").split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Error(`"${part.trim()}" is not key=value`);
    headers[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
  }
  return headers;
}

/**
 * Sends spans to an OpenTelemetry collector over OTLP/HTTP with JSON. One POST per batch, bounded
 * by a timeout and never retried: a collector that is down or hangs costs its spans, never a run.
 */
export class OtlpHttpExporter implements SpanExporter {
  readonly name = "otlp";
  private readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: OtlpHttpOptions) {
    this.url = `${opts.endpoint.replace(/\/+$/, "")}/v1/traces`;
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  async export(spans: FinishedSpan[]): Promise<void> {
    if (spans.length === 0) return;
    const send = this.opts.fetch ?? fetch;
    const response = await send(this.url, {
      method: "POST",
      headers: { ...this.opts.headers, "content-type": "application/json" },
      body: JSON.stringify(otlpRequest(spans, this.opts.serviceName ?? "agno-edge")),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    // The body is not needed; releasing it frees the connection.
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok) throw new Error(`${this.url} answered ${response.status}`);
  }
}
