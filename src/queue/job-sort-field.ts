import { JOB_SORT_FIELDS, type JobSortField } from "./types.js";

/** The column `sortBy` names (default `created_at`); undefined when it names none, and the listing is by id alone. */
export function jobSortField(sortBy: string | undefined): JobSortField | undefined {
  if (sortBy === undefined) return "created_at";
  return (JOB_SORT_FIELDS as readonly string[]).includes(sortBy) ? (sortBy as JobSortField) : undefined;
}
