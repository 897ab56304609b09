import type { Memories, MemoryEntry, UserProfile } from "./schemas.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isEntry = (m: unknown): m is MemoryEntry =>
  isObject(m) && typeof m.content === "string" && (m.id === undefined || typeof m.id === "string");
const PROFILE_FIELDS = ["name", "preferred_name"] as const;

/**
 * Why a learning's content does not have the shape its type's store reads (null when it does,
 * or when the type is not one a store reads this way). A caller can set content through the
 * routes; a wrong shape there is refused so it never reaches a run.
 */
export function learningContentProblem(learningType: string, content: unknown): string | null {
  if (!isObject(content)) return "content must be an object";
  if (learningType === "user_memory") {
    if (content.memories === undefined) return null;
    if (!Array.isArray(content.memories)) return "content.memories must be a list";
    const at = content.memories.findIndex((m) => !isEntry(m));
    return at < 0 ? null : `content.memories[${at}] must be an object with a string content (and a string id)`;
  }
  if (learningType === "user_profile") {
    const field = PROFILE_FIELDS.find(
      (f) => content[f] !== undefined && content[f] !== null && typeof content[f] !== "string",
    );
    return field ? `content.${field} must be a string or null` : null;
  }
  return null;
}

/**
 * A stored `user_memory` content as the store reads it: memories of the wrong shape (a row
 * written before validation, or by hand in the database) are dropped, so one bad row cannot
 * fail every run of its user.
 */
export function memoriesOf(content: unknown): Memories | null {
  if (!isObject(content)) return null;
  const memories = Array.isArray(content.memories)
    ? content.memories.filter(isEntry).map((m) => ({ ...m, id: typeof m.id === "string" ? m.id : "" }))
    : [];
  return { ...(content as unknown as Memories), memories };
}

/** A stored `user_profile` content as the store reads it: profile fields that are not text are left out. */
export function profileOf(content: unknown): UserProfile | null {
  if (!isObject(content)) return null;
  const profile = { ...content } as UserProfile;
  for (const f of PROFILE_FIELDS) if (typeof profile[f] !== "string") delete profile[f];
  return profile;
}
