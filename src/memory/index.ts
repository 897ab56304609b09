export { MemoryManager, type MemoryManagerOptions, type MemoryScope } from "./memory-manager.js";
export {
  SessionSummaryManager,
  type SessionSummary,
  type SessionSummaryManagerOptions,
} from "./session-summary-manager.js";
export { SummarizeStrategy, countMemoryTokens, type MemoryOptimizationStrategy } from "./summarize-strategy.js";
export { memoriesForContext, sessionSummaryForContext } from "./memory-prompts.js";
export { userMemoryTool } from "./user-memory-tool.js";
