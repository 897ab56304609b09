import type { SseFrame } from "./sse.js";

/** A tool call as the page shows it. */
export interface ToolView {
  id: string;
  name: string;
  args: unknown;
  result?: string | null;
  error?: string;
  done: boolean;
}

/** A run inside the one being watched: a team member's, or the agent of a workflow step. */
export interface MemberView {
  runId: string;
  name: string;
  content: string;
  tools: ToolView[];
  done: boolean;
}

export interface StepView {
  name: string;
  status: "running" | "done" | "error";
  error?: string;
}

/** An input field a paused run asks for (agno's UserInputField). */
export interface InputField {
  name: string;
  field_type: string;
  description?: string | null;
  value?: unknown;
}

/**
 * What a paused run waits for, whatever paused it: a tool of the agent or team (`run`), a
 * workflow step's review (`step`), or a tool of a workflow step's agent (`executor`).
 */
export interface PendingView {
  key: string;
  source: "run" | "step" | "executor";
  /** the requirement's id (run, executor) or the step's id (step, executor) */
  id: string;
  stepId?: string;
  title: string;
  message?: string;
  args?: unknown;
  confirm: boolean;
  fields: InputField[];
}

export type RunStatus = "running" | "reconnecting" | "dropped" | "paused" | "completed" | "error" | "cancelled";

export interface RunView {
  runId?: string;
  sessionId?: string;
  content: string;
  tools: ToolView[];
  members: MemberView[];
  steps: StepView[];
  status: RunStatus;
  error?: string;
  /** the position of the last event seen: where `/resume` picks up */
  lastEventIndex: number;
  pending: PendingView[];
}

export const newRun = (): RunView => ({
  content: "",
  tools: [],
  members: [],
  steps: [],
  status: "running",
  lastEventIndex: -1,
  pending: [],
});

/** A run stops streaming on these: anything else after the stream ends means the connection dropped. */
export const settled = (status: RunStatus) =>
  status === "paused" || status === "completed" || status === "error" || status === "cancelled";

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const text = (v: unknown): string => (typeof v === "string" ? v : v == null ? "" : JSON.stringify(v, null, 2));

interface ToolExecution {
  tool_call_id?: string;
  tool_name?: string;
  tool_args?: unknown;
  result?: string | null;
}

interface RunRequirement {
  id: string;
  resolved?: boolean;
  kind?: string;
  tool_execution?: ToolExecution & { user_input_schema?: InputField[] };
}

interface StepRequirement {
  step_id: string;
  step_name?: string | null;
  confirmed?: boolean | null;
  requires_confirmation?: boolean;
  confirmation_message?: string | null;
  requires_user_input?: boolean;
  user_input_message?: string | null;
  user_input_schema?: InputField[] | null;
  user_input?: Record<string, unknown> | null;
  requires_executor_input?: boolean;
  executor_requirements?: RunRequirement[];
}

function pendingOfRun(r: RunRequirement, source: "run" | "executor", stepId?: string): PendingView {
  const tool = r.tool_execution ?? {};
  const input = r.kind === "user_input";
  return {
    key: `${stepId ?? ""}/${r.id}`,
    source,
    id: r.id,
    ...(stepId !== undefined && { stepId }),
    title: tool.tool_name ?? "tool",
    args: tool.tool_args,
    message: input ? `${tool.tool_name ?? "A tool"} needs your input` : `Run ${tool.tool_name ?? "a tool"}?`,
    confirm: !input,
    fields: input ? (tool.user_input_schema ?? []) : [],
  };
}

function pendingOfStep(r: StepRequirement): PendingView[] {
  if (r.requires_executor_input)
    return (r.executor_requirements ?? [])
      .filter((e) => !e.resolved)
      .map((e) => pendingOfRun(e, "executor", r.step_id));
  return [
    {
      key: r.step_id,
      source: "step",
      id: r.step_id,
      stepId: r.step_id,
      title: r.step_name ?? "step",
      message: r.confirmation_message ?? r.user_input_message ?? `Continue with ${r.step_name ?? "the next step"}?`,
      confirm: r.requires_confirmation === true || !r.requires_user_input,
      fields: r.requires_user_input ? (r.user_input_schema ?? []) : [],
    },
  ];
}

/** A team leader's events are the agent's under agno's `Team` prefix. */
const LEADER = /^Team(Run|ToolCall|ModelRequest)/;

/** The run after one more event (mutated in place and returned, so a caller re-renders with a copy). */
export function applyEvent(run: RunView, frame: SseFrame): RunView {
  if (frame.id !== undefined) run.lastEventIndex = frame.id;
  const d = frame.data;
  const name = LEADER.test(frame.event) ? frame.event.slice(4) : frame.event;
  const runId = str(d.run_id);
  if (run.runId === undefined && runId !== undefined) run.runId = runId;
  if (run.sessionId === undefined && str(d.session_id)) run.sessionId = str(d.session_id);
  const own = runId === undefined || runId === run.runId;
  const member = own ? undefined : memberOf(run, runId!, d);
  const tools = member ? member.tools : run.tools;
  switch (name) {
    case "RunContent":
      if (member) member.content += str(d.content) ?? "";
      else run.content += str(d.content) ?? "";
      break;
    case "ToolCallStarted": {
      const tool = (d.tool ?? {}) as ToolExecution;
      const id = tool.tool_call_id ?? `${tools.length}`;
      if (!tools.some((t) => t.id === id))
        tools.push({ id, name: tool.tool_name ?? "tool", args: tool.tool_args, done: false });
      break;
    }
    case "ToolCallCompleted":
    case "ToolCallError": {
      const tool = (d.tool ?? {}) as ToolExecution;
      const id = tool.tool_call_id ?? "";
      let view = tools.find((t) => t.id === id);
      if (!view) tools.push((view = { id, name: tool.tool_name ?? "tool", args: tool.tool_args, done: false }));
      view.done = true;
      view.result = tool.result ?? str(d.content) ?? null;
      if (name === "ToolCallError") view.error = str(d.error) ?? "failed";
      break;
    }
    case "RunCompleted":
      if (member) {
        member.done = true;
        if (typeof d.content === "string") member.content = d.content;
      } else {
        run.status = "completed";
        if (d.content != null) run.content = text(d.content);
      }
      break;
    case "RunPaused":
      if (!member) {
        run.status = "paused";
        run.pending = ((d.requirements ?? []) as RunRequirement[])
          .filter((r) => !r.resolved)
          .map((r) => pendingOfRun(r, "run"));
      }
      break;
    case "RunContinued":
    case "WorkflowContinued":
    case "StepContinued":
    case "StepExecutorContinued":
      if (!member) run.status = "running";
      break;
    case "RunError":
      if (member) member.done = true;
      else {
        run.status = "error";
        run.error = str(d.content) ?? str(d.error) ?? "the run failed";
      }
      break;
    case "RunCancelled":
      if (member) member.done = true;
      else {
        run.status = "cancelled";
        run.error = str(d.reason);
      }
      break;
    case "StepStarted":
      run.steps.push({ name: str(d.step_name) ?? `step ${run.steps.length + 1}`, status: "running" });
      break;
    case "StepCompleted":
    case "StepError": {
      const stepName = str(d.step_name);
      const step = [...run.steps].reverse().find((s) => s.status === "running" && (!stepName || s.name === stepName));
      if (step) {
        step.status = name === "StepError" ? "error" : "done";
        if (name === "StepError") step.error = str(d.error);
      }
      break;
    }
    case "WorkflowCompleted":
      run.status = "completed";
      if (d.content != null) run.content = text(d.content);
      break;
    case "WorkflowPaused":
      run.status = "paused";
      run.pending = ((d.step_requirements ?? []) as StepRequirement[])
        .filter((r) => r.confirmed == null || r.requires_executor_input)
        .flatMap(pendingOfStep);
      break;
    case "WorkflowError":
      run.status = "error";
      run.error = str(d.error) ?? "the workflow failed";
      break;
    case "WorkflowCancelled":
      run.status = "cancelled";
      run.error = str(d.reason);
      break;
  }
  return run;
}

function memberOf(run: RunView, runId: string, d: Record<string, unknown>): MemberView {
  let member = run.members.find((m) => m.runId === runId);
  if (!member) {
    const name = str(d.agent_name) ?? str(d.agent_id) ?? str(d.team_name) ?? str(d.team_id) ?? "member";
    run.members.push((member = { runId, name, content: "", tools: [], done: false }));
  }
  return member;
}
