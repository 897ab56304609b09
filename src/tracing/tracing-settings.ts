import type { TraceWriter } from "../db/ports/trace-store.js";
import { DbSpanExporter } from "./db-exporter.js";
import { OtlpHttpExporter, type OtlpHttpOptions } from "./otlp-http-exporter.js";
import type { SpanExporter } from "./span-exporter.js";
import { Tracer } from "./tracer.js";

/** Where a deployment's spans go and how many of its traces are kept (AGNO_TRACING, or AgentOSOptions.tracing). */
export interface TracingSettings {
  /** `db`: agno's trace tables (the `/traces` routes read them); `otlp`: an OpenTelemetry collector */
  exporters: ReadonlyArray<"db" | "otlp">;
  /** share of new traces recorded, 0 to 1 (default 1) */
  sampleRatio?: number;
  /** the collector, with `otlp` */
  otlp?: Omit<OtlpHttpOptions, "fetch">;
}

/**
 * A tracer for one request (or one queue) writing through `db`'s trace store, or undefined when
 * the settings send spans nowhere. Without a database there is no db exporter: the spans still
 * go to the collector, when there is one.
 */
export function tracerFor(
  settings: TracingSettings | undefined,
  db: { readonly traces: TraceWriter } | undefined,
): Tracer | undefined {
  if (!settings) return undefined;
  const exporters: SpanExporter[] = [];
  if (settings.exporters.includes("db") && db) exporters.push(new DbSpanExporter(db.traces));
  if (settings.exporters.includes("otlp") && settings.otlp) exporters.push(new OtlpHttpExporter(settings.otlp));
  if (exporters.length === 0) return undefined;
  return new Tracer({
    exporters,
    ...(settings.sampleRatio !== undefined ? { sampleRatio: settings.sampleRatio } : {}),
  });
}
