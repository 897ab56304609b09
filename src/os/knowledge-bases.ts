import type { Context } from "hono";
import type { Db } from "../db/port.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { OSEnv } from "./context.js";
import { dbFor } from "./routes/sessions.js";

/** Where knowledge contents are recorded (agno's default knowledge table), as `/config` names it. */
export const KNOWLEDGE_TABLE = "agno_knowledge";

/**
 * The knowledge bases an AgentOS serves, as agno's AgentOS collects them: those given to it and
 * those attached to its agents and teams, each once (by identity). Two with the same id would
 * be one route target for both, so that is refused when the OS is built.
 */
export function collectKnowledge(given: readonly Knowledge[], components: readonly object[]): Knowledge[] {
  const seen = new Set<Knowledge>();
  for (const kb of [...components.map((c) => (c as { knowledge?: unknown }).knowledge), ...given])
    if (isKnowledge(kb) && !seen.has(kb)) seen.add(kb);
  const all = [...seen];
  const ids = all.map((k) => k.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup !== undefined)
    throw new TypeError(`two knowledge bases have the id ${JSON.stringify(dup)}: give each its own id`);
  return all;
}

function isKnowledge(value: unknown): value is Knowledge {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Knowledge).withDb === "function" &&
    typeof (value as Knowledge).id === "string"
  );
}

/**
 * agno's get_knowledge_instance: the only knowledge base when there is one and none is named;
 * else the one `knowledge_id` names (404 if none); `db_id` picks the database its contents are
 * in (every knowledge base records its contents in the request's database). Returned bound to
 * that database.
 */
export function knowledgeFor(
  c: Context<OSEnv>,
  bases: readonly Knowledge[],
  q: { db_id?: string | null; knowledge_id?: string | null },
): { kb: Knowledge; bound: Knowledge; db: Db } {
  const db = dbFor(c, q.db_id ?? undefined);
  let kb: Knowledge | undefined;
  if (q.knowledge_id) {
    kb = bases.find((k) => k.id === q.knowledge_id);
    if (!kb) throw new NotFoundError(`Knowledge base '${q.knowledge_id}' not found`);
  } else if (bases.length === 1) {
    kb = bases[0]!;
  } else {
    throw new BadRequestError(
      bases.length === 0
        ? "no knowledge base is served by this AgentOS"
        : `knowledge_id query parameter is required when using multiple knowledge bases. Available IDs: ${JSON.stringify(bases.map((k) => k.id))}`,
    );
  }
  return { kb, bound: kb.withDb(db), db };
}

/**
 * Makes sure a knowledge base's vector store is there before a route uses it (creating its
 * table once per isolate and database). Where the `vector` extension is missing this throws
 * the vector store's typed 503, which names it.
 */
export function vectorStoreReadiness() {
  const ready = new Map<string, Promise<void>>();
  return (kb: Knowledge, bound: Knowledge, db: Db): Promise<void> => {
    const key = `${kb.id}\n${db.id}`;
    let pending = ready.get(key);
    if (!pending) {
      pending = bound.vectorDb.create();
      ready.set(key, pending);
      pending.catch(() => ready.delete(key));
    }
    return pending;
  };
}

/** `/config`'s `knowledge` block (agno's `_get_knowledge_config`): each knowledge base in each database, and the databases with the knowledge table. */
export function knowledgeConfigOf(bases: readonly Knowledge[], dbIds: readonly string[]) {
  const dbId = dbIds[0];
  if (dbId === undefined || bases.length === 0) return { dbs: [], knowledge_instances: [] };
  return {
    dbs: [{ db_id: dbId, domain_config: { display_name: dbId }, tables: [KNOWLEDGE_TABLE] }],
    knowledge_instances: bases.map((kb) => ({
      id: kb.id,
      name: kb.name,
      ...(kb.description !== undefined ? { description: kb.description } : {}),
      db_id: dbId,
      table: KNOWLEDGE_TABLE,
    })),
  };
}
