import { sql, type SQL } from "drizzle-orm";

/**
 * Ids as the inside of a parenthesised list, one parameter each: `IN (${idList(ids)})`. A literal
 * list lets the planner read the rows by their keys; a join with a recordset or a subquery (whose
 * size it guesses) may make it scan the whole table instead.
 */
export const idList = (ids: string[]): SQL =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
