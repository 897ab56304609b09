import { sha256Hex } from "../sha256.js";

/** The sharing namespace of entity memory when none is configured or given. */
export const DEFAULT_LEARNING_NAMESPACE = "global";

/**
 * Types whose rows are keyed by an id derived from their identity fields (buildLearningId), so
 * that whatever writes them (a store, the REST create) lands on the same row.
 */
export const IDENTITY_KEYED_LEARNING_TYPES: ReadonlySet<string> = new Set([
  "user_profile",
  "user_memory",
  "session_context",
  "entity_memory",
]);

/**
 * Namespaces shaped like the digest segment of a `namespace="user"` entity key: a row stored
 * under one would reproduce some user's key (the bare digest directly, a longer one once the
 * type and id segments shift, which an underscore in either allows), so they are refused.
 */
export const RESERVED_ENTITY_NAMESPACE = /^user_[0-9a-f]{16}(_[\s\S]*)?$/;

/**
 * The fixed-width digest of a user id in a `namespace="user"` entity key: free-text segments
 * around it cannot shift its boundary, and raw user ids (often emails) stay out of ids that
 * appear in URLs and logs.
 */
export async function userKeySegment(userId: string): Promise<string> {
  return (await sha256Hex(String(userId))).slice(0, 16);
}

export interface LearningIdentity {
  userId?: string | null;
  sessionId?: string | null;
  entityId?: string | null;
  entityType?: string | null;
  namespace?: string | null;
}

/**
 * The deterministic primary key of an identity-keyed learning (agno's build_learning_id);
 * null for types keyed by their own id (decision_log) or when a required field is missing.
 * Under `namespace="user"` the entity key embeds a digest of the user: two users' entities of
 * the same name and type are distinct rows.
 */
export async function buildLearningId(learningType: string, identity: LearningIdentity): Promise<string | null> {
  const id = await rawLearningId(learningType, identity);
  return id === null ? null : boundedLearningId(id);
}

/** The bound of a learning_id (the column's and the routes'). */
export const MAX_LEARNING_ID_LENGTH = 255;

/**
 * An id within MAX_LEARNING_ID_LENGTH: a short one as agno builds it, a longer one (a long user
 * id or entity key) cut and ended with the digest of the whole, so it stays deterministic and
 * distinct instead of failing every write for that identity.
 */
async function boundedLearningId(id: string): Promise<string> {
  if (id.length <= MAX_LEARNING_ID_LENGTH) return id;
  const digest = await sha256Hex(id);
  return `${id.slice(0, MAX_LEARNING_ID_LENGTH - digest.length - 1)}_${digest}`;
}

async function rawLearningId(learningType: string, identity: LearningIdentity): Promise<string | null> {
  const { userId, sessionId, entityId, entityType } = identity;
  switch (learningType) {
    case "user_profile":
      return userId ? `user_profile_${userId}` : null;
    case "user_memory":
      return userId ? `memories_${userId}` : null;
    case "session_context":
      return sessionId ? `session_context_${sessionId}` : null;
    case "entity_memory": {
      if (!entityId || !entityType) return null;
      const namespace = identity.namespace || DEFAULT_LEARNING_NAMESPACE;
      if (namespace === "user") {
        if (!userId) return null;
        return `entity_user_${await userKeySegment(userId)}_${entityType}_${entityId}`;
      }
      return `entity_${namespace}_${entityType}_${entityId}`;
    }
    default:
      return null;
  }
}

/** Whether two owners are the same user; null (no owner) matches nothing, not even null. */
export function sameUser(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false;
  return String(a) === String(b);
}

/**
 * A stable entity id from a display name: accents folded, letters of any script kept, every
 * other run of characters one underscore.
 */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/c\+\+/g, "cpp")
    .replace(/c#/g, "csharp")
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}

/** The text of a content's values only, casefolded: a search must not match key names. */
export function contentValuesText(content: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") Object.values(node).forEach(walk);
    else if (node !== null && node !== undefined) parts.push(String(node));
  };
  walk(content);
  return parts.join("\n").toLowerCase();
}

/** Whether the content's values hold the query, spaces, underscores and hyphens alike. */
export function valuesMatchQuery(content: unknown, query: string): boolean {
  const fold = (s: string) => s.toLowerCase().replace(/[ \t_-]+/g, " ");
  const needle = fold(query).trim();
  return needle !== "" && fold(contentValuesText(content)).includes(needle);
}

/** ISO time, as agno stamps its learning content. */
export const isoNow = (): string => new Date().toISOString();

/** A short random id (memory, fact and event ids). */
export const shortId = (): string => crypto.randomUUID().slice(0, 8);
