import { z } from "zod";
import type { Db, LearningRecord } from "../../db/port.js";
import { tool, type Tool, type ToolContext } from "../../tools/tool.js";
import type { EntityMemoryConfig } from "../config.js";
import type { EntityMemory } from "../schemas.js";
import {
  buildLearningId,
  DEFAULT_LEARNING_NAMESPACE,
  isoNow,
  RESERVED_ENTITY_NAMESPACE,
  shortId,
  slugify,
  valuesMatchQuery,
} from "../utils.js";
import type { LearningScope, LearningStore, ProcessInput } from "./protocol.js";

const UNKNOWN_TYPE = "unknown";

/** Tool parameters, made once: their JSON Schemas are converted once per isolate. */
const REMEMBER_ABOUT = z.object({
  entity: z.string().min(1).max(200).describe("the entity's name"),
  entity_type: z.string().min(1).max(100).describe("company, person, project, system, product, …"),
  description: z.string().max(2_000).optional(),
  facts: z.array(z.string().max(2_000)).max(20).optional(),
  events: z.array(z.string().max(2_000)).max(20).optional(),
  note: z.string().max(2_000).optional(),
});
const LINK_ENTITIES = z.object({
  entity: z.string().min(1).max(200),
  relation: z.string().min(1).max(200),
  related_entity: z.string().min(1).max(200),
});
const SEARCH_ENTITIES = z.object({
  query: z.string().max(500).optional(),
  entity_type: z.string().max(100).optional(),
});
const FORGET = z.object({ entity: z.string().min(1).max(200), fact: z.string().max(2_000).optional() });

/** rows a search or a name lookup reads at most */
const SCAN_LIMIT = 500;

const normalizeType = (t: string | undefined | null): string => (t ? slugify(t) : "") || UNKNOWN_TYPE;

/** Who an entity operation acts for: the namespace and, under "user", the owner. */
interface EntityScope {
  db: Db;
  userId: string | null;
  agentId: string;
  teamId?: string | null;
}

/**
 * Entity memory (agno's EntityMemoryStore): facts, events and relationships about third-party
 * entities, one `entity_memory` row per entity, recorded by the agent through its tools.
 *
 * Under `namespace: "user"` every row is the user's own: its id embeds a digest of the user id
 * (`entity_user_<16 hex>_<type>_<id>`) and its `user_id` is the user, so two users recording
 * the same entity never share or overwrite a row, and every read filters by the run's user.
 * A run without a user records and recalls nothing there.
 */
export class EntityMemoryStore implements LearningStore {
  readonly learningType = "entity_memory";
  readonly namespace: string;

  constructor(readonly config: EntityMemoryConfig = {}) {
    this.namespace = config.namespace || DEFAULT_LEARNING_NAMESPACE;
    if (RESERVED_ENTITY_NAMESPACE.test(this.namespace))
      throw new TypeError(
        `entity memory namespace ${JSON.stringify(this.namespace)} is reserved: it has the key shape of namespace "user" rows`,
      );
  }

  private get userScoped(): boolean {
    return this.namespace === "user";
  }

  private get exposesTools(): boolean {
    return this.config.enableAgentTools !== false;
  }

  /** The owner a row of this namespace carries: the user under "user", nobody elsewhere. */
  private owner(scope: EntityScope): string | null {
    return this.userScoped ? scope.userId : null;
  }

  private refusal(scope: EntityScope): string | null {
    return this.userScoped && !scope.userId
      ? 'This run has no user, and this entity memory is per user (namespace "user"): nothing was recorded.'
      : null;
  }

  /** The rows of this namespace the scope may read, newest first. */
  async list(
    scope: EntityScope,
    opts: { entityId?: string; entityType?: string; limit?: number } = {},
  ): Promise<EntityMemory[]> {
    if (this.userScoped && !scope.userId) return [];
    const page = await scope.db.listLearnings({
      learningType: this.learningType,
      namespace: this.namespace,
      ...(this.userScoped ? { userId: scope.userId! } : {}),
      ...(opts.entityId ? { entityId: opts.entityId } : {}),
      ...(opts.entityType ? { entityType: opts.entityType } : {}),
      limit: opts.limit ?? SCAN_LIMIT,
      sortBy: "updated_at",
      sortOrder: "desc",
    });
    // A row of another owner is never this scope's, whatever its namespace column says; and a
    // shared namespace's rows have no owner, so one carrying a user's id is nobody's to read.
    return page.data.filter((r) => r.user_id === this.owner(scope)).map(toEntity);
  }

  /** The entity a name (or its slug) resolves to, of the given type when there are several. */
  async resolve(scope: EntityScope, name: string, entityType?: string): Promise<EntityMemory | null> {
    const slug = slugify(name);
    if (!slug) return null;
    const rows = await this.list(scope, { entityId: slug });
    const wanted = entityType ? normalizeType(entityType) : null;
    return rows.find((e) => !wanted || e.entity_type === wanted || e.entity_type === UNKNOWN_TYPE) ?? null;
  }

  private async save(scope: EntityScope, entity: EntityMemory): Promise<void> {
    const id = await buildLearningId(this.learningType, {
      userId: scope.userId,
      entityId: entity.entity_id,
      entityType: entity.entity_type,
      namespace: this.namespace,
    });
    if (!id) return;
    await scope.db.upsertLearning({
      learning_id: id,
      learning_type: this.learningType,
      namespace: this.namespace,
      user_id: this.owner(scope),
      agent_id: scope.agentId,
      team_id: scope.teamId ?? null,
      entity_id: entity.entity_id,
      entity_type: entity.entity_type,
      content: entity as unknown as Record<string, unknown>,
    });
  }

  private async deleteRow(scope: EntityScope, entity: EntityMemory): Promise<void> {
    const id = await buildLearningId(this.learningType, {
      userId: scope.userId,
      entityId: entity.entity_id,
      entityType: entity.entity_type,
      namespace: this.namespace,
    });
    if (id) await scope.db.deleteLearning(id);
  }

  /** Records an entity and what is known about it (merging into the stored one); the tool's answer. */
  async rememberAbout(
    scope: EntityScope,
    args: {
      entity: string;
      entity_type: string;
      description?: string;
      facts?: string[];
      events?: string[];
      note?: string;
    },
  ): Promise<string> {
    const refused = this.refusal(scope);
    if (refused) return refused;
    const entityId = slugify(args.entity);
    if (!entityId) return `"${args.entity}" has no usable name: nothing was recorded.`;
    const type = normalizeType(args.entity_type);
    const now = isoNow();
    const existing = await this.resolve(scope, args.entity, type);
    let entity: EntityMemory;
    if (existing) {
      entity = existing;
      if (entity.entity_type === UNKNOWN_TYPE && type !== UNKNOWN_TYPE) {
        // The key embeds the type: the minimal row link_entities made is replaced.
        await this.deleteRow(scope, entity);
        entity.entity_type = type;
      }
      if (args.description) entity.description = args.description;
      entity.archived_at = null;
    } else {
      entity = {
        entity_id: entityId,
        entity_type: type,
        name: args.entity.trim(),
        description: args.description ?? null,
        properties: {},
        aliases: [],
        facts: [],
        events: [],
        relationships: [],
        namespace: this.namespace,
        user_id: this.owner(scope),
        agent_id: scope.agentId,
        team_id: scope.teamId ?? null,
        created_at: now,
      };
    }
    const known = new Set(entity.facts.map((f) => f.content.toLowerCase()));
    let added = 0;
    for (const fact of args.facts ?? []) {
      const content = fact.trim();
      if (!content || known.has(content.toLowerCase())) continue;
      known.add(content.toLowerCase());
      entity.facts.push({ id: shortId(), content, created_at: now, updated_at: now });
      added++;
    }
    entity.facts = entity.facts.slice(-(this.config.maxFactsPerEntity ?? 10));
    for (const event of args.events ?? []) {
      const content = event.trim();
      if (content && !entity.events.some((e) => e.content === content))
        entity.events.push({ id: shortId(), content, created_at: now });
    }
    entity.events = entity.events.slice(-(this.config.maxEventsPerEntity ?? 5));
    if (args.note?.trim()) entity.properties = { ...entity.properties, note: args.note.trim() };
    entity.updated_at = now;
    await this.save(scope, entity);
    return (
      `${existing ? "Updated" : "Recorded"} ${entity.name ?? entity.entity_id} (${entity.entity_type})` +
      (added ? ` with ${added} new fact${added === 1 ? "" : "s"}` : "")
    );
  }

  async linkEntities(
    scope: EntityScope,
    args: { entity: string; relation: string; related_entity: string },
  ): Promise<string> {
    const refused = this.refusal(scope);
    if (refused) return refused;
    const ends: EntityMemory[] = [];
    for (const name of [args.entity, args.related_entity]) {
      const found = await this.resolve(scope, name);
      if (found) ends.push(found);
      else {
        await this.rememberAbout(scope, { entity: name, entity_type: UNKNOWN_TYPE });
        const made = await this.resolve(scope, name);
        if (!made) return `"${name}" has no usable name: nothing was linked.`;
        ends.push(made);
      }
    }
    const [source, target] = ends as [EntityMemory, EntityMemory];
    const edge = (from: EntityMemory, to: EntityMemory, direction: "outgoing" | "incoming") => {
      if (
        !from.relationships.some(
          (r) => r.entity_id === to.entity_id && r.relation === args.relation && r.direction === direction,
        )
      )
        from.relationships.push({
          entity_id: to.entity_id,
          entity_type: to.entity_type,
          relation: args.relation,
          direction,
        });
      from.updated_at = isoNow();
    };
    edge(source, target, "outgoing");
    await this.save(scope, source);
    if (target.entity_id !== source.entity_id || target.entity_type !== source.entity_type) {
      edge(target, source, "incoming");
      await this.save(scope, target);
    }
    return `Linked ${source.name ?? source.entity_id} -[${args.relation}]-> ${target.name ?? target.entity_id}`;
  }

  async searchEntities(scope: EntityScope, args: { query?: string; entity_type?: string }): Promise<EntityMemory[]> {
    const rows = await this.list(scope, args.entity_type ? { entityType: normalizeType(args.entity_type) } : {});
    return rows.filter(
      (e) =>
        !args.query ||
        valuesMatchQuery(
          {
            name: e.name,
            aliases: e.aliases,
            description: e.description,
            facts: e.facts.map((f) => f.content),
            id: e.entity_id,
          },
          args.query,
        ),
    );
  }

  async forget(scope: EntityScope, args: { entity: string; fact?: string }): Promise<string> {
    const refused = this.refusal(scope);
    if (refused) return refused;
    const entity = await this.resolve(scope, args.entity);
    if (!entity) return `No entity named "${args.entity}".`;
    if (args.fact) {
      const needle = args.fact.trim().toLowerCase();
      const before = entity.facts.length;
      entity.facts = entity.facts.filter((f) => f.id !== args.fact && !f.content.toLowerCase().includes(needle));
      if (entity.facts.length === before)
        return `No fact of ${entity.name ?? entity.entity_id} matches "${args.fact}".`;
    } else entity.archived_at = isoNow();
    entity.updated_at = isoNow();
    await this.save(scope, entity);
    return args.fact
      ? `Forgot that fact about ${entity.name ?? entity.entity_id}`
      : `Forgot ${entity.name ?? entity.entity_id}`;
  }

  async recall(scope: LearningScope): Promise<EntityMemory[]> {
    const rows = await this.list(scope, { limit: 50 });
    return rows.filter((e) => !e.archived_at).slice(0, this.config.maxEntitiesInContext ?? 5);
  }

  buildContext(data: unknown): string {
    const entities = (data as EntityMemory[] | null) ?? [];
    if (entities.length === 0)
      return this.exposesTools ? "<entity_memory>\nNo entities recorded yet.\n</entity_memory>" : "";
    return ["<entity_memory>", ...entities.map(entityText), "</entity_memory>"].join("\n");
  }

  instructions(): string {
    if (!this.exposesTools) return "";
    return [
      "<entity_memory_instructions>",
      "Use `remember_about` to record facts and events about companies, people, projects and other entities.",
      "Use `link_entities` to record how two entities relate, `search_entities` to look them up,",
      "and `forget` to drop an entity or one of its facts.",
      "</entity_memory_instructions>",
    ].join("\n");
  }

  tools(db: () => Db | undefined, agentId: string): Tool[] {
    if (!this.exposesTools) return [];
    const scope = (ctx: ToolContext): EntityScope | null => {
      const store = db();
      return store ? { db: store, userId: ctx.userId, agentId } : null;
    };
    const noDb = "No database is configured: entity memory is unavailable.";
    return [
      tool({
        name: "remember_about",
        description: "Record an entity (company, person, project, system, …) and facts or events about it.",
        parameters: REMEMBER_ABOUT,
        execute: async (args, ctx) => {
          const s = scope(ctx);
          return s ? this.rememberAbout(s, args) : noDb;
        },
      }),
      tool({
        name: "link_entities",
        description: "Record a relationship between two entities, e.g. Bob -[CEO of]-> Acme.",
        parameters: LINK_ENTITIES,
        execute: async (args, ctx) => {
          const s = scope(ctx);
          return s ? this.linkEntities(s, args) : noDb;
        },
      }),
      tool({
        name: "search_entities",
        description: "Find recorded entities by text in their name, description or facts.",
        parameters: SEARCH_ENTITIES,
        execute: async (args, ctx) => {
          const s = scope(ctx);
          if (!s) return noDb;
          const found = await this.searchEntities(s, args);
          return found.length ? found.slice(0, 10).map(entityText).join("\n\n") : "No entities matching.";
        },
      }),
      tool({
        name: "forget",
        description: "Forget an entity, or only one of its facts.",
        parameters: FORGET,
        execute: async (args, ctx) => {
          const s = scope(ctx);
          return s ? this.forget(s, args) : noDb;
        },
      }),
    ];
  }

  /** Agentic only, as agno: the agent records entities through its tools. */
  async process(_input: ProcessInput): Promise<void> {}
}

function toEntity(row: LearningRecord): EntityMemory {
  const c = row.content as Partial<EntityMemory>;
  return {
    ...c,
    entity_id: c.entity_id ?? row.entity_id ?? "",
    entity_type: c.entity_type ?? row.entity_type ?? UNKNOWN_TYPE,
    properties: c.properties ?? {},
    aliases: c.aliases ?? [],
    facts: c.facts ?? [],
    events: c.events ?? [],
    relationships: c.relationships ?? [],
  };
}

function entityText(e: EntityMemory): string {
  const lines = [`## ${e.name ?? e.entity_id} (${e.entity_type})`];
  if (e.description) lines.push(e.description);
  for (const f of e.facts) lines.push(`- ${f.content}`);
  for (const ev of e.events) lines.push(`- [event${ev.date ? ` ${ev.date}` : ""}] ${ev.content}`);
  for (const r of e.relationships)
    lines.push(
      r.direction === "outgoing" ? `- ${r.relation} -> ${r.entity_id}` : `- ${r.entity_id} -> ${r.relation} (this)`,
    );
  return lines.join("\n");
}
