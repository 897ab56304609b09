import { z } from "zod";
import { tool, Toolkit } from "../../tools/tool.js";
import { describeInstant, isTimeZone, parseDateTime } from "./zoned.js";

const zone = z
  .string()
  .refine(isTimeZone, { message: "not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)" });

const dateTimeText = z
  .string()
  .max(64)
  .describe("ISO 8601 date or date-time, e.g. 2026-03-01, 2026-03-01T14:30 or 2026-03-01T14:30:00Z");

const DAY = 86_400_000;
/** Durations past this many days are refused: Date's range ends near 275,000 years. */
const MAX_DAYS = 365_000;

export interface DateTimeToolsOptions {
  /** the zone used when the model names none (default UTC) */
  defaultTimezone?: string;
  /** the clock (tests pin it) */
  now?: () => number;
  include?: string[];
  exclude?: string[];
}

function instantOf(text: string, tz: string): number {
  const t = parseDateTime(text, tz);
  if (t === null) throw new Error(`${JSON.stringify(text)} is not an ISO 8601 date or date-time`);
  return t;
}

/**
 * The current date and time, time zone conversion and date arithmetic. agno has no such toolkit
 * (its agents get the time through `add_datetime_to_context`); this one lets the model ask for it
 * in any zone and compute with dates instead of guessing.
 */
export class DateTimeTools extends Toolkit {
  constructor(opts: DateTimeToolsOptions = {}) {
    const fallback = opts.defaultTimezone ?? "UTC";
    if (!isTimeZone(fallback)) throw new TypeError(`unknown time zone ${JSON.stringify(fallback)}`);
    const now = opts.now ?? Date.now;
    super({
      id: "date_time",
      name: "date_time",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "get_current_time",
          description: "The current date and time in a time zone (default: the deployment's).",
          parameters: z.object({ timezone: zone.optional().describe("IANA time zone, e.g. Europe/Paris") }),
          execute: ({ timezone }) => describeInstant(now(), timezone ?? fallback),
        }),
        tool({
          name: "convert_timezone",
          description:
            "Convert a date-time to another time zone. A date-time without an offset is read in from_timezone.",
          parameters: z.object({
            datetime: dateTimeText,
            to_timezone: zone,
            from_timezone: zone.optional(),
          }),
          execute: ({ datetime, to_timezone, from_timezone }) =>
            describeInstant(instantOf(datetime, from_timezone ?? fallback), to_timezone),
        }),
        tool({
          name: "add_duration",
          description: "Add (or, with negative numbers, subtract) a duration to a date-time.",
          parameters: z.object({
            datetime: dateTimeText,
            days: z.number().min(-MAX_DAYS).max(MAX_DAYS).default(0),
            hours: z
              .number()
              .min(-24 * MAX_DAYS)
              .max(24 * MAX_DAYS)
              .default(0),
            minutes: z
              .number()
              .min(-1440 * MAX_DAYS)
              .max(1440 * MAX_DAYS)
              .default(0),
            timezone: zone.optional().describe("the zone to read and answer in"),
          }),
          execute: ({ datetime, days, hours, minutes, timezone }) => {
            const tz = timezone ?? fallback;
            const at = instantOf(datetime, tz) + days * DAY + hours * 3_600_000 + minutes * 60_000;
            if (!Number.isFinite(new Date(at).getTime())) throw new Error("the result is out of range");
            return describeInstant(at, tz);
          },
        }),
        tool({
          name: "days_between",
          description: "The number of calendar days from start_date to end_date (negative when end is earlier).",
          parameters: z.object({
            start_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD"),
            end_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD"),
          }),
          execute: ({ start_date, end_date }) => {
            const days = (instantOf(end_date, "UTC") - instantOf(start_date, "UTC")) / DAY;
            return { start_date, end_date, days };
          },
        }),
      ],
    });
  }
}
