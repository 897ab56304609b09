import { sql, type SQL } from "drizzle-orm";
import type { FilterExpr } from "../../filters.js";

const json = (v: unknown) => JSON.stringify(v);

/** `meta_data[key]` equals `value`, or is a list holding it: jsonb containment, served by the GIN index. */
function eq(col: SQL, key: string, value: unknown): SQL {
  return sql`(${col} @> ${json({ [key]: value })}::jsonb OR ${col} @> ${json({ [key]: [value] })}::jsonb)`;
}

const CMP: Record<string, string> = { GT: ">", GTE: ">=", LT: "<", LTE: "<=" };

/**
 * A (validated, normalised) filter expression as a SQL predicate on the jsonb column `col`, with
 * the in-memory adapter's semantics (filters.ts matchesFilter). Keys and values are bound
 * parameters; comparisons only hold for numeric values (CASE, since SQL does not promise to
 * evaluate AND's left side first).
 */
export function filterSql(col: SQL, f: FilterExpr | undefined): SQL {
  if (!f) return sql`TRUE`;
  switch (f.op) {
    case "AND":
      return sql`(${sql.join(
        f.conditions.map((c) => filterSql(col, c)),
        sql` AND `,
      )})`;
    case "OR":
      return sql`(${sql.join(
        f.conditions.map((c) => filterSql(col, c)),
        sql` OR `,
      )})`;
    case "NOT":
      return sql`(NOT ${filterSql(col, f.condition)})`;
    case "EQ":
      return eq(col, f.key, f.value);
    case "NEQ":
      return sql`(NOT ${eq(col, f.key, f.value)})`;
    case "IN":
      return f.values.length
        ? sql`(${sql.join(
            f.values.map((v) => eq(col, f.key, v)),
            sql` OR `,
          )})`
        : sql`FALSE`;
    case "CONTAINS":
      return sql`(CASE WHEN jsonb_typeof(${col} -> ${f.key}::text) = 'string' THEN strpos(${col} ->> ${f.key}::text, ${String(f.value)}::text) > 0 ELSE FALSE END)`;
    case "STARTSWITH":
      return sql`(CASE WHEN jsonb_typeof(${col} -> ${f.key}::text) = 'string' THEN left(${col} ->> ${f.key}::text, length(${String(f.value)}::text)) = ${String(f.value)}::text ELSE FALSE END)`;
    default:
      return sql`(CASE WHEN jsonb_typeof(${col} -> ${f.key}::text) = 'number' THEN (${col} ->> ${f.key}::text)::numeric ${sql.raw(CMP[f.op]!)} ${f.value as number}::numeric ELSE FALSE END)`;
  }
}
