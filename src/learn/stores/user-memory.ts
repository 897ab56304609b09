import { z } from "zod";
import type { Db } from "../../db/port.js";
import type { Model } from "../../models/model.js";
import { tool, type Tool } from "../../tools/tool.js";
import type { UserMemoryConfig } from "../config.js";
import { memoriesOf } from "../content-shape.js";
import { conversationText, extractJson } from "../extract.js";
import type { Memories, MemoryEntry } from "../schemas.js";
import { buildLearningId, isoNow, shortId } from "../utils.js";
import { UserKeyedStore } from "./user-keyed-store.js";
import type { LearningScope, LearningStore, ModelCallUsage, ProcessInput } from "./protocol.js";

const SCHEMA = {
  name: "user_memory",
  schema: {
    type: "object",
    properties: {
      add: { type: "array", items: { type: "string" } },
      update: {
        type: "array",
        items: {
          type: "object",
          properties: { id: { type: "string" }, memory: { type: "string" } },
          required: ["id", "memory"],
          additionalProperties: false,
        },
      },
      delete: { type: "array", items: { type: "string" } },
      clear: { type: "boolean" },
    },
    required: ["add", "update", "delete"],
    additionalProperties: false,
  },
};

const DEFAULT_INSTRUCTIONS =
  "You maintain long-term memories about a user: observations, preferences and context that would help " +
  "personalise later conversations and that do not fit a profile field. Read the conversation and the stored " +
  'memories (each with its id). Answer with JSON only: {"add": [new memories, each a short third-person ' +
  'sentence], "update": [{"id", "memory"} for a stored memory the user corrected], "delete": [ids the user ' +
  "asked to forget or that are now wrong]}. Do not repeat stored memories. If nothing changed, answer " +
  '{"add": [], "update": [], "delete": []}.';

/** Tool parameters, made once: their JSON Schemas are converted once per isolate. */
const UPDATE_USER_MEMORY = z.object({ task: z.string().min(1).max(4_000) });

/** At most this many memories a user keeps: the oldest go first. */
const MAX_MEMORIES = 200;
const MAX_MEMORY_LENGTH = 2_000;

/**
 * User memory (agno's UserMemoryStore): one `user_memory` row per user (`memories_<user_id>`)
 * holding their memories. In `always` mode a model call after each run adds, updates and
 * deletes them; in `agentic` mode the agent calls `update_user_memory` with a task.
 */
export class UserMemoryStore extends UserKeyedStore<UserMemoryConfig, Memories> implements LearningStore {
  readonly learningType = "user_memory";

  constructor(config: UserMemoryConfig = {}) {
    super(config);
  }

  protected get agentCanUpdate(): boolean {
    return this.config.agentCanUpdateMemories !== false;
  }

  protected read(content: unknown): Memories | null {
    return memoriesOf(content);
  }

  async save(scope: LearningScope & { userId: string }, memories: Memories): Promise<void> {
    await scope.db.upsertLearning({
      learning_id: (await buildLearningId(this.learningType, { userId: scope.userId }))!,
      learning_type: this.learningType,
      user_id: scope.userId,
      agent_id: scope.agentId,
      team_id: scope.teamId ?? null,
      content: memories as unknown as Record<string, unknown>,
    });
  }

  async recall(scope: LearningScope): Promise<Memories | null> {
    return scope.userId ? this.get(scope.db, scope.userId) : null;
  }

  buildContext(data: unknown): string {
    const memories = memoriesOf(data)?.memories ?? [];
    if (memories.length === 0)
      return this.exposesTools ? "<user_memory>\nNo memories saved about this user yet.\n</user_memory>" : "";
    return [
      "<user_memory>",
      ...memories.map((m) => `- ${m.content}`),
      "",
      "<memory_application_guidelines>",
      "Apply this knowledge naturally - respond as if you inherently know this information,",
      "exactly as a colleague would recall shared history without narrating their thought process.",
      "",
      "- Selectively apply memories based on relevance to the current query",
      '- Never say "based on my memory" or "I remember that" - just use the information naturally',
      "- Current conversation always takes precedence over stored memories",
      "- Use memories to calibrate tone, depth, and examples without announcing it",
      "</memory_application_guidelines>",
      "</user_memory>",
    ].join("\n");
  }

  instructions(): string {
    if (!this.exposesTools) return "";
    return (
      "<user_memory_instructions>\n" +
      "Use `update_user_memory` to save observations, preferences, and context about this user " +
      "that would help personalize future conversations or avoid asking the same questions.\n" +
      "</user_memory_instructions>"
    );
  }

  tools(db: () => Db | undefined, agentId: string, model: () => Model | undefined): Tool[] {
    if (!this.exposesTools) return [];
    return [
      tool({
        name: "update_user_memory",
        description:
          "Save, change or forget what you know about the user. Describe the task, e.g. 'remember that the user is vegetarian'.",
        parameters: UPDATE_USER_MEMORY,
        execute: async ({ task }, ctx) => {
          const store = db();
          const m = this.config.model ?? model();
          if (!ctx.userId || !store) return "No user is known for this run: no memory was saved.";
          if (!m) return "No model provided for memories extraction";
          const changed = await this.extract(
            { db: store, userId: ctx.userId, sessionId: ctx.sessionId, agentId },
            m,
            `Task: ${task}`,
          );
          return changed ? "Memories updated" : "No updates needed";
        },
      }),
    ];
  }

  async process(input: ProcessInput): Promise<void> {
    if (this.mode !== "always" || !input.userId) return;
    const conversation = conversationText(input.messages);
    if (!conversation.trim()) return;
    await this.extract(
      { ...input, userId: input.userId },
      this.config.model ?? input.model,
      conversation,
      input.onModelCall,
    );
  }

  /** One extraction call and its changes applied; whether anything changed. */
  private async extract(
    scope: LearningScope & { userId: string },
    model: Model,
    conversation: string,
    onModelCall?: (call: ModelCallUsage) => void,
  ): Promise<boolean> {
    const existing = await this.get(scope.db, scope.userId);
    const system = [this.config.instructions ?? DEFAULT_INSTRUCTIONS, this.config.additionalInstructions]
      .filter(Boolean)
      .join("\n\n");
    const answer = await extractJson(
      model,
      system,
      { stored_memories: (existing?.memories ?? []).map((m) => ({ id: m.id, memory: m.content })), conversation },
      SCHEMA,
      onModelCall,
    );
    const now = isoNow();
    const memories: MemoryEntry[] = [...(existing?.memories ?? [])];
    const limit = this.config.maxUpdatesPerRun ?? Number.POSITIVE_INFINITY;
    let changes = 0;
    const allowed = () => changes < limit;
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((s): s is string => typeof s === "string" && s.trim() !== "") : [];
    if (answer.clear === true && this.config.enableClearMemories === true && allowed()) {
      changes += memories.length > 0 ? 1 : 0;
      memories.length = 0;
    }
    if (this.config.enableDeleteMemory !== false)
      for (const id of strings(answer.delete)) {
        const at = memories.findIndex((m) => m.id === id);
        if (at >= 0 && allowed()) {
          memories.splice(at, 1);
          changes++;
        }
      }
    if (this.config.enableUpdateMemory !== false && Array.isArray(answer.update))
      for (const u of answer.update as Array<{ id?: unknown; memory?: unknown }>) {
        const entry = memories.find((m) => m.id === u?.id);
        if (entry && typeof u.memory === "string" && u.memory.trim() && allowed()) {
          entry.content = u.memory.trim().slice(0, MAX_MEMORY_LENGTH);
          entry.updated_at = now;
          changes++;
        }
      }
    if (this.config.enableAddMemory !== false) {
      const known = new Set(memories.map((m) => m.content.trim().toLowerCase()));
      for (const text of strings(answer.add)) {
        const content = text.trim().slice(0, MAX_MEMORY_LENGTH);
        if (known.has(content.toLowerCase()) || !allowed()) continue;
        known.add(content.toLowerCase());
        memories.push({ id: shortId(), content, created_at: now, updated_at: now });
        changes++;
      }
    }
    if (changes === 0) return false;
    await this.save(scope, {
      user_id: scope.userId,
      memories: memories.slice(-MAX_MEMORIES),
      agent_id: existing?.agent_id ?? scope.agentId,
      team_id: existing?.team_id ?? scope.teamId ?? null,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
    return true;
  }
}
