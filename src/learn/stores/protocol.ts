import type { Db } from "../../db/port.js";
import type { Model, TokenUsage } from "../../models/model.js";
import type { Message } from "../../models/message.js";
import type { Tool } from "../../tools/tool.js";

/** Who and where a run is: what every store reads and writes under. */
export interface LearningScope {
  db: Db;
  userId: string | null;
  sessionId: string;
  runId?: string;
  agentId: string;
  teamId?: string | null;
}

/** What an extraction after a run has: the scope, the conversation, and the model to ask. */
export interface ProcessInput extends LearningScope {
  messages: Message[];
  model: Model;
  /** called with each extraction call's usage, so the run's metrics count it */
  onModelCall?: (call: ModelCallUsage) => void;
}

export interface ModelCallUsage {
  id: string;
  provider: string;
  usage: TokenUsage;
  duration: number;
  cost?: number;
}

/**
 * One kind of learning (agno's LearningStore protocol): what it recalls for the system
 * message, how it renders it, what it tells the agent, which tools it gives, and what it
 * extracts after a run.
 */
export interface LearningStore {
  readonly learningType: string;
  recall(scope: LearningScope): Promise<unknown>;
  /** the data block for the system message ("" for nothing) */
  buildContext(data: unknown): string;
  /** the guidance block: how and when to use the store's tools ("" when it gives none) */
  instructions(): string;
  /** tools for the agent; they read the run's user and session from the tool context */
  tools(db: () => Db | undefined, agentId: string, model: () => Model | undefined): Tool[];
  /** extraction after a run (a no-op for agentic stores) */
  process(input: ProcessInput): Promise<void>;
}
