import type { Db } from "../../db/port.js";
import { buildLearningId } from "../utils.js";

/** What the per-user stores' configs share. */
interface UserKeyedConfig {
  mode?: "always" | "agentic";
  enableAgentTools?: boolean;
}

/**
 * What UserMemoryStore and UserProfileStore share: one row per user keyed by its type and the
 * user (buildLearningId), a mode, and tools given in agentic mode or on request unless the
 * store's own switch (`agentCanUpdate`) is off.
 */
export abstract class UserKeyedStore<C extends UserKeyedConfig, T> {
  abstract readonly learningType: string;
  readonly mode: "always" | "agentic";

  constructor(readonly config: C) {
    this.mode = config.mode ?? "always";
  }

  /** the store's own switch for its tools (agentCanUpdateMemories, agentCanUpdateProfile) */
  protected abstract get agentCanUpdate(): boolean;

  /** a stored content as the store reads it */
  protected abstract read(content: unknown): T | null;

  protected get exposesTools(): boolean {
    return (this.mode === "agentic" || this.config.enableAgentTools === true) && this.agentCanUpdate;
  }

  async get(db: Db, userId: string): Promise<T | null> {
    const id = await buildLearningId(this.learningType, { userId });
    const row = id ? await db.getLearning(id) : null;
    return row && row.learning_type === this.learningType ? this.read(row.content) : null;
  }
}
