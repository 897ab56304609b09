import { ValidationError } from "../errors.js";
import type { Page, PageOptions } from "./types.js";

/** The largest page any storage read returns; asking for more is an error, not a silent cap. */
export const MAX_PAGE_LIMIT = 1000;
/** The page size when none is asked for, so no read is unbounded by accident. */
export const DEFAULT_PAGE_LIMIT = 100;

export interface ResolvedPage {
  limit: number;
  page: number;
  offset: number;
}

/**
 * Strict pagination (SPEC R4): `page` without `limit` and `page < 1` are errors, `limit` is
 * bounded, and both must be whole numbers.
 */
export function resolvePage(opts: PageOptions): ResolvedPage {
  const { limit, page } = opts;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT)) {
    throw new ValidationError(
      `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got ${String(limit)}`,
      "limit",
    );
  }
  if (page !== undefined) {
    if (limit === undefined) throw new ValidationError("page needs limit: pass both or neither", "page");
    if (!Number.isInteger(page) || page < 1) {
      throw new ValidationError(`page must be a whole number of at least 1, got ${String(page)}`, "page");
    }
  }
  const size = limit ?? DEFAULT_PAGE_LIMIT;
  const number = page ?? 1;
  return { limit: size, page: number, offset: (number - 1) * size };
}

/** A Page of `data` (this page's items) out of `totalCount`, as every list read answers it. */
export function pageOf<T>(
  data: T[],
  totalCount: number,
  { page, limit }: Pick<ResolvedPage, "page" | "limit">,
): Page<T> {
  return { data, page, limit, total_count: totalCount, total_pages: Math.ceil(totalCount / limit) };
}

export function sortOrderOf(value: unknown): "asc" | "desc" {
  if (value === undefined || value === "desc") return "desc";
  if (value === "asc") return "asc";
  throw new ValidationError(`sortOrder must be "asc" or "desc", got ${String(value)}`, "sort_order");
}
