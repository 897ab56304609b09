import type { SpanContext } from "./span-context.js";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The caller's span from a W3C `traceparent` header, or null when it is absent or malformed (a
 * bad header starts a new trace; it never fails the request). Version ff and all-zero ids are
 * invalid; a later version is read by its first four fields, as the spec asks.
 */
export function parseTraceparent(header: string | null | undefined): SpanContext | null {
  if (!header) return null;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string?];
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** A span's context as a `traceparent` header value (version 00). */
export function formatTraceparent(ctx: SpanContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${ctx.sampled ? "01" : "00"}`;
}
