import { Cron } from "croner";
import { ValidationError, errorMessage } from "../errors.js";

/**
 * Cron math for schedules: classic 5-field expressions (minute hour day-of-month month
 * day-of-week) read in an IANA timezone. croner does the calendar work, including DST: a
 * fixed-time job (single minute and hour, like `30 2 * * *`) whose time falls in a spring-forward
 * gap runs once at the first valid minute after it, and once (the first time) when a fall-back
 * repeats it. Interval jobs (`*\/15 * * * *`) keep their real-time cadence across both.
 */

/** Parsed expressions by `expr|tz`: the claim path computes thousands of next runs per tick. */
const parsed = new Map<string, Cron>();
const MAX_CACHED = 1000;

/** Throws a ValidationError naming the problem unless `tz` is an IANA timezone this runtime knows. */
export function validateTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return tz;
  } catch {
    throw new ValidationError(
      `timezone ${JSON.stringify(tz)} is not an IANA timezone (e.g. "UTC", "Europe/Berlin")`,
      "timezone",
    );
  }
}

function cronOf(expr: string, tz: string): Cron {
  const key = `${expr}|${tz}`;
  let cron = parsed.get(key);
  if (!cron) {
    // Nicknames (@daily) and seconds/years fields are refused: the schema stores 5 fields.
    const fields = expr.trim().split(/\s+/);
    if (fields.length !== 5 || fields.some((f) => f.startsWith("@"))) {
      throw new ValidationError(
        `cron_expr ${JSON.stringify(expr)} must have 5 fields (minute hour day month weekday), got ${fields.length}`,
        "cron_expr",
      );
    }
    try {
      // No callback: croner only parses and computes dates, it never arms a timer.
      cron = new Cron(expr, { timezone: validateTimezone(tz), mode: "5-part" });
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      throw new ValidationError(`cron_expr ${JSON.stringify(expr)} is not valid: ${errorMessage(error)}`, "cron_expr");
    }
    if (parsed.size >= MAX_CACHED) parsed.clear();
    parsed.set(key, cron);
  }
  return cron;
}

/**
 * The first occurrence strictly after `afterEpochSeconds`, in epoch seconds, or null when the
 * expression never fires again (e.g. `0 0 30 2 *`). Throws ValidationError on a bad expression
 * or timezone.
 *
 * @example
 * nextOccurrence("30 2 * * *", "America/New_York", Date.parse("2026-03-07T12:00:00Z") / 1000)
 * // 2026-03-08T07:00:00Z: 03:00 EDT, the first minute after the skipped 02:30
 */
export function nextOccurrence(expr: string, tz: string, afterEpochSeconds: number): number | null {
  const next = cronOf(expr, tz).nextRun(new Date(afterEpochSeconds * 1000));
  return next ? Math.floor(next.getTime() / 1000) : null;
}

/** Checks an expression and timezone for a schedule: valid, and firing at least once more. */
export function validateCron(expr: string, tz: string, nowEpochSeconds: number): number {
  const next = nextOccurrence(expr, tz, nowEpochSeconds);
  if (next === null) throw new ValidationError(`cron_expr ${JSON.stringify(expr)} never fires in ${tz}`, "cron_expr");
  return next;
}
