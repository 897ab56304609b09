import { z } from "zod";
import { agnoObject } from "./agno-object.js";

const SOURCE = "os/schema.py";

/** agno's `PaginationInfo`: every field has a default, so every field is always in the answer. */
export const paginationInfoSchema = agnoObject(
  { model: "PaginationInfo", file: SOURCE },
  {
    page: z.number().int().min(0).describe("The page answered, counted from 1"),
    limit: z.number().int().min(1).describe("Items per page"),
    total_pages: z.number().int().min(0).describe("Pages in all, at this limit"),
    total_count: z.number().int().min(0).describe("Items in all that match the filters"),
    search_time_ms: z.number().min(0).describe("How long the search took, in milliseconds"),
  },
);

/**
 * agno's generic `PaginatedResponse[T]` for one item model: `data` (a page of `item`) and `meta`.
 * Named as pydantic names a generic model's OpenAPI component, `PaginatedResponse_<Item>_`, so
 * each item type is its own component.
 */
export function paginated<T extends z.ZodType>(item: T) {
  const itemModel = (z.globalRegistry.get(item) as { id?: string } | undefined)?.id;
  if (!itemModel) throw new TypeError("paginated(item): the item must be one of agno's models (built with agnoObject)");
  return agnoObject(
    { model: `PaginatedResponse_${itemModel}_`, file: SOURCE },
    {
      data: z.array(item).describe("The items of this page"),
      meta: paginationInfoSchema,
    },
  );
}
