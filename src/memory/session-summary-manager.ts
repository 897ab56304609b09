import type { RunMetrics } from "../agent/run-output.js";
import { ValidationError } from "../errors.js";
import { message, type Message } from "../models/message.js";
import type { Model } from "../models/model.js";
import { defaultModelRegistry } from "../models/default-model-registry.js";
import type { ModelOptions } from "../models/model-provider.js";
import { respond } from "./model-call.js";

/** agno's SessionSummary as a session stores it (`to_dict`): the summary, its topics, when it was made. */
export interface SessionSummary {
  summary: string;
  topics?: string[];
  /** ISO 8601 */
  updated_at?: string;
  [key: string]: unknown;
}

export interface SessionSummaryManagerOptions {
  /** the summarising model; an agent gives its own model to a manager without one */
  model?: Model | string;
  modelOptions?: ModelOptions;
  /** replaces agno's instructions before the conversation */
  sessionSummaryPrompt?: string;
  summaryRequestMessage?: string;
  /** only the last n runs are summarised (default: all) */
  lastNRuns?: number;
  /** at most this many of the most recent messages are summarised (default: all) */
  conversationLimit?: number;
}

const DEFAULT_PROMPT = `Analyze the following conversation between a user and an assistant, and extract the following details:
  - Summary (str): Provide a concise summary of the session, focusing on important information that would be helpful for future interactions.
  - Topics (Optional[List[str]]): List the topics discussed in the session.
Keep the summary concise and to the point. Only include relevant information.
`;

const SCHEMA = {
  type: "object",
  properties: {
    summary: {
      type: "string",
      description:
        "Summary of the session. Be concise and focus on only important information. Do not make anything up.",
    },
    topics: { type: "array", items: { type: "string" }, description: "Topics discussed in the session." },
  },
  required: ["summary"],
  additionalProperties: false,
};

/** A user message's text, or what media it carried when it has no text (as agno writes it). */
function userLine(m: Message): string | null {
  if (typeof m.content === "string" && m.content.trim() !== "") return `User: ${m.content}`;
  const media = (
    [
      ["images", "image(s)"],
      ["videos", "video(s)"],
      ["audio", "audio file(s)"],
      ["files", "file(s)"],
    ] as const
  )
    .filter(([field]) => Array.isArray(m[field]) && (m[field] as unknown[]).length > 0)
    .map(([field, label]) => `${(m[field] as unknown[]).length} ${label}`);
  return media.length > 0 ? `User: [Provided ${media.join(", ")}]` : null;
}

/**
 * agno's SessionSummaryManager: after a run, a model summarises the session's conversation into
 * `{summary, topics, updated_at}`, which the agent stores on the session (its `summary` column)
 * and, with `addSessionSummaryToContext`, gives to the session's later runs.
 *
 * @example
 * const agent = new Agent({ model, db, enableSessionSummaries: true,
 *   sessionSummaryManager: new SessionSummaryManager({ model: "openai:gpt-4.1-mini", lastNRuns: 5 }) });
 */
export class SessionSummaryManager {
  readonly model?: Model;
  readonly lastNRuns?: number;
  private readonly opts: SessionSummaryManagerOptions;

  constructor(opts: SessionSummaryManagerOptions = {}) {
    this.opts = opts;
    this.model =
      typeof opts.model === "string" ? defaultModelRegistry.model(opts.model, opts.modelOptions) : opts.model;
    for (const field of ["lastNRuns", "conversationLimit"] as const) {
      const n = opts[field];
      if (n !== undefined && (!Number.isInteger(n) || n <= 0))
        throw new TypeError(`${field} must be a positive integer, got ${String(n)}`);
    }
    this.lastNRuns = opts.lastNRuns;
  }

  /** The same manager summarising with `model` (an agent gives its model to a manager that has none). */
  withModel(model: Model): SessionSummaryManager {
    if (model === this.model) return this;
    return Object.assign(Object.create(SessionSummaryManager.prototype) as SessionSummaryManager, this, { model });
  }

  /**
   * The summary of `conversation` (the session's messages, oldest first), or null when it holds
   * nothing to summarise. A model answer that is not the summary's JSON is a ValidationError.
   */
  async createSessionSummary(conversation: Message[], metrics?: RunMetrics): Promise<SessionSummary | null> {
    if (!this.model) throw new TypeError("the session summary manager has no model");
    const recent = this.opts.conversationLimit ? conversation.slice(-this.opts.conversationLimit) : conversation;
    const lines: string[] = [];
    for (const m of recent) {
      if (m.role === "user") {
        const line = userLine(m);
        if (line) lines.push(line);
      } else if (m.role === "assistant" && m.content) lines.push(`Assistant: ${m.content}\n`);
    }
    if (lines.length === 0) return null;
    const system = `${this.opts.sessionSummaryPrompt ?? DEFAULT_PROMPT}<conversation>${lines.join("\n")}</conversation>`;
    const text = await respond(
      this.model,
      [
        message("system", system),
        message("user", this.opts.summaryRequestMessage ?? "Provide the summary of the conversation."),
      ],
      metrics,
      { type: "json", schema: SCHEMA, name: "SessionSummaryResponse" },
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Typed and in our words: the parser's own message quotes the model's answer.
      throw new ValidationError("the session summary model's answer is not JSON", "summary");
    }
    const { summary, topics } = (parsed ?? {}) as { summary?: unknown; topics?: unknown };
    if (typeof summary !== "string" || summary.trim() === "")
      throw new ValidationError("the session summary model's answer has no summary", "summary");
    const topicList = Array.isArray(topics) ? topics.filter((t): t is string => typeof t === "string") : undefined;
    return {
      summary,
      ...(topicList && topicList.length > 0 ? { topics: topicList } : {}),
      updated_at: new Date().toISOString(),
    };
  }
}
