/**
 * `npm run bench -- tracing`: what tracing costs a run, in process (no database, no HTTP): one
 * agent run with a tool call (two model calls, four spans) against an in-process model, with
 * tracing off, on with the db exporter (a TraceWriter that keeps the rows: the write itself
 * happens after the response, with waitUntil, so the run never waits for it), and on with an
 * OTLP collector that is down (a closed port) and one that hangs. The run's latency is measured
 * up to its return, as a caller sees it; the flush after it is measured apart.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { SpanRecord, TraceRecord, TraceWriter } from "../../src/db/ports/trace-store.js";
import { emptyUsage, type Model, type ModelChunk, type ModelRequest } from "../../src/models/model.js";
import { tool } from "../../src/tools/tool.js";
import { DbSpanExporter } from "../../src/tracing/db-exporter.js";
import { OtlpHttpExporter } from "../../src/tracing/otlp-http-exporter.js";
import type { SpanExporter } from "../../src/tracing/span-exporter.js";
import { Tracer } from "../../src/tracing/tracer.js";
import { emit, log, median, percentile, round } from "./util.js";

const RUNS = Number(process.env.BENCH_TRACING_RUNS ?? 400);
const OTLP_TIMEOUT_MS = 1000;

/** Answers a tool call first, then text once the tool's answer is in the conversation. */
const model: Model = {
  id: "bench-model",
  provider: "bench",
  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const answered = request.messages.some((m) => m.role === "tool");
    if (!answered) yield { type: "tool_call", id: "call_1", name: "lookup", arguments: '{"city":"Paris"}' };
    else yield { type: "text", delta: "Sunny." };
    yield { type: "finish", reason: answered ? "stop" : "tool_calls", usage: { ...emptyUsage(), input_tokens: 10 } };
  },
};

const lookup = tool({
  name: "lookup",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `${city}: sun`,
});

class KeptRows implements TraceWriter {
  spans = 0;
  async writeTraces(_traces: TraceRecord[], spans: SpanRecord[]): Promise<void> {
    this.spans += spans.length;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function measure(name: string, exporters: () => SpanExporter[] | null): Promise<void> {
  const agent = new Agent({ id: "bench", model, tools: [lookup] });
  const runMs: number[] = [];
  const flushMs: number[] = [];
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    for (let i = 0; i < RUNS + 20; i++) {
      const made = exporters();
      const tracer = made && new Tracer({ exporters: made });
      const started = performance.now();
      const out = await agent.run("Weather?", tracer ? { trace: { tracer, parent: null } } : {});
      const ran = performance.now() - started;
      if (out.status !== "COMPLETED") throw new Error(`run ended ${out.status}`);
      const flushStarted = performance.now();
      await tracer?.flush();
      // The first runs warm the JIT; only the rest count.
      if (i >= 20) {
        runMs.push(ran);
        flushMs.push(performance.now() - flushStarted);
      }
    }
  } finally {
    console.warn = warn;
  }
  emit({
    bench: "tracing",
    exporter: name,
    runs: RUNS,
    run_ms_median: round(median(runMs), 3),
    run_ms_p99: round(percentile(runMs, 99), 3),
    flush_ms_median: round(median(flushMs), 3),
    flush_ms_max: round(Math.max(...flushMs), 3),
  });
}

export async function benchTracing(): Promise<void> {
  log(`tracing: ${RUNS} runs each (a tool call, two model calls)`);
  const closed = createServer();
  const closedUrl = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const hanging = createServer(() => undefined);
  const hangingUrl = await listen(hanging);
  try {
    await measure("off", () => null);
    const rows = new KeptRows();
    await measure("db", () => [new DbSpanExporter(rows)]);
    await measure("otlp-down", () => [new OtlpHttpExporter({ endpoint: closedUrl, timeoutMs: OTLP_TIMEOUT_MS })]);
    await measureFew("otlp-hanging", () => [
      new OtlpHttpExporter({ endpoint: hangingUrl, timeoutMs: OTLP_TIMEOUT_MS }),
    ]);
  } finally {
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  }
}

/**
 * A hanging collector: each flush waits out the exporter's timeout, so the flushes are not awaited
 * run by run (as waitUntil does not hold the response) but all together at the end.
 */
async function measureFew(name: string, exporters: () => SpanExporter[]): Promise<void> {
  const agent = new Agent({ id: "bench", model, tools: [lookup] });
  const runMs: number[] = [];
  const flushes: Promise<void>[] = [];
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    for (let i = 0; i < RUNS + 20; i++) {
      const tracer = new Tracer({ exporters: exporters() });
      const started = performance.now();
      await agent.run("Weather?", { trace: { tracer, parent: null } });
      if (i >= 20) runMs.push(performance.now() - started);
      flushes.push(tracer.flush());
    }
    const flushStarted = performance.now();
    await Promise.all(flushes);
    emit({
      bench: "tracing",
      exporter: name,
      runs: RUNS,
      run_ms_median: round(median(runMs), 3),
      run_ms_p99: round(percentile(runMs, 99), 3),
      exporter_timeout_ms: OTLP_TIMEOUT_MS,
      all_flushes_settled_ms: round(performance.now() - flushStarted, 1),
    });
  } finally {
    console.warn = warn;
  }
}
