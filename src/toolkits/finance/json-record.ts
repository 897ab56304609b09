/** A provider's JSON value as an object (not an array), or null: what both providers read answers with. */
export const jsonRecord = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
