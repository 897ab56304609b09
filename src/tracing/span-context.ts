/**
 * Who a span is, as it travels: the W3C trace context's ids and its sampled flag. A span that is
 * not sampled still has ids, so whatever it starts (a member run, a background job) carries the
 * same decision on instead of deciding again.
 */
export interface SpanContext {
  /** 16 bytes, lowercase hex */
  traceId: string;
  /** 8 bytes, lowercase hex */
  spanId: string;
  sampled: boolean;
}

/** Random lowercase hex of `bytes` bytes (never all zeros, which W3C reserves as invalid). */
export function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  if (buf.every((b) => b === 0)) buf[bytes - 1] = 1;
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}
