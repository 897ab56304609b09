import { errorMessage } from "../errors.js";
import { randomHex, type SpanContext } from "./span-context.js";
import { Span, type AttributeValue, type FinishedSpan, type SpanKind } from "./span.js";
import type { SpanExporter } from "./span-exporter.js";
import { ratioSampler } from "./sampler.js";

export interface TracerOptions {
  exporters: SpanExporter[];
  /** share of new traces recorded, 0 to 1 (default 1); a continued trace keeps its caller's decision */
  sampleRatio?: number;
  /** finished spans held before a batch is sent without waiting for `flush` (default 512) */
  maxBatch?: number;
  /** finished spans held at most; beyond it new ones are dropped, so a dead exporter never grows memory (default 4096) */
  maxQueue?: number;
}

export interface StartSpanOptions {
  /** the span this one belongs under; none starts a new trace (sampled by the ratio) */
  parent?: SpanContext | null;
  kind?: SpanKind;
  attributes?: Record<string, AttributeValue | null | undefined>;
}

/**
 * Makes spans and batches the finished ones for its exporters. One tracer serves one request (or
 * one background job): nothing of a request's trace lives in a global, and `flush()` is what the
 * runtime hands to `waitUntil`, so exporting happens after the response and never delays it.
 */
export class Tracer {
  private readonly exporters: SpanExporter[];
  private readonly sample: (traceId: string) => boolean;
  private readonly maxBatch: number;
  private readonly maxQueue: number;
  private queue: FinishedSpan[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** spans dropped because the queue was full */
  dropped = 0;

  constructor(opts: TracerOptions) {
    this.exporters = opts.exporters;
    this.sample = ratioSampler(opts.sampleRatio ?? 1);
    this.maxBatch = opts.maxBatch ?? 512;
    this.maxQueue = opts.maxQueue ?? 4096;
  }

  startSpan(name: string, opts: StartSpanOptions = {}): Span {
    const parent = opts.parent ?? null;
    const traceId = parent?.traceId ?? randomHex(16);
    const sampled = parent ? parent.sampled : this.sample(traceId);
    const context: SpanContext = { traceId, spanId: randomHex(8), sampled };
    const span = new Span(
      context,
      parent?.spanId ?? null,
      name,
      opts.kind ?? "INTERNAL",
      sampled && this.exporters.length > 0 ? (s) => this.finished(s) : null,
    );
    if (opts.attributes) span.setAll(opts.attributes);
    return span;
  }

  private finished(span: FinishedSpan): void {
    if (this.queue.length >= this.maxQueue) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.maxBatch) this.track(this.send(this.queue.splice(0)));
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  /** Hands `spans` to every exporter; a failing exporter is logged and loses its batch. */
  private async send(spans: FinishedSpan[]): Promise<void> {
    await Promise.all(
      this.exporters.map((exporter) =>
        exporter.export(spans).catch((error: unknown) => {
          console.warn(`tracing: the ${exporter.name} exporter dropped ${spans.length} spans: ${errorMessage(error)}`);
        }),
      ),
    );
  }

  /**
   * Sends every span finished so far and waits for all sends under way. Never rejects: hand it
   * to `waitUntil`. Spans that end after it was called go with the next flush.
   */
  async flush(): Promise<void> {
    if (this.queue.length > 0) this.track(this.send(this.queue.splice(0)));
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
