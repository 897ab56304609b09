import { BadRequestError } from "../errors.js";

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A time a trace read is bounded by, as the UTC ISO string stored times are compared with (agno's
 * parse_datetime_utc: an offset is honoured, a time without one is UTC). Anything that is not an
 * ISO 8601 date or time is a 400 naming `field`, as agno answers it.
 */
export function traceTime(text: string, field: string): string {
  const trimmed = text.trim();
  let ms = Number.NaN;
  if (ISO.test(trimmed)) {
    const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) && trimmed.length > 10;
    const fixed = trimmed.replace(" ", "T").replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
    ms = Date.parse(hasZone || fixed.length === 10 ? fixed : `${fixed}Z`);
  }
  if (Number.isNaN(ms)) {
    throw new BadRequestError(
      `Invalid ${field} format. Use ISO 8601 format (e.g., '2025-11-19T10:00:00Z' or '2025-11-19T10:00:00+05:30')`,
    );
  }
  return new Date(ms).toISOString();
}
