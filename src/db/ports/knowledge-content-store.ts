import type { ContentPage, ContentRecord, ListContentsOptions } from "../../knowledge/content.js";

/**
 * agno's knowledge contents table (`agno_knowledge`): one row per content a knowledge base
 * ingested, with its processing status. `userId` scopes reads and writes: undefined is every
 * row (an admin), a string that user's rows and the shared ones (user_id NULL), null shared only.
 * Another user's row is NotFoundError, as if it were missing.
 */
export interface KnowledgeContentStore {
  upsertKnowledgeContent(row: ContentRecord): Promise<ContentRecord>;
  getKnowledgeContent(id: string, opts?: { userId?: string | null }): Promise<ContentRecord | null>;
  listKnowledgeContents(opts: ListContentsOptions): Promise<ContentPage>;
  /** NotFoundError when unknown or not the caller's to change */
  deleteKnowledgeContent(id: string, opts?: { userId?: string | null }): Promise<void>;
  /** how many rows were deleted; a string userId deletes that user's rows only, never shared ones */
  deleteKnowledgeContents(opts: { linkedTo?: string; userId?: string | null }): Promise<number>;
}
