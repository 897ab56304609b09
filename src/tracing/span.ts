import type { SpanContext } from "./span-context.js";

/** An attribute's value: what both OTLP and agno's JSON column hold. */
export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];
export type Attributes = Record<string, AttributeValue>;

/** OpenTelemetry's span kinds, by the names agno stores. */
export type SpanKind = "INTERNAL" | "SERVER" | "CLIENT" | "PRODUCER" | "CONSUMER";

export type StatusCode = "UNSET" | "OK" | "ERROR";

/** A span once it has ended: what the exporters receive. Times are epoch milliseconds. */
export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: SpanKind;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  status: { code: StatusCode; message?: string };
}

/**
 * One timed operation of a trace. Ending it twice is harmless (the first end counts), so a
 * `finally` may end a span an error path ended already. A span that is not sampled records
 * nothing but still hands its context on.
 */
export class Span {
  private readonly attributes: Attributes = {};
  private status: FinishedSpan["status"] = { code: "UNSET" };
  private ended = false;
  private readonly startMs = Date.now();

  constructor(
    readonly context: SpanContext,
    readonly parentSpanId: string | null,
    readonly name: string,
    private readonly kind: SpanKind,
    private readonly onEnd: ((span: FinishedSpan) => void) | null,
  ) {}

  /** whether anything set on this span is kept */
  get recording(): boolean {
    return this.onEnd !== null && !this.ended;
  }

  /** Sets one attribute; undefined and null are skipped (OpenTelemetry has no null). */
  set(key: string, value: AttributeValue | null | undefined): this {
    if (this.recording && value !== undefined && value !== null) this.attributes[key] = value;
    return this;
  }

  setAll(attributes: Record<string, AttributeValue | null | undefined>): this {
    for (const [key, value] of Object.entries(attributes)) this.set(key, value);
    return this;
  }

  setStatus(code: StatusCode, message?: string): this {
    if (this.recording) this.status = message === undefined ? { code } : { code, message };
    return this;
  }

  /** Marks the span failed with `message` (agno's UI shows `exception.message`). */
  fail(message: string): this {
    this.set("exception.message", message);
    return this.setStatus("ERROR", message);
  }

  end(): void {
    if (!this.recording) return;
    this.ended = true;
    this.onEnd!({
      traceId: this.context.traceId,
      spanId: this.context.spanId,
      parentSpanId: this.parentSpanId,
      name: this.name,
      kind: this.kind,
      startMs: this.startMs,
      endMs: Math.max(Date.now(), this.startMs),
      attributes: this.attributes,
      status: this.status,
    });
  }
}
