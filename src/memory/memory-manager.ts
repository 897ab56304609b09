import type { RunMetrics } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import { MAX_PAGE_LIMIT } from "../db/pagination.js";
import type { MemoryRecord } from "../db/types.js";
import { NotConfiguredError } from "../errors.js";
import { message } from "../models/message.js";
import type { Model } from "../models/model.js";
import { defaultModelRegistry } from "../models/default-model-registry.js";
import type { ModelOptions } from "../models/model-provider.js";
import { respondWithTools } from "./model-call.js";
import { memoryManagerSystemMessage } from "./memory-prompts.js";
import { memoryTools, type MemoryToolSwitches } from "./memory-tools.js";
import { SummarizeStrategy, type MemoryOptimizationStrategy } from "./summarize-strategy.js";

export interface MemoryManagerOptions {
  /** the model that decides (a Model, or `"provider:model-id"`); an agent gives its own model to a manager without one */
  model?: Model | string;
  modelOptions?: ModelOptions;
  /** where memories are kept; an agent gives its db to a manager without one */
  db?: Db;
  /** replaces the whole system message */
  systemMessage?: string;
  /** what is worth remembering (agno's memory_capture_instructions) */
  memoryCaptureInstructions?: string;
  additionalInstructions?: string;
  /** the tools the model gets on a memory task (agno's defaults: add and update on, delete and clear off) */
  addMemories?: boolean;
  updateMemories?: boolean;
  deleteMemories?: boolean;
  clearMemories?: boolean;
  /** memories one user may have (default 100): beyond it the model is told to update or delete instead of adding */
  maxMemoriesPerUser?: number;
}

/** Who a memory change is for and where it comes from. */
export interface MemoryScope {
  userId: string;
  agentId?: string;
  teamId?: string;
  /** the run's metrics, which the manager's model calls are added to */
  metrics?: RunMetrics;
}

/**
 * agno's MemoryManager: a model that reads a user's message and their stored memories and
 * decides, through tools, to add, update or delete memories (or do nothing). Used after each
 * run (`updateMemoryOnRun`), by the agent's `update_user_memory` tool (`enableAgenticMemory`),
 * and by `POST /optimize-memories`. Every change is scoped to one user.
 *
 * @example
 * const memory = new MemoryManager({ model: "openai:gpt-4.1-mini", maxMemoriesPerUser: 50 });
 * const agent = new Agent({ model, db, memoryManager: memory, updateMemoryOnRun: true });
 * await memory.withDb(db).createUserMemories({ message: "I moved to Lyon" }, { userId: "ann" });
 */
export class MemoryManager {
  readonly model?: Model;
  readonly db?: Db;
  readonly maxMemoriesPerUser: number;
  private readonly opts: MemoryManagerOptions;

  constructor(opts: MemoryManagerOptions = {}) {
    this.opts = opts;
    this.model =
      typeof opts.model === "string" ? defaultModelRegistry.model(opts.model, opts.modelOptions) : opts.model;
    this.db = opts.db;
    this.maxMemoriesPerUser = opts.maxMemoriesPerUser ?? 100;
    if (
      !Number.isInteger(this.maxMemoriesPerUser) ||
      this.maxMemoriesPerUser < 1 ||
      this.maxMemoriesPerUser > MAX_PAGE_LIMIT
    )
      throw new TypeError(`maxMemoriesPerUser must be a whole number from 1 to ${MAX_PAGE_LIMIT}`);
  }

  /** The same manager storing through `db` (on Workers: the request's own connection). */
  withDb(db: Db): MemoryManager {
    return db === this.db ? this : this.copy({ db });
  }

  /** The same manager deciding with `model` (an agent gives its model to a manager that has none). */
  withModel(model: Model): MemoryManager {
    return model === this.model ? this : this.copy({ model });
  }

  private copy(change: { db?: Db; model?: Model }): MemoryManager {
    const next = Object.create(MemoryManager.prototype) as MemoryManager;
    return Object.assign(next, this, change);
  }

  private ready(): { db: Db; model: Model } {
    if (!this.db) throw new NotConfiguredError("the memory manager has no db");
    if (!this.model) throw new NotConfiguredError("the memory manager has no model");
    return { db: this.db, model: this.model };
  }

  /** A user's memories, newest first (at most the cap). */
  async getUserMemories(userId: string): Promise<MemoryRecord[]> {
    return this.ready().db.getUserMemories(userId, { limit: this.maxMemoriesPerUser });
  }

  /**
   * After a run (agno's create_user_memories): the model reads the user's message and their
   * memories, and may add, update or delete memories. Returns the model's last words.
   */
  async createUserMemories(input: { message: string }, scope: MemoryScope): Promise<{ text: string; changes: number }> {
    return this.decide(input.message, input.message, scope, {
      add: this.opts.addMemories ?? true,
      update: this.opts.updateMemories ?? true,
      // As agno after a run: deleting is always on offer, clearing never.
      delete: true,
      clear: false,
    });
  }

  /** A memory task in words (agno's update_memory_task), as the agent's `update_user_memory` tool sends it. */
  async updateMemoryTask(task: string, scope: MemoryScope): Promise<{ text: string; changes: number }> {
    return this.decide(task, task, scope, {
      add: this.opts.addMemories ?? true,
      update: this.opts.updateMemories ?? true,
      delete: this.opts.deleteMemories ?? false,
      clear: this.opts.clearMemories ?? false,
    });
  }

  private async decide(
    userText: string,
    input: string,
    scope: MemoryScope,
    on: MemoryToolSwitches,
  ): Promise<{ text: string; changes: number }> {
    const { db, model } = this.ready();
    const existing = await db.getUserMemories(scope.userId, { limit: this.maxMemoriesPerUser });
    const system =
      this.opts.systemMessage ??
      memoryManagerSystemMessage(existing, on, {
        captureInstructions: this.opts.memoryCaptureInstructions,
        additionalInstructions: this.opts.additionalInstructions,
      });
    const tools = memoryTools(
      { db, userId: scope.userId, input, agentId: scope.agentId, teamId: scope.teamId, cap: this.maxMemoriesPerUser },
      on,
    );
    const reply = await respondWithTools(
      model,
      [message("system", system), message("user", userText)],
      tools,
      scope.metrics,
    );
    return { text: reply.text || "No response from model", changes: reply.toolCalls };
  }

  /**
   * agno's optimize_memories: the strategy (default SUMMARIZE) turns the user's memories into
   * fewer; with `apply` they replace the stored ones in one write. Returns the optimised set.
   */
  async optimizeMemories(
    userId: string,
    opts: { strategy?: MemoryOptimizationStrategy; apply?: boolean; metrics?: RunMetrics } = {},
  ): Promise<MemoryRecord[]> {
    const { db, model } = this.ready();
    const memories = await db.getUserMemories(userId, { limit: MAX_PAGE_LIMIT });
    if (memories.length === 0) return [];
    const optimized = await (opts.strategy ?? new SummarizeStrategy()).optimize(memories, model, opts.metrics);
    if (opts.apply === false) return optimized;
    // Only the memories read are replaced: a user with more than one read's worth keeps the rest.
    return db.replaceUserMemories(
      userId,
      memories.map((m) => m.memory_id),
      optimized,
    );
  }
}
