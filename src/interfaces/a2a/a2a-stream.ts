import { publicError } from "../../public-error.js";
import { answerMessage, pausedMessage, responseArtifact, type RunLike } from "./a2a-task.js";
import type { A2AOutMessage, StreamResult, TaskState, TaskStatusUpdateEvent } from "./a2a-wire.js";

/** One frame of an A2A stream: agno's SSE event name, and the JSON-RPC result it carries. */
export interface A2AFrame {
  event: "Task" | "TaskStatusUpdateEvent" | "TaskArtifactUpdateEvent" | "Message";
  result: StreamResult;
}

type AnyEvent = { event: string; run_id?: string; session_id?: string; [field: string]: unknown };

/** An event's name without agno's `Team` prefix and with a workflow's names read as an agent's. */
function baseName(name: string): string {
  const bare = name.startsWith("Team") ? name.slice(4) : name;
  const workflow: Record<string, string> = {
    WorkflowStarted: "RunStarted",
    WorkflowCompleted: "RunCompleted",
    WorkflowCancelled: "RunCancelled",
    WorkflowError: "RunError",
    WorkflowPaused: "RunPaused",
    WorkflowContinued: "RunContinued",
  };
  return workflow[bare] ?? bare;
}

/** What the stream knows of the task so far; a failure's frame is built from it. */
export interface StreamState {
  taskId: string;
  contextId: string;
}

const status = (
  s: StreamState,
  state: TaskState,
  final: boolean,
  extra: { message?: A2AOutMessage; metadata?: Record<string, unknown> } = {},
): A2AFrame => ({
  event: "TaskStatusUpdateEvent",
  result: {
    kind: "status-update",
    taskId: s.taskId,
    contextId: s.contextId,
    status: { state, ...(extra.message ? { message: extra.message } : {}), timestamp: new Date().toISOString() },
    final,
    ...(extra.metadata ? { metadata: extra.metadata } : {}),
  } satisfies TaskStatusUpdateEvent,
});

/** The final frame of a stream whose run threw: `failed`, with the public form of the error. */
export function failedFrame(s: StreamState, error: unknown): A2AFrame {
  const shown = publicError(error, s.taskId ? `run ${s.taskId}` : "a2a stream");
  return status(s, "failed", true, {
    message: {
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "agent",
      parts: [{ kind: "text", text: `Error: ${shown.message}` }],
      contextId: s.contextId,
      taskId: s.taskId,
    },
    metadata: { error_id: shown.errorId },
  });
}

function toolMetadata(kind: string, e: AnyEvent): Record<string, unknown> {
  const tool = e.tool as { tool_name?: string; tool_call_id?: string; tool_args?: unknown } | undefined;
  return {
    agno_event_type: kind,
    ...(tool?.tool_name ? { tool_name: tool.tool_name } : {}),
    ...(tool?.tool_call_id ? { tool_call_id: tool.tool_call_id } : {}),
    ...(tool?.tool_args ? { tool_args: JSON.stringify(tool.tool_args) } : {}),
  };
}

/**
 * A run's events as A2A stream results: the Task first (the user's message as its history), a
 * `working` status, the answer as `artifact-update` chunks (appended), tool calls and workflow
 * steps as `working` statuses with agno's `agno_event_type` metadata, and last a final status:
 * `completed` (after the whole answer as one artifact that replaces the chunks), `input-required`
 * (the requirements in its message), `canceled` or `failed`. Events of member or step runs inform
 * but do not end the task: only the task's own run does.
 */
export async function* a2aStream(
  events: AsyncIterable<AnyEvent>,
  state: StreamState,
  userMessage: A2AOutMessage,
): AsyncGenerator<A2AFrame> {
  let started = false;
  let chunks = 0;
  for await (const e of events) {
    if (!started) {
      if (!e.run_id) continue;
      state.taskId = e.run_id;
      state.contextId = e.session_id ?? state.contextId;
      started = true;
      yield {
        event: "Task",
        result: {
          kind: "task",
          id: state.taskId,
          contextId: state.contextId,
          status: { state: "working", timestamp: new Date().toISOString() },
          history: [{ ...userMessage, taskId: state.taskId, contextId: state.contextId }],
        },
      };
      yield status(state, "working", false);
    }
    const own = e.run_id === state.taskId;
    const name = baseName(e.event);
    switch (name) {
      case "RunContent": {
        const text = typeof e.content === "string" ? e.content : "";
        if (!own || !text) break;
        yield {
          event: "TaskArtifactUpdateEvent",
          result: {
            kind: "artifact-update",
            taskId: state.taskId,
            contextId: state.contextId,
            artifact: { artifactId: `${state.taskId}-response`, name: "response", parts: [{ kind: "text", text }] },
            append: chunks++ > 0,
            lastChunk: false,
          },
        };
        break;
      }
      case "ToolCallStarted":
        yield status(state, "working", false, { metadata: toolMetadata("tool_call_started", e) });
        break;
      case "ToolCallCompleted":
        yield status(state, "working", false, { metadata: toolMetadata("tool_call_completed", e) });
        break;
      case "StepStarted":
      case "StepCompleted":
        yield status(state, "working", false, {
          metadata: {
            agno_event_type: name === "StepStarted" ? "step_started" : "step_completed",
            ...(typeof e.step_name === "string" ? { step_name: e.step_name } : {}),
          },
        });
        break;
      case "RunCompleted": {
        if (!own) break;
        const run = { run_id: state.taskId, session_id: state.contextId, status: "COMPLETED", content: e.content };
        const artifact = responseArtifact(state.taskId, e.content);
        if (artifact)
          yield {
            event: "TaskArtifactUpdateEvent",
            result: {
              kind: "artifact-update",
              taskId: state.taskId,
              contextId: state.contextId,
              artifact,
              append: false,
              lastChunk: true,
            },
          };
        const metrics = e.metrics ? { metrics: e.metrics } : undefined;
        yield status(state, "completed", true, {
          message: answerMessage(run),
          ...(metrics ? { metadata: metrics } : {}),
        });
        return;
      }
      case "RunPaused": {
        if (!own) break;
        const run: RunLike = {
          run_id: state.taskId,
          session_id: state.contextId,
          status: "PAUSED",
          requirements: e.requirements as RunLike["requirements"],
          step_requirements: e.step_requirements as RunLike["step_requirements"],
        };
        yield status(state, "input-required", true, {
          message: pausedMessage(run),
          metadata: { agno_event_type: "run_paused" },
        });
        return;
      }
      case "RunCancelled":
        if (!own) break;
        yield status(state, "canceled", true, {
          metadata: { agno_event_type: "run_cancelled", ...(typeof e.reason === "string" ? { reason: e.reason } : {}) },
        });
        return;
      case "RunError": {
        if (!own) break;
        const text = typeof e.content === "string" ? e.content : typeof e.error === "string" ? e.error : "run failed";
        yield status(state, "failed", true, {
          message: {
            kind: "message",
            messageId: crypto.randomUUID(),
            role: "agent",
            parts: [{ kind: "text", text: `Error: ${text}` }],
            contextId: state.contextId,
            taskId: state.taskId,
          },
          ...(typeof e.error_id === "string" ? { metadata: { error_id: e.error_id } } : {}),
        });
        return;
      }
      default:
        break;
    }
  }
}
