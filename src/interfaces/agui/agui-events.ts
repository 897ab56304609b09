import type { RunEvent } from "../../agent/events.js";
import type { RunOutput, ToolExecution } from "../../agent/run-output.js";
import { jsonPatch } from "./json-patch.js";

/** One AG-UI event: its `type` (AG-UI's EventType names) and its camelCase fields. */
export interface AguiEvent {
  type: string;
  [field: string]: unknown;
}

/** A tool's result as JSON text the frontend can parse (agno's to_json_str): JSON passes, other text is quoted. */
export function toJsonText(value: string | null | undefined): string {
  if (value === null || value === undefined) return "null";
  try {
    JSON.parse(value);
    return value;
  } catch {
    return JSON.stringify(value);
  }
}

/** An event's name without agno's `Team` prefix: a leader's events map as an agent's do. */
function plain(event: { event: string }): string {
  return event.event.startsWith("Team") ? event.event.slice(4) : event.event;
}

/**
 * Turns one run's events into AG-UI's (agno's StreamState and handlers): text in messages
 * opened and closed around tool calls, tool calls with their arguments and results, the tools
 * the run waits on when it pauses, and the final state. A team's members' runs are shown as
 * steps, their text staying inside the member's run. With the frontend's state, each finished tool
 * call that changed the run's session state is followed by a STATE_DELTA (agno's
 * _emit_state_delta): the JSON Patch from the state last sent to the run's state now.
 */
export class AguiTranslator {
  private textId = "";
  private textOpen = false;
  private toolParent = "";
  private readonly openTools = new Set<string>();
  private readonly endedTools = new Set<string>();
  private readonly steps = new Map<string, string>();
  /** the reasoning message being streamed, if one is open */
  private reasoningId: string | undefined;
  /** the run's end as its events said it (completed, paused, failed or cancelled) */
  private end: RunEvent | undefined;
  /** the state as the frontend last saw it (the first snapshot, then each delta applied) */
  private sent: unknown;

  /**
   * `state`: what the frontend sent (no state events without it); `liveState`: the run's session
   * state as it is now (RunOptions.onSessionState), read when a tool call ends.
   */
  constructor(
    private readonly ids: { threadId: string; runId: string },
    private readonly state: Record<string, unknown> | undefined,
    private readonly liveState: () => Record<string, unknown> | undefined = () => undefined,
  ) {
    this.sent = state;
  }

  /** RUN_STARTED, then the state the frontend sent, as agno opens its stream. */
  start(): AguiEvent[] {
    const out: AguiEvent[] = [{ type: "RUN_STARTED", threadId: this.ids.threadId, runId: this.ids.runId }];
    if (this.state !== undefined) out.push({ type: "STATE_SNAPSHOT", snapshot: this.state });
    return out;
  }

  event(event: RunEvent): AguiEvent[] {
    if (event.parent_run_id !== undefined) return this.memberEvent(event);
    switch (plain(event)) {
      case "RunContent":
        return this.content(event as Extract<RunEvent, { event: "RunContent" }>);
      case "ToolCallStarted":
        return this.toolStarted((event as { tool: ToolExecution }).tool);
      case "ToolCallCompleted":
      case "ToolCallError":
        return this.toolCompleted((event as { tool: ToolExecution }).tool);
      case "RunCompleted":
      case "RunPaused":
      case "RunError":
      case "RunCancelled":
        this.end = event;
        return [];
      default:
        return [];
    }
  }

  /** What closes the stream: open messages and calls closed, the paused tools, the final state, then RUN_FINISHED or RUN_ERROR. */
  finish(output: RunOutput | undefined): AguiEvent[] {
    const out = this.closeOpen();
    const end = this.end;
    const kind = end ? plain(end) : "RunCompleted";
    if (kind === "RunError" || kind === "RunCancelled") {
      const message =
        kind === "RunError" ? String((end as { content?: unknown }).content ?? "run failed") : "the run was cancelled";
      out.push({ type: "RUN_ERROR", message, ...(kind === "RunCancelled" ? { code: "cancelled" } : {}) });
      return out;
    }
    if (kind === "RunPaused") out.push(...this.pausedTools(end as Extract<RunEvent, { event: "RunPaused" }>));
    if (this.state !== undefined)
      out.push({ type: "STATE_SNAPSHOT", snapshot: output?.session_state ?? this.liveState() ?? this.state });
    out.push({ type: "RUN_FINISHED", threadId: this.ids.threadId, runId: this.ids.runId });
    return out;
  }

  /** A RUN_ERROR for a failure the run's events did not report. */
  error(message: string, code?: string): AguiEvent[] {
    return [...this.closeOpen(), { type: "RUN_ERROR", message, ...(code ? { code } : {}) }];
  }

  private content(event: Extract<RunEvent, { event: "RunContent" }>): AguiEvent[] {
    const out: AguiEvent[] = [];
    if (event.reasoning_content) out.push(...this.reasoning(event.reasoning_content));
    if (!event.content) return out;
    out.push(...this.closeReasoning());
    if (!this.textOpen) {
      this.textId = crypto.randomUUID();
      this.textOpen = true;
      this.toolParent = "";
      out.push({ type: "TEXT_MESSAGE_START", messageId: this.textId, role: "assistant" });
    }
    out.push({ type: "TEXT_MESSAGE_CONTENT", messageId: this.textId, delta: event.content });
    return out;
  }

  /** The model's reasoning as AG-UI's reasoning message, opened on its first fragment. */
  private reasoning(delta: string): AguiEvent[] {
    const out = this.closeText();
    if (this.reasoningId === undefined) {
      this.reasoningId = crypto.randomUUID();
      out.push(
        { type: "REASONING_START", messageId: this.reasoningId },
        { type: "REASONING_MESSAGE_START", messageId: this.reasoningId, role: "reasoning" },
      );
    }
    out.push({ type: "REASONING_MESSAGE_CONTENT", messageId: this.reasoningId, delta });
    return out;
  }

  private closeReasoning(): AguiEvent[] {
    const id = this.reasoningId;
    if (id === undefined) return [];
    this.reasoningId = undefined;
    return [
      { type: "REASONING_MESSAGE_END", messageId: id },
      { type: "REASONING_END", messageId: id },
    ];
  }

  private toolStarted(tool: ToolExecution): AguiEvent[] {
    const out = [...this.closeReasoning(), ...this.closeText()];
    // AG-UI hangs a tool call on an assistant message: an empty one when the model wrote nothing first.
    if (!this.toolParent) {
      this.toolParent = crypto.randomUUID();
      out.push(
        { type: "TEXT_MESSAGE_START", messageId: this.toolParent, role: "assistant" },
        { type: "TEXT_MESSAGE_END", messageId: this.toolParent },
      );
    }
    out.push(...this.toolCall(tool, this.toolParent, false));
    this.openTools.add(tool.tool_call_id);
    return out;
  }

  private toolCompleted(tool: ToolExecution): AguiEvent[] {
    if (this.endedTools.has(tool.tool_call_id)) return [];
    const out: AguiEvent[] = [];
    if (!this.openTools.has(tool.tool_call_id)) out.push(...this.toolStarted(tool));
    out.push({ type: "TOOL_CALL_END", toolCallId: tool.tool_call_id });
    this.openTools.delete(tool.tool_call_id);
    this.endedTools.add(tool.tool_call_id);
    if (tool.result !== undefined && tool.result !== null)
      out.push({
        type: "TOOL_CALL_RESULT",
        messageId: tool.tool_call_id,
        toolCallId: tool.tool_call_id,
        content: toJsonText(tool.result),
        role: "tool",
      });
    out.push(...this.stateDelta());
    return out;
  }

  /** A STATE_DELTA when the run's state is not what the frontend last saw, which it then is. */
  private stateDelta(): AguiEvent[] {
    const now = this.state !== undefined ? this.liveState() : undefined;
    if (now === undefined) return [];
    const delta = jsonPatch(this.sent, now);
    if (delta.length === 0) return [];
    this.sent = JSON.parse(JSON.stringify(now)) as unknown;
    return [{ type: "STATE_DELTA", delta }];
  }

  /** The calls the run waits on, on an assistant message of their own, for the frontend to run or answer. */
  private pausedTools(paused: Extract<RunEvent, { event: "RunPaused" }>): AguiEvent[] {
    const waiting = paused.requirements.filter((r) => !r.resolved).map((r) => r.tool_execution);
    const tools = waiting.length > 0 ? waiting : paused.tools;
    if (tools.length === 0) return [];
    const parent = crypto.randomUUID();
    const out: AguiEvent[] = [
      { type: "TEXT_MESSAGE_START", messageId: parent, role: "assistant" },
      { type: "TEXT_MESSAGE_END", messageId: parent },
    ];
    for (const tool of tools) if (tool.tool_call_id && tool.tool_name) out.push(...this.toolCall(tool, parent, true));
    return out;
  }

  private toolCall(tool: ToolExecution, parent: string, ended: boolean): AguiEvent[] {
    return [
      { type: "TOOL_CALL_START", toolCallId: tool.tool_call_id, toolCallName: tool.tool_name, parentMessageId: parent },
      { type: "TOOL_CALL_ARGS", toolCallId: tool.tool_call_id, delta: JSON.stringify(tool.tool_args ?? {}) },
      ...(ended ? [{ type: "TOOL_CALL_END", toolCallId: tool.tool_call_id }] : []),
    ];
  }

  /** A member's run as a step: started with its name, finished when it ends. */
  private memberEvent(event: RunEvent): AguiEvent[] {
    const name = plain(event);
    if (name === "RunStarted" || name === "RunContinued") {
      if (this.steps.has(event.run_id)) return [];
      const stepName = String(event.agent_name ?? event.agent_id ?? event.team_name ?? event.team_id ?? "member");
      this.steps.set(event.run_id, stepName);
      return [...this.closeReasoning(), ...this.closeText(), { type: "STEP_STARTED", stepName }];
    }
    if (["RunCompleted", "RunPaused", "RunError", "RunCancelled"].includes(name)) {
      const stepName = this.steps.get(event.run_id);
      if (stepName === undefined) return [];
      this.steps.delete(event.run_id);
      return [{ type: "STEP_FINISHED", stepName }];
    }
    return [];
  }

  private closeText(): AguiEvent[] {
    if (!this.textOpen) return [];
    this.textOpen = false;
    this.toolParent = this.textId;
    return [{ type: "TEXT_MESSAGE_END", messageId: this.textId }];
  }

  private closeOpen(): AguiEvent[] {
    const out: AguiEvent[] = this.closeReasoning();
    for (const [runId, stepName] of this.steps) {
      out.push({ type: "STEP_FINISHED", stepName });
      this.steps.delete(runId);
    }
    for (const id of this.openTools) {
      out.push({ type: "TOOL_CALL_END", toolCallId: id });
      this.endedTools.add(id);
    }
    this.openTools.clear();
    out.push(...this.closeText());
    return out;
  }
}
