import type { ComponentRef } from "../agent/component.js";
import type { Span } from "./span.js";
import type { TraceScope } from "./trace-scope.js";

/** Longest text kept in `input.value` / `output.value`: enough for agno's UI, bounded for the row. */
export const MAX_TRACED_TEXT = 4096;

/** `value` as text for `input.value` / `output.value`, cut to MAX_TRACED_TEXT. */
export function tracedText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_TRACED_TEXT ? `${text.slice(0, MAX_TRACED_TEXT)}…` : text;
}

const COMPONENT_LABEL = { agent: "Agent", team: "Team", workflow: "Workflow" } as const;

/**
 * The span of one run of an agent, team or workflow, named as agno's instrumentation names it
 * (`{name}.run`, `Agent.run` for an unnamed agent). Attributes: GenAI's `gen_ai.*` for the agent,
 * and the keys agno's trace UI reads (openinference's span kind, `agno.*` ids, `session.id`,
 * `user.id`, `input.value`), from which the trace row takes its ids.
 */
export function startRunSpan(
  scope: TraceScope,
  ref: ComponentRef,
  run: { run_id: string; session_id?: string | null; user_id?: string | null; parent_run_id?: string | null },
  input: unknown,
): Span {
  const label = COMPONENT_LABEL[ref.type as keyof typeof COMPONENT_LABEL] ?? "Agent";
  const workflow = ref.type === "workflow";
  return scope.tracer.startSpan(`${ref.name ?? label}.run`, {
    parent: scope.parent,
    attributes: {
      "openinference.span.kind": workflow ? "CHAIN" : "AGENT",
      "gen_ai.operation.name": workflow ? "invoke_workflow" : "invoke_agent",
      "gen_ai.agent.id": workflow ? undefined : ref.id,
      "gen_ai.agent.name": workflow ? undefined : ref.name,
      [`agno.${ref.type}.id`]: ref.id,
      [`agno.${ref.type}.name`]: ref.name,
      "agno.run.id": run.run_id,
      "agno.run.parent_id": run.parent_run_id,
      "gen_ai.conversation.id": run.session_id,
      "session.id": run.session_id,
      "user.id": run.user_id,
      "input.value": tracedText(input),
    },
  });
}

/** Ends a run span with the run's outcome: its status, output, and ERROR when it failed. */
export function endRunSpan(
  span: Span,
  run: { status?: string; content?: unknown; error?: { message?: string } | null },
): void {
  span.set("agno.run.status", run.status);
  if (run.status === "ERROR") span.fail(run.error?.message ?? tracedText(run.content) ?? "run failed");
  else {
    span.set("output.value", tracedText(run.content));
    span.setStatus("OK");
  }
  span.end();
}
