import type { Session } from "../db/session.js";
import { agnoDatetimeOf } from "./wire/agno-object.js";
import type { MessageRecord, RunRecord, SessionRecord, SessionType } from "../db/types.js";

/**
 * Sessions and runs as agno's AgentOS answers them (`SessionSchema`, the session detail schemas,
 * `RunSchema` and its siblings in agno's `os/schema.py`), with every derived field derived as
 * agno's `os/utils.py` derives it: the run's input as text, the session's name from its first
 * user message, the input media.
 */

type Dict = Record<string, unknown>;

const isDict = (value: unknown): value is Dict => typeof value === "object" && value !== null && !Array.isArray(value);

/** Python's `d.get(key, default)`: a key that is present, even with null, wins over the default. */
function get(d: Dict, key: string, fallback: unknown = null): unknown {
  return Object.prototype.hasOwnProperty.call(d, key) ? d[key] : fallback;
}

/** What `response_model_exclude_none` leaves of a model: its fields that are not None. */
export function withoutNone<T extends Dict>(model: T): Partial<T> {
  return Object.fromEntries(Object.entries(model).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

/**
 * An epoch time (seconds) as pydantic writes a UTC datetime: `2025-09-05T16:02:09Z`, with
 * microseconds only when the time has a fraction.
 */
export function agnoTime(epochSeconds: unknown): string | null {
  if (typeof epochSeconds !== "number" || !Number.isFinite(epochSeconds)) return null;
  return agnoDatetimeOf(epochSeconds * 1000);
}

/** Python's `json.dumps(value, indent=2)`: JSON with two-space indents, non-ASCII escaped. */
function pythonJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** agno's `stringify_input_content`: a run's input (text, an object, a list of messages) as text. */
export function stringifyInput(input: unknown): string {
  if (typeof input === "string") return input;
  if (Array.isArray(input)) {
    const first: unknown = input[0];
    if (isDict(first) && first.role === "user") return textOf(get(first, "content", JSON.stringify(input)));
    return JSON.stringify(input);
  }
  if (isDict(input)) return pythonJson(input);
  return String(input);
}

/** A message's content as text: agno's schema holds a string, so other content is its JSON. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}

/** agno's `get_run_input`: the stored input, else (workflows) the first step's, else the last user message. */
export function runInput(run: Dict, isWorkflowRun = false): string {
  const input = run.input;
  if (!isWorkflowRun && isDict(input) && input.input_content !== null && input.input_content !== undefined)
    return stringifyInput(input.input_content);
  if (isWorkflowRun) {
    if (input !== null && input !== undefined) return stringifyInput(input);
    const steps = run.step_executor_runs;
    if (Array.isArray(steps) && isDict(steps[0]) && Array.isArray(steps[0].messages)) {
      const user = [...(steps[0].messages as unknown[])].reverse().find((m) => isDict(m) && m.role === "user");
      if (isDict(user)) return textOf(get(user, "content", ""));
    }
  }
  if (Array.isArray(run.messages)) {
    const user = [...(run.messages as unknown[])].reverse().find((m) => isDict(m) && m.role === "user");
    if (isDict(user)) return textOf(get(user, "content", ""));
  }
  return "";
}

/**
 * agno's `get_session_name`: the stored `session_name` (even an empty one), else a name derived
 * from the runs: a workflow's first input (or "New <name> Session"), else the first user message
 * of the session's own runs (a team's, not its members'), else the first run's input.
 */
export function sessionName(record: SessionRecord, runs: RunRecord[]): string {
  const stored = record.session_data?.session_name;
  if (stored !== null && stored !== undefined) return textOf(stored);
  if (record.session_type === "workflow") {
    const first = runs[0];
    if (!first) return "";
    if (typeof first.input === "string") return first.input;
    if (isDict(first.input)) return JSON.stringify(first.input);
    const name = record.workflow_data?.name;
    return typeof name === "string" && name ? `New ${name} Session` : "";
  }
  const own = record.session_type === "team" ? runs.filter((r) => !r.agent_id) : runs;
  for (const run of own) {
    for (const message of run.messages ?? []) {
      if (isDict(message) && message.role === "user" && message.content) return textOf(message.content);
    }
    if (run.input !== null && run.input !== undefined) return stringifyInput(run.input);
  }
  return "";
}

/** agno's `extract_input_media`: the input's images, videos, audios and files, each a list. */
export function inputMedia(run: Dict): Record<"images" | "videos" | "audios" | "files", unknown[]> {
  const input = isDict(run.input) ? run.input : {};
  const list = (key: string) => (Array.isArray(input[key]) ? (input[key] as unknown[]) : []);
  return { images: list("images"), videos: list("videos"), audios: list("audios"), files: list("files") };
}

/** Content as agno's schema holds it (text or an object); any other JSON value as its text. */
function contentOf(value: unknown): string | Dict | null {
  if (value === null || value === undefined || typeof value === "string" || isDict(value)) return value ?? null;
  return JSON.stringify(value);
}

const listOrNull = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value : null);

/** The fields agent and team runs share, as agno's `RunSchema.from_dict` / `TeamRunSchema.from_dict` fill them. */
function runFields(run: Dict) {
  return {
    status: get(run, "status"),
    run_input: runInput(run),
    content: contentOf(get(run, "content", "")),
    run_response_format: get(run, "content_type", "str") === "str" ? "text" : "json",
    reasoning_content: get(run, "reasoning_content", ""),
    reasoning_steps: get(run, "reasoning_steps", []),
    metrics: get(run, "metrics", {}),
    messages: listOrNull(run.messages),
    tools: listOrNull(run.tools),
    events: listOrNull(run.events),
    created_at: agnoTime(run.created_at),
    references: get(run, "references", []),
    citations: get(run, "citations"),
    reasoning_messages: get(run, "reasoning_messages", []),
    session_state: get(run, "session_state"),
    images: get(run, "images", []),
    videos: get(run, "videos", []),
    audio: get(run, "audio", []),
    files: get(run, "files", []),
    response_audio: get(run, "response_audio"),
    input_media: inputMedia(run),
    followups: get(run, "followups"),
    forked_from_run_id: get(run, "forked_from_run_id"),
    forked_from_message_index: get(run, "forked_from_message_index"),
    forked_from_session_id: get(run, "forked_from_session_id"),
    regenerated_from: get(run, "regenerated_from"),
    last_checkpoint_at_message_index: get(run, "last_checkpoint_at_message_index"),
  };
}

/** agno's `RunSchema.from_dict`: an agent run. */
export function agentRunView(run: Dict) {
  return {
    run_id: get(run, "run_id", ""),
    parent_run_id: get(run, "parent_run_id", ""),
    agent_id: get(run, "agent_id", ""),
    user_id: get(run, "user_id", ""),
    ...runFields(run),
  };
}

/** agno's `TeamRunSchema.from_dict`: a team's own run. */
export function teamRunView(run: Dict) {
  return {
    run_id: get(run, "run_id", ""),
    parent_run_id: get(run, "parent_run_id", ""),
    team_id: get(run, "team_id", ""),
    ...runFields(run),
  };
}

/** agno's `WorkflowRunSchema.from_dict`. */
export function workflowRunView(run: Dict) {
  return {
    run_id: get(run, "run_id", ""),
    run_input: runInput(run, true),
    events: get(run, "events", []),
    workflow_id: get(run, "workflow_id", ""),
    user_id: get(run, "user_id", ""),
    content: contentOf(get(run, "content", "")),
    content_type: get(run, "content_type", ""),
    status: get(run, "status", ""),
    metrics: get(run, "metrics", {}),
    step_results: get(run, "step_results", []),
    step_executor_runs: get(run, "step_executor_runs", []),
    step_requirements: get(run, "step_requirements"),
    pause_kind: get(run, "pause_kind"),
    paused_step_name: get(run, "paused_step_name"),
    paused_step_index: get(run, "paused_step_index"),
    created_at: agnoTime(run.created_at),
    reasoning_content: get(run, "reasoning_content", ""),
    reasoning_steps: get(run, "reasoning_steps", []),
    references: get(run, "references", []),
    citations: get(run, "citations"),
    reasoning_messages: get(run, "reasoning_messages", []),
    images: get(run, "images", []),
    videos: get(run, "videos", []),
    audio: get(run, "audio", []),
    files: get(run, "files", []),
    response_audio: get(run, "response_audio"),
  };
}

/** One run of one session, by which component ran it (agno's `get_session_run`). */
export function runView(run: RunRecord) {
  if (run.workflow_id) return workflowRunView(run);
  if (run.team_id) return teamRunView(run);
  return agentRunView(run);
}

/**
 * A session's runs, each as the schema of what ran it (agno's `classify_session_run`): a team
 * session's runs without a team or an agent are left out, as agno leaves them out.
 */
export function sessionRunViews(runs: RunRecord[], sessionType: SessionType): Dict[] {
  return runs.flatMap((run): Dict[] => {
    if (sessionType === "agent") return [agentRunView(run)];
    if (sessionType === "team") {
      if (run.agent_id) return [agentRunView(run)];
      return run.team_id ? [teamRunView(run)] : [];
    }
    if (run.workflow_id) return [workflowRunView(run)];
    if (run.team_id) return [teamRunView(run)];
    return [agentRunView(run)];
  });
}

/**
 * agno's `get_chat_history`: every top-level run whatever its status, messages that were not
 * themselves history, no system or tool messages.
 */
export function chatHistory(runs: RunRecord[]): MessageRecord[] {
  return runs
    .filter((r) => !r.parent_run_id)
    .flatMap((r) => r.messages ?? [])
    .filter((m) => isDict(m) && !m.from_history && m.role !== "system" && m.role !== "tool");
}

const metricsOf = (record: SessionRecord): Dict | null => {
  const metrics = record.session_data?.session_metrics;
  return isDict(metrics) ? metrics : null;
};
const stateOf = (record: SessionRecord): Dict | null => {
  const state = record.session_data?.session_state;
  return isDict(state) ? state : null;
};
const tokensOf = (metrics: Dict | null) =>
  typeof metrics?.total_tokens === "number" ? Math.trunc(metrics.total_tokens) : null;

/**
 * One entry of `GET /sessions` (agno's `SessionSchema.from_dict`). `runs` are what the name is
 * derived from when none is stored; the list reads them only for such sessions.
 */
export function sessionSummary(record: SessionRecord, runs: RunRecord[] = record.runs ?? []) {
  const metrics = metricsOf(record);
  const createdAt = agnoTime(record.created_at ?? 0);
  return {
    session_id: record.session_id,
    session_name: sessionName(record, runs),
    session_state: stateOf(record),
    created_at: createdAt,
    updated_at: record.updated_at === undefined ? createdAt : agnoTime(record.updated_at),
    session_type: record.session_type ?? detectType(record),
    user_id: record.user_id ?? null,
    agent_id: record.agent_id ?? null,
    team_id: record.team_id ?? null,
    workflow_id: record.workflow_id ?? null,
    session_summary: record.summary ?? null,
    metrics,
    total_tokens: tokensOf(metrics),
    metadata: record.metadata ?? null,
  };
}

/** agno's `detect_session_type`: the stored type, else the component the session names. */
function detectType(record: SessionRecord): SessionType {
  if (record.agent_id) return "agent";
  if (record.team_id) return "team";
  if (record.workflow_id) return "workflow";
  return "agent";
}

/** A session with its chat history: agno's Agent, Team or Workflow `SessionDetailSchema.from_session`. */
export function sessionDetail(session: Session) {
  const r = session.record;
  const runs = session.runs;
  const name = sessionName(r, runs);
  const createdAt = r.created_at ? agnoTime(r.created_at) : null;
  const updatedAt = r.updated_at ? agnoTime(r.updated_at) : createdAt;
  const data = r.session_data ?? null;
  const metrics = data ? (metricsOf(r) ?? {}) : null;
  const state = data ? stateOf(r) : null;
  const history = chatHistory(runs);
  switch (r.session_type ?? detectType(r)) {
    case "team":
      return {
        session_id: r.session_id,
        session_name: name,
        user_id: r.user_id ?? null,
        team_id: r.team_id ?? null,
        session_summary: r.summary && Object.keys(r.summary).length > 0 ? r.summary : null,
        session_state: state,
        metrics,
        team_data: r.team_data ?? null,
        metadata: r.metadata ?? null,
        chat_history: history,
        created_at: createdAt,
        updated_at: updatedAt,
        total_tokens: tokensOf(metrics),
      };
    case "workflow":
      return {
        user_id: r.user_id ?? null,
        workflow_id: r.workflow_id ?? null,
        // agno reads it from a session column its tables do not have, so a stored session never has one.
        workflow_name: null,
        session_id: r.session_id,
        session_name: name,
        session_data: data,
        session_state: state,
        workflow_data: r.workflow_data ?? null,
        metadata: r.metadata ?? null,
        created_at: createdAt,
        updated_at: updatedAt,
      };
    default:
      return {
        user_id: r.user_id ?? null,
        agent_session_id: r.session_id,
        session_id: r.session_id,
        session_name: name,
        session_summary: r.summary ?? null,
        session_state: state,
        agent_id: r.agent_id || null,
        total_tokens: tokensOf(metrics),
        agent_data: r.agent_data ?? null,
        metrics,
        metadata: r.metadata ?? null,
        chat_history: history,
        created_at: createdAt,
        updated_at: updatedAt,
      };
  }
}
