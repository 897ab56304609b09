import type { FinishedSpan } from "./span.js";

/**
 * Where finished spans go (the database, an OTLP collector). `export` may reject: the tracer
 * logs it and drops the batch, a run never waits on it or fails with it.
 */
export interface SpanExporter {
  readonly name: string;
  export(spans: FinishedSpan[]): Promise<void>;
}
