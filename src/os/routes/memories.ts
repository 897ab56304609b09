import type { Context } from "hono";
import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../../db/pagination.js";
import type { Db } from "../../db/port.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import { BadRequestError, NotConfiguredError, NotFoundError } from "../../errors.js";
import { MemoryManager } from "../../memory/memory-manager.js";
import { countMemoryTokens } from "../../memory/summarize-strategy.js";
import { defaultModelRegistry } from "../../models/default-model-registry.js";
import type { Model } from "../../models/model.js";
import type { OSEnv } from "../context.js";
import { scopedUserId } from "../auth/scopes.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import {
  memoryView,
  optimizeMemoriesResponseSchema,
  paginatedMemoriesSchema,
  paginatedUserStatsSchema,
  userMemorySchema,
  userStatsView,
} from "../wire/memories.js";
import { paginationInfo } from "../wire/paginated.js";
import { dbFor } from "./sessions.js";

const tags: ["Memory"] = ["Memory"];
const read = { resource: "memories", action: "read" };
const write = { resource: "memories", action: "write" };
const remove = { resource: "memories", action: "delete" };

/** Which database and table a memory route uses (agno's `db_id` and `table`). */
const where = { db_id: idSchema.optional(), table: idSchema.optional() };
const memoryPath = z.object({ memory_id: idSchema });
const topicList = z.array(z.string().min(1).max(255)).max(50);
const memoryPayload = z
  .object({
    memory: z.string().min(1).max(5000).describe("Memory content text"),
    user_id: idSchema.nullable().optional().describe("User ID who owns this memory"),
    topics: topicList.nullable().optional().describe("Topics or tags to categorize the memory"),
  })
  .strict();
const notFound = { 404: jsonAnswer(errorSchema, "No such memory for the caller") };

const createMemory = defineRoute({
  method: "post",
  path: "/memories",
  tags,
  summary: "Create a memory",
  description:
    "With user isolation a non-admin's memory is always their own, whatever `user_id` says (agno's rule); others name the user.",
  scope: write,
  request: { query: z.object(where), body: jsonBody(memoryPayload) },
  responses: {
    200: jsonAnswer(userMemorySchema, "The memory"),
    400: jsonAnswer(errorSchema, "No user to create the memory for"),
    ...notFound,
  },
});

const deleteMemory = defineRoute({
  method: "delete",
  path: "/memories/{memory_id}",
  tags,
  summary: "Delete a memory",
  scope: remove,
  request: { params: memoryPath, query: z.object({ user_id: idSchema.optional(), ...where }) },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

const deleteMemories = defineRoute({
  method: "delete",
  path: "/memories",
  tags,
  summary: "Delete several memories, all or nothing",
  scope: remove,
  request: {
    query: z.object(where),
    body: jsonBody(
      z.object({ memory_ids: z.array(idSchema).min(1).max(1000), user_id: idSchema.nullable().optional() }).strict(),
    ),
  },
  responses: { 204: { description: "Deleted" }, ...notFound },
});

const listMemories = defineRoute({
  method: "get",
  path: "/memories",
  tags,
  summary: "List memories: filtered, sorted and paged",
  scope: read,
  request: {
    query: z.object({
      user_id: idSchema.optional(),
      agent_id: idSchema.optional(),
      team_id: idSchema.optional(),
      topics: z.string().max(2000).optional().describe("Comma-separated topics; a memory must carry each"),
      search_content: z.string().max(1000).optional().describe("Text the memory holds (case-insensitive)"),
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
      page: z.coerce.number().int().min(1).default(1),
      sort_by: z
        .enum(["updated_at", "created_at", "memory_id", "user_id", "agent_id", "team_id"])
        .default("updated_at"),
      sort_order: z.enum(["asc", "desc"]).default("desc"),
      ...where,
    }),
  },
  responses: { 200: jsonAnswer(paginatedMemoriesSchema, "A page of memories"), ...notFound },
});

const getMemory = defineRoute({
  method: "get",
  path: "/memories/{memory_id}",
  tags,
  summary: "One memory",
  scope: read,
  request: { params: memoryPath, query: z.object({ user_id: idSchema.optional(), ...where }) },
  responses: { 200: jsonAnswer(userMemorySchema, "The memory"), ...notFound },
});

const memoryTopics = defineRoute({
  method: "get",
  path: "/memory_topics",
  tags,
  summary: "The distinct topics of the memories",
  scope: read,
  request: { query: z.object({ user_id: idSchema.optional(), ...where }) },
  responses: { 200: jsonAnswer(z.array(z.string()), "The topics, sorted"), ...notFound },
});

const updateMemory = defineRoute({
  method: "patch",
  path: "/memories/{memory_id}",
  tags,
  summary: "Update a memory's text and topics",
  scope: write,
  request: { params: memoryPath, query: z.object(where), body: jsonBody(memoryPayload) },
  responses: {
    200: jsonAnswer(userMemorySchema, "The updated memory"),
    400: jsonAnswer(errorSchema, "No user to update the memory for"),
    ...notFound,
  },
});

const userMemoryStats = defineRoute({
  method: "get",
  path: "/user_memory_stats",
  tags,
  summary: "Per user: how many memories, and when the last changed",
  scope: read,
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(20),
      page: z.coerce.number().int().min(1).default(1),
      user_id: idSchema.optional(),
      ...where,
    }),
  },
  responses: { 200: jsonAnswer(paginatedUserStatsSchema, "A page of user statistics"), ...notFound },
});

const optimizeMemories = defineRoute({
  method: "post",
  path: "/optimize-memories",
  tags,
  summary: "Summarise a user's memories into one (agno's summarize strategy)",
  description:
    "Without `model`, the model of the first served agent with memory (else the first agent's or team's) summarises. `apply: false` previews without saving.",
  scope: write,
  request: {
    query: z.object(where),
    body: jsonBody(
      z
        .object({
          user_id: idSchema,
          model: z.string().min(1).max(255).nullable().optional().describe("`provider:model_id`"),
          apply: z.boolean().default(true),
        })
        .strict(),
    ),
  },
  responses: {
    200: jsonAnswer(optimizeMemoriesResponseSchema, "The optimised memories and what they saved"),
    400: jsonAnswer(errorSchema, "The model is not one this AgentOS can use"),
    404: jsonAnswer(errorSchema, "The user has no memories"),
    503: jsonAnswer(errorSchema, "No model to optimise with"),
  },
});

/**
 * The user a memory call is for: with isolation a non-admin is always themselves (whatever the
 * request names, as agno's resolve_db_and_scope), and one without an identity is refused rather
 * than read unscoped; otherwise the request's `user_id` (absent: every user's, an admin's view).
 */
function memoryUser(c: Context<OSEnv>, requested: string | null | undefined): string | undefined {
  return scopedUserId(c) ?? requested ?? undefined;
}

/** The database a request names, holding the memories table it names (agno's `db_id` and `table`). */
function memoryDb(c: Context<OSEnv>, q: { db_id?: string; table?: string }): Db {
  const db = dbFor(c, q.db_id);
  if (q.table !== undefined && q.table !== memoryTableOf(db)) throw new NotFoundError(`table ${q.table} not found`);
  return db;
}

/** The name of a database's memories table (what `/config` lists and `?table=` must name). */
export function memoryTableOf(db: Db): string {
  return (db as Partial<{ names: TableNames }>).names?.memories ?? DEFAULT_TABLE_NAMES.memories;
}

/** agno's `/memories` routes, scoped per user as its router scopes them. */
export function memoryRoutes(defaultModel: () => Model | undefined) {
  const app = routeApp();

  handle(app, createMemory, async (c) => {
    const b = c.req.valid("json");
    const userId = memoryUser(c, b.user_id);
    if (!userId) throw new BadRequestError("User ID is required");
    const memory = await memoryDb(c, c.req.valid("query")).upsertUserMemory({
      memory_id: crypto.randomUUID(),
      memory: b.memory,
      topics: b.topics ?? [],
      user_id: userId,
    });
    return c.json(memoryView(memory));
  });

  handle(app, deleteMemory, async (c) => {
    const q = c.req.valid("query");
    await memoryDb(c, q).deleteUserMemory(c.req.valid("param").memory_id, { userId: memoryUser(c, q.user_id) });
    return c.body(null, 204);
  });

  handle(app, deleteMemories, async (c) => {
    const b = c.req.valid("json");
    await memoryDb(c, c.req.valid("query")).deleteUserMemories(b.memory_ids, { userId: memoryUser(c, b.user_id) });
    return c.body(null, 204);
  });

  handle(app, listMemories, async (c) => {
    const q = c.req.valid("query");
    const topics = q.topics
      ?.split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const page = await memoryDb(c, q).listUserMemories({
      userId: memoryUser(c, q.user_id),
      agentId: q.agent_id,
      teamId: q.team_id,
      topics: topics && topics.length > 0 ? topics : undefined,
      searchContent: q.search_content,
      limit: q.limit,
      page: q.page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
    });
    return c.json({ data: page.data.map(memoryView), meta: paginationInfo(page) });
  });

  handle(app, getMemory, async (c) => {
    const q = c.req.valid("query");
    const { memory_id } = c.req.valid("param");
    const memory = await memoryDb(c, q).getUserMemory(memory_id, { userId: memoryUser(c, q.user_id) });
    if (!memory) throw new NotFoundError(`Memory with ID ${memory_id} not found`);
    return c.json(memoryView(memory));
  });

  handle(app, memoryTopics, async (c) => {
    const q = c.req.valid("query");
    return c.json(await memoryDb(c, q).getMemoryTopics({ userId: memoryUser(c, q.user_id) }));
  });

  handle(app, updateMemory, async (c) => {
    const b = c.req.valid("json");
    const { memory_id } = c.req.valid("param");
    const userId = memoryUser(c, b.user_id);
    if (!userId) throw new BadRequestError("User ID is required");
    const db = memoryDb(c, c.req.valid("query"));
    // Only the user's own memory is updated: another user's id reads as missing, never overwritten.
    const current = await db.getUserMemory(memory_id, { userId });
    if (!current) throw new NotFoundError("Memory not found");
    const memory = await db.upsertUserMemory({ ...current, memory: b.memory, topics: b.topics ?? [] });
    return c.json(memoryView(memory));
  });

  handle(app, userMemoryStats, async (c) => {
    const q = c.req.valid("query");
    const page = await memoryDb(c, q).getUserMemoryStats({
      userId: memoryUser(c, q.user_id),
      limit: q.limit,
      page: q.page,
    });
    return c.json({ data: page.data.map(userStatsView), meta: paginationInfo(page) });
  });

  handle(app, optimizeMemories, async (c) => {
    const b = c.req.valid("json");
    const userId = memoryUser(c, b.user_id)!;
    const db = memoryDb(c, c.req.valid("query"));
    let model: Model | undefined;
    if (b.model) {
      try {
        defaultModelRegistry.parse(b.model);
      } catch (error) {
        throw new BadRequestError((error as Error).message);
      }
      model = defaultModelRegistry.model(b.model);
    } else model = defaultModel();
    if (!model) throw new NotConfiguredError("no model to optimise memories with: name one in `model`");
    const before = await db.getUserMemories(userId, { limit: MAX_PAGE_LIMIT });
    if (before.length === 0) throw new NotFoundError(`No memories found for user ${userId}`);
    const optimized = await new MemoryManager({ model, db }).optimizeMemories(userId, { apply: b.apply });
    const tokensBefore = countMemoryTokens(before);
    const tokensAfter = countMemoryTokens(optimized);
    // A summary longer than what it replaces saved nothing (agno's model allows no negative saving).
    const saved = Math.max(0, tokensBefore - tokensAfter);
    return c.json({
      memories: optimized.map((m) => memoryView({ ...m, updated_at: m.updated_at ?? null })),
      memories_before: before.length,
      memories_after: optimized.length,
      tokens_before: tokensBefore,
      tokens_after: tokensAfter,
      tokens_saved: saved,
      reduction_percentage: tokensBefore > 0 ? (saved / tokensBefore) * 100 : 0,
    });
  });

  return app;
}
