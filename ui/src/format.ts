/** A value as text: strings as they are, anything else as indented JSON. */
export const text = (v: unknown) => (v == null ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 2));

/** A time from the API (epoch seconds or an ISO string) in the reader's locale. */
export const when = (v: unknown) => {
  if (v == null) return "";
  const date = typeof v === "number" ? new Date(v * 1000) : new Date(String(v));
  return Number.isNaN(date.getTime()) ? String(v) : date.toLocaleString();
};

/** An error's message, for an alert. */
export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
