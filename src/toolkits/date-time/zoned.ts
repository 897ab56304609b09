/** Whether the runtime's Intl knows this IANA time zone (or "UTC"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
    formatters.set(zone, f);
  }
  return f;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: string;
}

function wallClock(instant: number, zone: string): WallClock {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday ?? "",
  };
}

/** The zone's offset from UTC at that instant, in minutes. */
function offsetMinutes(instant: number, zone: string): number {
  const w = wallClock(instant, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** An instant as the model reads it in a zone: ISO 8601 with the zone's offset, the weekday and the zone. */
export function describeInstant(instant: number, zone: string) {
  const w = wallClock(instant, zone);
  const off = offsetMinutes(instant, zone);
  const sign = off < 0 ? "-" : "+";
  const iso =
    `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.trunc(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return { datetime: iso, timezone: zone, weekday: w.weekday, unix_timestamp: Math.floor(instant / 1000) };
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * The instant a date-time names: with an offset or `Z` it is absolute; without one it is a wall
 * clock in `zone` (a time skipped by a DST change moves forward, as most libraries do). Null when
 * it is not ISO 8601.
 */
export function parseDateTime(text: string, zone: string): number | null {
  const local = LOCAL.exec(text.trim());
  if (!local) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim())) return null;
    const t = Date.parse(text.trim());
    return Number.isNaN(t) ? null : t;
  }
  const [, y, mo, d, h = "0", mi = "0", s = "0"] = local;
  const guess = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(guess) || new Date(guess).getUTCDate() !== Number(d)) return null;
  const first = guess - offsetMinutes(guess, zone) * 60_000;
  return guess - offsetMinutes(first, zone) * 60_000;
}
