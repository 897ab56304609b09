import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { nextOccurrence, validateCron, validateTimezone } from "../../src/scheduler/cron.js";

const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (epoch: number | null) => (epoch === null ? null : new Date(epoch * 1000).toISOString());

/** Every occurrence in [from, to), by asking for the next one after the previous, as the tick does. */
function occurrences(expr: string, tz: string, from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = nextOccurrence(expr, tz, at(from) - 1); t !== null && t < at(to); t = nextOccurrence(expr, tz, t))
    out.push(iso(t)!);
  return out;
}

describe("cron math (croner, 5 fields, IANA timezones)", () => {
  it("computes the next occurrence strictly after a time, in the schedule's timezone", () => {
    expect(iso(nextOccurrence("0 8 * * 1-5", "Europe/Berlin", at("2026-06-05T06:00:00Z")))).toBe(
      "2026-06-08T06:00:00.000Z",
    ); // Fri 08:00 CEST passed: Monday
    expect(iso(nextOccurrence("*/15 * * * *", "UTC", at("2026-06-05T06:00:00Z")))).toBe("2026-06-05T06:15:00.000Z");
    expect(iso(nextOccurrence("0 0 1 * *", "Asia/Kolkata", at("2026-06-05T00:00:00Z")))).toBe(
      "2026-06-30T18:30:00.000Z",
    );
    expect(nextOccurrence("0 0 30 2 *", "UTC", at("2026-06-05T00:00:00Z"))).toBeNull();
  });

  it("runs a 02:30 daily once on a spring-forward day (at the first minute after the gap), and on the days around it", () => {
    // America/New_York skips 02:00-03:00 on 2026-03-08.
    expect(occurrences("30 2 * * *", "America/New_York", "2026-03-07T00:00:00Z", "2026-03-10T12:00:00Z")).toEqual([
      "2026-03-07T07:30:00.000Z", // 02:30 EST
      "2026-03-08T07:00:00.000Z", // 03:00 EDT: 02:30 does not exist that day; it runs once, not zero times
      "2026-03-09T06:30:00.000Z", // 02:30 EDT
      "2026-03-10T06:30:00.000Z",
    ]);
    // Europe/Berlin skips 02:00-03:00 on 2026-03-29.
    expect(occurrences("30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00Z", "2026-03-30T12:00:00Z")).toHaveLength(3);
  });

  it("runs a time that a fall-back repeats once, not twice", () => {
    // America/New_York repeats 01:00-02:00 on 2026-11-01 (EDT, then EST).
    expect(occurrences("30 1 * * *", "America/New_York", "2026-10-31T00:00:00Z", "2026-11-02T12:00:00Z")).toEqual([
      "2026-10-31T05:30:00.000Z",
      "2026-11-01T05:30:00.000Z", // 01:30 EDT; the second 01:30 (06:30Z, EST) does not run again
      "2026-11-02T06:30:00.000Z",
    ]);
  });

  it("keeps an interval schedule's real-time cadence through a fall-back hour", () => {
    const hourly = occurrences("0 * * * *", "America/New_York", "2026-11-01T03:30:00Z", "2026-11-01T08:30:00Z");
    expect(hourly).toEqual(["04:00", "05:00", "06:00", "07:00", "08:00"].map((h) => `2026-11-01T${h}:00.000Z`));
  });

  it("refuses what is not a 5-field expression or an IANA timezone, naming the field", () => {
    const now = at("2026-06-05T00:00:00Z");
    for (const bad of [
      "* * * * * *",
      "* * * *",
      "@daily",
      "61 * * * *",
      "* 24 * * *",
      "0 0 * * MONDAY",
      "a b c d e",
      "",
    ]) {
      expect(() => validateCron(bad, "UTC", now), bad).toThrow(ValidationError);
      try {
        validateCron(bad, "UTC", now);
      } catch (e) {
        expect((e as ValidationError).field).toBe("cron_expr");
      }
    }
    expect(() => validateCron("0 0 30 2 *", "UTC", now)).toThrow(/never fires/);
    expect(() => validateTimezone("Mars/Olympus_Mons")).toThrow(/not an IANA timezone/);
    expect(() => validateCron("0 8 * * *", "Nowhere/City", now)).toThrow(
      expect.objectContaining({ field: "timezone" }),
    );
    expect(validateCron("0 8 * * MON-FRI", "Pacific/Chatham", now)).toBeGreaterThan(now);
  });
});
