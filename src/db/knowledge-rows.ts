import { ValidationError } from "../errors.js";
import type { ContentRecord, ContentStatus, ListContentsOptions } from "../knowledge/content.js";
import { resolvePage } from "./pagination.js";
import { validateId } from "./validate.js";

const STATUSES: readonly ContentStatus[] = ["processing", "completed", "failed"];
export const CONTENT_SORT_COLUMNS = ["created_at", "updated_at", "name"] as const;

/** A content row's checks, shared by every KnowledgeContentStore adapter so they refuse the same rows. */
export function validateContentRow(row: ContentRecord): ContentRecord {
  validateId(row.id, "id");
  if (row.user_id !== null) validateId(row.user_id, "user_id");
  if (typeof row.name !== "string" || row.name.length > 255)
    throw new ValidationError("name must be a string of at most 255 characters", "name");
  if (typeof row.description !== "string" || row.description.length > 10_000)
    throw new ValidationError("description must be a string of at most 10,000 characters", "description");
  if (row.metadata !== null && (typeof row.metadata !== "object" || Array.isArray(row.metadata)))
    throw new ValidationError("metadata must be an object", "metadata");
  if (row.status !== null && !STATUSES.includes(row.status))
    throw new ValidationError(`status must be one of ${STATUSES.join(", ")}`, "status");
  return row;
}

/** Resolved paging and sort of a contents listing. */
export function contentListQuery(opts: ListContentsOptions): {
  limit: number;
  offset: number;
  sortBy: (typeof CONTENT_SORT_COLUMNS)[number];
  desc: boolean;
} {
  const { limit, offset } = resolvePage({ limit: opts.limit, page: opts.page });
  const sortBy = opts.sortBy ?? "created_at";
  if (!CONTENT_SORT_COLUMNS.includes(sortBy))
    throw new ValidationError(`sort_by must be one of ${CONTENT_SORT_COLUMNS.join(", ")}`, "sort_by");
  if (opts.sortOrder !== undefined && opts.sortOrder !== "asc" && opts.sortOrder !== "desc")
    throw new ValidationError("sort_order must be asc or desc", "sort_order");
  if (opts.userId) validateId(opts.userId, "user_id");
  return { limit, offset, sortBy, desc: (opts.sortOrder ?? "desc") === "desc" };
}

/** Whether a row is visible to a reader scope: undefined every row, a user own + shared, null shared only. */
export function contentVisible(row: { user_id: string | null }, userId: string | null | undefined): boolean {
  if (userId === undefined) return true;
  return row.user_id === null || row.user_id === userId;
}

/** Whether a scope may change a row: a user only their own rows; shared rows only an unscoped (admin) caller. */
export function contentWritable(row: { user_id: string | null }, userId: string | null | undefined): boolean {
  if (userId === undefined) return true;
  return row.user_id === userId;
}
