import type { Model } from "../models/model.js";

/**
 * How a store learns: `always` extracts after each run (a model call), `agentic` gives the
 * agent tools to save when it sees fit. (agno's `propose` and `hitl` are not offered.)
 */
export type LearningMode = "always" | "agentic";

interface ExtractionConfig {
  /** the model that extracts (default: the machine's, which defaults to the agent's) */
  model?: Model;
  mode?: LearningMode;
  /** tool calls or changes one extraction may make (default: the machine's maxUpdatesPerRun) */
  maxUpdatesPerRun?: number;
  /** replaces what the extraction is told to capture */
  instructions?: string;
  /** appended to the default instructions */
  additionalInstructions?: string;
  /** give the agent the store's tool even in `always` mode */
  enableAgentTools?: boolean;
}

/** User profile: structured fields about the user (name, preferred name), one row per user. */
export interface UserProfileConfig extends ExtractionConfig {
  /** with agent tools on, the `update_profile` tool (default true) */
  agentCanUpdateProfile?: boolean;
}

/** User memory: unstructured observations about the user, one row per user holding the list. */
export interface UserMemoryConfig extends ExtractionConfig {
  enableAddMemory?: boolean;
  enableUpdateMemory?: boolean;
  enableDeleteMemory?: boolean;
  /** default false: an extraction may not wipe a user's memories */
  enableClearMemories?: boolean;
  /** with agent tools on, the `update_user_memory` tool (default true) */
  agentCanUpdateMemories?: boolean;
}

/**
 * Entity memory: facts, events and relationships about third parties (companies, people,
 * projects), recorded by the agent through its tools (agentic only, as agno).
 * `namespace`: "global" (default, shared), "user" (each user's own graph, keyed by a digest of
 * the user id), or a custom group name.
 */
export interface EntityMemoryConfig {
  namespace?: string;
  /** entities shown in the system message (default 5) */
  maxEntitiesInContext?: number;
  /** live facts kept per entity (default 10; the oldest drop) */
  maxFactsPerEntity?: number;
  /** events kept per entity (default 5) */
  maxEventsPerEntity?: number;
  /** default true */
  enableAgentTools?: boolean;
}

/** Decision log: what the agent decided and why, logged by the agent (`log_decision`), per run. */
export interface DecisionLogConfig {
  /** default true */
  enableAgentTools?: boolean;
  agentCanSave?: boolean;
  agentCanSearch?: boolean;
  /** recent decisions shown in the system message (default 5) */
  maxDecisionsInContext?: number;
}
