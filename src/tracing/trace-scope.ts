import type { SpanContext } from "./span-context.js";
import type { Tracer } from "./tracer.js";

/**
 * The instrumentation hook threaded through runs (RunOptions.trace, ToolContext.trace, a
 * workflow's scope, a job's execution): the request's tracer and the span the next span belongs
 * under. Passed explicitly, never kept in a global, so one request's spans never land in
 * another's trace. Absent: nothing is traced, at no cost.
 */
export interface TraceScope {
  tracer: Tracer;
  /** the enclosing span (null: the next span starts a trace) */
  parent: SpanContext | null;
}

/** The scope for work under `parent` with the same tracer. */
export function childScope(scope: TraceScope, parent: SpanContext): TraceScope {
  return { tracer: scope.tracer, parent };
}
