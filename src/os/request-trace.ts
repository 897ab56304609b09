import type { Context, MiddlewareHandler } from "hono";
import { formatTraceparent, parseTraceparent } from "../tracing/traceparent.js";
import type { TraceScope } from "../tracing/trace-scope.js";
import { tracerFor, type TracingSettings } from "../tracing/tracing-settings.js";
import type { OSEnv } from "./context.js";

/** Where the runs a request starts are traced, when tracing is on: its tracer, under the caller's `traceparent`. */
export function requestTrace(c: Context<OSEnv>): TraceScope | undefined {
  return c.get("trace");
}

/** `{ trace }` for a run's options when the request is traced, else nothing (the options are exact). */
export function traceOf(c: Context<OSEnv>): { trace?: TraceScope } {
  const trace = requestTrace(c);
  return trace ? { trace } : {};
}

/**
 * The `traceparent` a background job carries: the request's span context when it is traced (the
 * job's span continues the caller's trace), else the caller's header as it came, else none.
 */
export function jobTraceparent(c: Context<OSEnv>, ref: { type: string; id: string }): string | undefined {
  const trace = requestTrace(c);
  if (trace) {
    // The enqueue is the job's parent: the request's trace and the job's are one.
    const span = trace.tracer.startSpan(`enqueue ${ref.type} run`, {
      parent: trace.parent,
      kind: "PRODUCER",
      attributes: { "messaging.operation.type": "send", [`agno.${ref.type}.id`]: ref.id },
    });
    span.setStatus("OK").end();
    return formatTraceparent(span.context);
  }
  const incoming = parseTraceparent(c.req.header("traceparent"));
  return incoming ? formatTraceparent(incoming) : undefined;
}

/**
 * Per request, with tracing on: a tracer writing through the request's default database (and to
 * the collector), under the W3C `traceparent` the caller sent. Its spans are flushed after the
 * response, with `waitUntil`, once an event stream's body has ended: exporting never delays an
 * answer, and a collector that is down never fails one.
 */
export function tracingMiddleware(settings: TracingSettings | undefined): MiddlewareHandler<OSEnv> {
  return async (c, next) => {
    const tracer = settings && tracerFor(settings, c.env.dbs?.[0]);
    if (!tracer) return next();
    c.set("trace", { tracer, parent: parseTraceparent(c.req.header("traceparent")) });
    await next();
    let ended: Promise<unknown> = Promise.resolve();
    const res = c.res;
    if (res.body && res.headers.get("content-type")?.startsWith("text/event-stream")) {
      const { readable, writable } = new TransformStream();
      ended = res.body.pipeTo(writable).catch(() => undefined);
      c.res = new Response(readable, res);
    }
    const flushed = ended.then(() => tracer.flush());
    try {
      c.executionCtx.waitUntil(flushed);
    } catch {
      // No execution context (plain Node use): the flush simply runs on.
    }
  };
}
