import { z } from "zod";
import { agnoObject } from "./agno-object.js";

/** agno's `PaginationInfo`: every field has a default, so every field is in the JSON. */
export const paginationInfoSchema = agnoObject(
  { model: "PaginationInfo", file: "os/schema.py" },
  {
    page: z.int().min(0).describe("This page's number, from 1"),
    limit: z.int().min(1).describe("Items per page"),
    total_pages: z.int().min(0).describe("How many pages there are (0 when there is nothing)"),
    total_count: z.int().min(0).describe("How many items there are in all"),
    search_time_ms: z.number().min(0).describe("How long the search took, in milliseconds"),
  },
);

/**
 * agno's generic `PaginatedResponse[T]` for one item model, named as FastAPI names the
 * instantiation (`PaginatedResponse_<item>_`), so `/openapi.json` has one component per item type.
 */
export function paginated<T extends z.ZodType>(item: T) {
  const itemModel = (z.globalRegistry.get(item) as { id?: string } | undefined)?.id;
  if (!itemModel) throw new TypeError("paginated(): the item schema must be one of agno's models (agnoObject)");
  return agnoObject(
    { model: `PaginatedResponse_${itemModel}_`, file: "os/schema.py" },
    { data: z.array(item).describe("This page's items"), meta: paginationInfoSchema },
  );
}

/** The `meta` of a page as agno computes it: `total_pages` rounds up, and is 0 when nothing matched. */
export function paginationInfo(p: {
  page: number;
  limit: number;
  total_count: number;
}): z.infer<typeof paginationInfoSchema> {
  return {
    page: p.page,
    limit: p.limit,
    total_pages: Math.ceil(p.total_count / p.limit),
    total_count: p.total_count,
    search_time_ms: 0,
  };
}
