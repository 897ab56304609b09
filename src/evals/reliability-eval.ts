import type { RunOutput, ToolExecution } from "../agent/run-output.js";
import type { Message } from "../models/message.js";
import { EvalError } from "./eval-error.js";
import type { EvalRun } from "./accuracy-eval.js";
import type { EvalCommonOptions } from "./eval-target.js";

/** Which expected tool calls were made, cleanly and with the expected arguments (agno's ReliabilityResult). */
export interface ReliabilityResult {
  eval_status: "PASSED" | "FAILED";
  /** calls of tools not expected (unless they are allowed) */
  failed_tool_calls: string[];
  /** clean calls of expected tools, one entry per call */
  passed_tool_calls: string[];
  /** calls of tools not expected, when `allowAdditionalToolCalls` */
  additional_tool_calls: string[];
  /** expected tools with no clean call, annotated when a call was attempted but refused or failed */
  missing_tool_calls: string[];
  failed_argument_checks: string[];
  passed_argument_checks: string[];
}

export interface ReliabilityEvalOptions extends EvalCommonOptions {
  /** the run checked: an agent's or a team's (a team's members' calls count, at every depth) */
  output: RunOutput;
  /** the names of the tools the run should have called */
  expectedToolCalls: string[];
  /** true: calls of other tools are allowed (listed as additional), not failures */
  allowAdditionalToolCalls?: boolean;
  /** per tool, the arguments one of its clean calls must have had (each of several specs matched by some call) */
  expectedToolCallArguments?: Record<string, Record<string, unknown> | Array<Record<string, unknown>>>;
}

/** A call that has not run: it waits on a confirmation, an answer or an external result. */
function paused(t: ToolExecution): boolean {
  const pending = t.result === undefined || t.result === null;
  return (
    pending &&
    ((t.requires_confirmation === true && t.confirmed == null) ||
      (t.requires_user_input === true && t.answered !== true) ||
      t.external_execution_required === true)
  );
}

/** A run's tool calls and messages, and those of its member runs at every depth (a team delegates). */
function evidence(output: RunOutput, executions: ToolExecution[], messages: Message[]): void {
  executions.push(...(output.tools ?? []));
  messages.push(...(output.messages ?? []));
  for (const member of output.member_responses ?? []) evidence(member, executions, messages);
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * agno's ReliabilityEval over a finished run: an expected tool counts only when it was executed
 * cleanly (not failed, not waiting), a call of a tool not expected fails the eval unless allowed,
 * a request the run never executed (refused) shows why an expected tool is missing, and argument
 * checks read the clean calls' arguments. Messages carried from history do not count.
 */
export function checkReliability(o: Omit<ReliabilityEvalOptions, keyof EvalCommonOptions>): ReliabilityResult {
  const executions: ToolExecution[] = [];
  const messages: Message[] = [];
  evidence(o.output, executions, messages);
  const expected = o.expectedToolCalls;
  const requested = new Set<string>();
  for (const m of messages) {
    if (m.from_history) continue;
    for (const call of m.tool_calls ?? []) if (call.function?.name) requested.add(call.function.name);
  }
  const r: Omit<ReliabilityResult, "eval_status"> = {
    failed_tool_calls: [],
    passed_tool_calls: [],
    additional_tool_calls: [],
    missing_tool_calls: [],
    failed_argument_checks: [],
    passed_argument_checks: [],
  };
  const clean = executions.filter((t) => t.tool_name && !t.tool_call_error && !paused(t));
  const cleanNames = new Set(clean.map((t) => t.tool_name));
  const executed = new Set(executions.map((t) => t.tool_name).filter(Boolean));
  const attempted = new Set([...executed, ...requested]);
  for (const t of executions) {
    if (!t.tool_name) continue;
    if (!expected.includes(t.tool_name))
      (o.allowAdditionalToolCalls ? r.additional_tool_calls : r.failed_tool_calls).push(t.tool_name);
    else if (!t.tool_call_error && !paused(t)) r.passed_tool_calls.push(t.tool_name);
  }
  for (const name of [...requested].filter((n) => !executed.has(n)).sort()) {
    if (expected.includes(name)) continue;
    (o.allowAdditionalToolCalls ? r.additional_tool_calls : r.failed_tool_calls).push(name);
  }
  const missing = new Set<string>();
  for (const name of expected) {
    if (cleanNames.has(name)) continue;
    missing.add(name);
    r.missing_tool_calls.push(attempted.has(name) ? `${name} (requested but refused or failed)` : name);
  }
  for (const [name, raw] of Object.entries(o.expectedToolCallArguments ?? {})) {
    if (missing.has(name)) continue;
    const specs = Array.isArray(raw) ? raw : [raw];
    const actual = clean.filter((t) => t.tool_name === name).map((t) => t.tool_args ?? {});
    const matched =
      actual.length > 0 &&
      specs.every((spec) =>
        actual.some((args) => Object.entries(spec).every(([k, v]) => k in args && sameValue(args[k], v))),
      );
    (matched ? r.passed_argument_checks : r.failed_argument_checks).push(name);
  }
  const passed =
    r.failed_tool_calls.length === 0 && r.missing_tool_calls.length === 0 && r.failed_argument_checks.length === 0;
  return { eval_status: passed ? "PASSED" : "FAILED", ...r };
}

/**
 * agno's ReliabilityEval: whether a run made the expected tool calls. Each `run()` is a run of its
 * own (its own id and, given a db, its own row).
 *
 * @example
 * const output = await agent.run("What is 10 * 5?");
 * const { result } = await new ReliabilityEval({ output, expectedToolCalls: ["multiply"] }).run();
 */
export class ReliabilityEval {
  constructor(readonly options: ReliabilityEvalOptions) {
    if (!Array.isArray(options.expectedToolCalls))
      throw new EvalError("expectedToolCalls must be a list of tool names");
  }

  async run(): Promise<EvalRun<ReliabilityResult>> {
    const o = this.options;
    const runId = o.runId ?? crypto.randomUUID();
    const result = checkReliability(o);
    const out = o.output;
    const record = o.db
      ? await o.db.evals.create({
          run_id: runId,
          eval_type: "reliability",
          eval_data: { ...result },
          eval_input: {
            expected_tool_calls: o.expectedToolCalls,
            allow_additional_tool_calls: o.allowAdditionalToolCalls ?? false,
            expected_tool_call_arguments: o.expectedToolCallArguments ?? null,
          },
          name: o.name ?? null,
          user_id: o.userId ?? null,
          agent_id: out.team_id ? null : (out.agent_id ?? null),
          team_id: out.team_id ?? null,
          model_id: out.model ?? null,
          model_provider: out.model_provider ?? null,
          evaluated_component_name: (out.team_id ? out.team_name : out.agent_name) ?? null,
        })
      : null;
    return { runId, result, record, failures: [] };
  }
}
