/**
 * The cron trigger in local development. `wrangler dev` never fires a Worker's crons by itself
 * (it only serves a route for firing them by hand), so schedules, queue
 * wake-ups and pruning would wait for someone to call it. This fires each cron of the project's
 * config at the start of every minute it matches, in UTC, as Cloudflare does once deployed:
 * through that same endpoint of the runtime, so the Worker's own `scheduled` handler runs.
 */
import { readFileSync } from "node:fs";
import { errorMessage } from "../../errors.js";
import { nextOccurrence } from "../../scheduler/cron.js";

/** Fired when the config's crons cannot be read: the project templates' trigger, every minute. */
export const EVERY_MINUTE = "* * * * *";

/**
 * The crons of a wrangler config (`[triggers] crons = [...]` in TOML, `triggers.crons` in JSON);
 * null when the file says nothing this can read.
 */
export function configuredCrons(configPath: string): string[] | null {
  let text: string;
  try {
    text = readFileSync(configPath, "utf8");
  } catch {
    return null;
  }
  if (/\.jsonc?$/.test(configPath)) {
    try {
      // Line comments of a .jsonc go first; a string holding `//` (a URL) is rare in a trigger list.
      const config = JSON.parse(text.replace(/^\s*\/\/.*$/gm, "")) as { triggers?: { crons?: unknown } };
      const crons = config.triggers?.crons;
      return Array.isArray(crons) ? crons.filter((c): c is string => typeof c === "string") : [];
    } catch {
      return null;
    }
  }
  // The [triggers] table up to the next table header; its `crons` array may span lines.
  const table = /^\s*\[triggers\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(text)?.[1];
  if (table === undefined) return [];
  const list = /^\s*crons\s*=\s*\[([\s\S]*?)\]/m.exec(table)?.[1];
  if (list === undefined) return [];
  return [...list.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => (m[1] ?? m[2])!);
}

/** Whether `expr` fires at the minute starting at `minute` (epoch seconds), read in UTC. */
function firesAt(expr: string, minute: number): boolean {
  try {
    return nextOccurrence(expr, "UTC", minute - 1) === minute;
  } catch {
    // Cloudflare's cron dialect has forms croner may not take: such a cron fires every minute here.
    return true;
  }
}

export interface DevCron {
  stop(): void;
}

/**
 * Fires `crons` on the minute until stopped. `port()` is the runtime's port now (undefined while
 * it restarts: that minute is skipped, as a deployment's tick is missed during an outage).
 */
export function startDevCron(opts: {
  crons: string[];
  port: () => number | undefined;
  log: (line: string) => void;
  /** the wall clock in ms (tests move it) */
  now?: () => number;
}): DevCron {
  const now = opts.now ?? Date.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const fire = async (minuteMs: number) => {
    const port = opts.port();
    const minute = minuteMs / 1000;
    for (const cron of opts.crons.filter((c) => firesAt(c, minute))) {
      if (port === undefined) {
        opts.log(`cron ${cron}: the runtime is restarting, this minute's trigger is skipped`);
        continue;
      }
      // `/__scheduled` (wrangler's --test-scheduled route): its `/cdn-cgi/handler/scheduled` does not
      // reach the Worker's scheduled handler once the config has [assets].
      const url = `http://127.0.0.1:${port}/__scheduled?cron=${encodeURIComponent(cron)}&time=${minuteMs}`;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(15 * 60_000) });
        // The handler's own error is in the runtime's log above; this line says which trigger it was.
        if (!res.ok) opts.log(`cron ${cron}: the scheduled handler failed (${res.status} ${await res.text()})`);
      } catch (error) {
        if (!stopped) opts.log(`cron ${cron}: could not reach the runtime: ${errorMessage(error)}`);
      }
    }
  };

  /** the minute last fired: a timer may wake a little before its time, and must not fire that minute twice */
  let last = -Infinity;
  const arm = () => {
    if (stopped) return;
    const next = Math.max(Math.floor(now() / 60_000) * 60_000 + 60_000, last + 60_000);
    timer = setTimeout(
      () => {
        last = next;
        arm();
        // Each minute's trigger runs on its own, as Cloudflare's do: a slow one never delays the next.
        void fire(next);
      },
      Math.max(0, next - now()),
    );
    timer.unref();
  };
  arm();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
