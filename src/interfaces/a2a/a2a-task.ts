import type { RunRequirement } from "../../agent/run-output.js";
import type { StepRequirement } from "../../workflow/step-requirement.js";
import type { A2AOutMessage, A2APart, Artifact, Task, TaskState } from "./a2a-wire.js";

/*
 * Our stored runs as A2A tasks: taskId is the run id, contextId the session id, the state from the
 * run's status (a paused run is `input-required`, where agno says `working`), the input and the
 * answer as the history, the answer and the run's media as artifacts.
 */

const STATES: Record<string, TaskState> = {
  PENDING: "submitted",
  RUNNING: "working",
  COMPLETED: "completed",
  REGENERATED: "completed",
  PAUSED: "input-required",
  CANCELLED: "canceled",
  ERROR: "failed",
};

export function taskState(status: unknown): TaskState {
  return STATES[String(status)] ?? "unknown";
}

/** What any run (an agent's, a team's, a workflow's) holds that a task is made of. */
export interface RunLike {
  run_id: string;
  session_id: string;
  status: string;
  content?: unknown;
  input?: unknown;
  requirements?: RunRequirement[];
  step_requirements?: StepRequirement[];
  error?: { message: string };
  user_id?: string | null;
  created_at?: number;
  updated_at?: number;
  [field: string]: unknown;
}

/** A run's content as message parts: text as text, an object as data, anything else as JSON text. */
export function contentParts(content: unknown): A2APart[] {
  if (content === undefined || content === null || content === "") return [];
  if (typeof content === "string") return [{ kind: "text", text: content }];
  if (typeof content === "object" && !Array.isArray(content))
    return [{ kind: "data", data: content as Record<string, unknown> }];
  return [{ kind: "text", text: JSON.stringify(content) }];
}

/** The text a run was given (an agent's or team's `input.input_content`, a workflow's input as given). */
function inputText(input: unknown): string {
  if (typeof input === "string") return input;
  if (input && typeof input === "object" && "input_content" in input) {
    const content = (input as { input_content: unknown }).input_content;
    return typeof content === "string" ? content : JSON.stringify(content);
  }
  return input === undefined || input === null ? "" : JSON.stringify(input);
}

export function responseArtifact(runId: string, content: unknown): Artifact | null {
  const parts = contentParts(content);
  return parts.length > 0 ? { artifactId: `${runId}-response`, name: "response", parts } : null;
}

/** The run's output media (images, videos, audio, files) that have a URL, one artifact each. */
function mediaArtifacts(run: RunLike): Artifact[] {
  const out: Artifact[] = [];
  const kinds: Array<[string, string]> = [
    ["images", "image"],
    ["videos", "video"],
    ["audio", "audio"],
    ["files", "file"],
  ];
  for (const [field, kind] of kinds) {
    const list = run[field];
    if (!Array.isArray(list)) continue;
    list.forEach((item: { url?: unknown; mime_type?: unknown; filename?: unknown }, i) => {
      if (typeof item?.url !== "string") return;
      const mimeType = typeof item.mime_type === "string" ? item.mime_type : `${kind}/*`;
      out.push({
        artifactId: `${run.run_id}-${kind}-${i}`,
        name: typeof item.filename === "string" ? item.filename : `${kind}-${i}`,
        parts: [{ kind: "file", file: { uri: item.url, mimeType } }],
      });
    });
  }
  return out;
}

function describeArgs(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** One line saying what a paused agent's or team's requirement needs and how to answer it. */
function requirementLine(r: RunRequirement): string {
  const call = `${r.tool_execution.tool_name}(${describeArgs(r.tool_execution.tool_args)})`;
  if (r.kind === "confirmation") return `Confirm ${call}? Answer yes or no (a no may say why).`;
  if (r.kind === "external_execution") return `Run ${call} and answer with its result.`;
  const fields = (r.tool_execution.user_input_schema ?? []).filter((f) => f.value === null || f.value === undefined);
  const names = fields.map((f) => (f.description ? `${f.name} (${f.description})` : f.name)).join(", ");
  return `${call} needs ${names || "input"}: answer with a data part of those fields${fields.length === 1 ? ", or the value as text" : ""}.`;
}

/** The same for a paused workflow's step. */
function stepLine(r: StepRequirement): string {
  const step = r.step_name ?? r.step_id;
  if (r.requires_executor_input)
    return (r.executor_requirements ?? [])
      .filter((x) => !x.resolved)
      .map(requirementLine)
      .join("\n");
  if (r.requires_route_selection)
    return `Step ${step}: choose among ${(r.available_choices ?? []).join(", ")} (names as text, comma separated).`;
  if (r.requires_user_input)
    return `Step ${step}: ${r.user_input_message ?? "input needed"} (a data part of ${(r.user_input_schema ?? []).map((f) => f.name).join(", ") || "the fields"}).`;
  if (r.requires_output_review)
    return `Step ${step}: ${r.output_review_message ?? "review the output"} Answer yes to approve, or say what to change.`;
  return `Step ${step}: ${r.confirmation_message ?? "confirm to go on"} Answer yes or no.`;
}

/** The agent's message of a paused run: what it waits for, in words and as data. */
export function pausedMessage(run: RunLike): A2AOutMessage {
  const open = (run.requirements ?? []).filter((r) => !r.resolved);
  const step = run.status === "PAUSED" ? run.step_requirements?.at(-1) : undefined;
  const text = [...open.map(requirementLine), ...(step ? [stepLine(step)] : [])].join("\n") || "Input required.";
  const data = step ? { step_requirements: [step] } : { requirements: open };
  return {
    kind: "message",
    messageId: `${run.run_id}-input-required`,
    role: "agent",
    parts: [
      { kind: "text", text },
      { kind: "data", data },
    ],
    contextId: run.session_id,
    taskId: run.run_id,
  };
}

/** The agent's message of a run that ended: its answer, or why it failed or stopped. */
export function answerMessage(run: RunLike): A2AOutMessage | undefined {
  const parts =
    run.status === "ERROR"
      ? [{ kind: "text" as const, text: `Error: ${run.error?.message ?? "the run failed"}` }]
      : contentParts(run.content);
  if (parts.length === 0) return undefined;
  return {
    kind: "message",
    messageId: `${run.run_id}-answer`,
    role: "agent",
    parts,
    contextId: run.session_id,
    taskId: run.run_id,
  };
}

function statusMessage(run: RunLike): A2AOutMessage | undefined {
  if (run.status === "PAUSED") return pausedMessage(run);
  if (run.status === "COMPLETED" || run.status === "ERROR") return answerMessage(run);
  return undefined;
}

const iso = (seconds: number | undefined) => new Date((seconds ?? Date.now() / 1000) * 1000).toISOString();

/** A stored run as an A2A Task (`historyLength` keeps the last messages of the history). */
export function taskOf(run: RunLike, historyLength?: number): Task {
  const history: A2AOutMessage[] = [];
  const input = inputText(run.input);
  if (input)
    history.push({
      kind: "message",
      messageId: `${run.run_id}-input`,
      role: "user",
      parts: [{ kind: "text", text: input }],
      contextId: run.session_id,
      taskId: run.run_id,
    });
  const message = statusMessage(run);
  if (message) history.push(message);
  const artifacts = [
    ...(run.status === "COMPLETED" ? [responseArtifact(run.run_id, run.content)] : []),
    ...mediaArtifacts(run),
  ].filter((a): a is Artifact => a !== null);
  const shown = historyLength === undefined ? history : historyLength === 0 ? [] : history.slice(-historyLength);
  return {
    kind: "task",
    id: run.run_id,
    contextId: run.session_id,
    status: {
      state: taskState(run.status),
      ...(message ? { message } : {}),
      timestamp: iso(run.updated_at ?? run.created_at),
    },
    ...(shown.length > 0 ? { history: shown } : {}),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    metadata: { agno_run_status: run.status, ...(run.user_id ? { userId: run.user_id } : {}) },
  };
}
