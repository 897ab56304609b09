import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { configuredCrons, startDevCron, type DevCron } from "../../src/cli/local/dev-cron.js";
import { until } from "../support/until.js";

const dir = mkdtempSync(join(tmpdir(), "agno-dev-cron-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("the crons a wrangler config declares", () => {
  it("reads this repository's and the example project's wrangler.toml", () => {
    const root = resolve(import.meta.dirname, "../..");
    expect(configuredCrons(join(root, "wrangler.toml"))).toEqual(["* * * * *"]);
    expect(configuredCrons(join(root, "examples/weather-desk/wrangler.toml"))).toEqual(["* * * * *"]);
  });

  it("reads a list over several lines between other tables, JSON configs, and says when there are none", () => {
    const toml = file(
      "several.toml",
      `name = "x"\n[vars]\nA = "crons = ['nope']"\n[triggers]\n# hourly and nightly\ncrons = [\n  "0 * * * *",\n  '30 2 * * *',\n]\n\n[observability]\nenabled = false\n`,
    );
    expect(configuredCrons(toml)).toEqual(["0 * * * *", "30 2 * * *"]);
    expect(configuredCrons(file("none.toml", `name = "x"\n[vars]\nA = "b"\n`))).toEqual([]);
    expect(configuredCrons(file("w.jsonc", `{\n  // comment\n  "triggers": { "crons": ["*/5 * * * *"] }\n}`))).toEqual([
      "*/5 * * * *",
    ]);
    expect(configuredCrons(file("empty.json", `{"name": "x"}`))).toEqual([]);
    expect(configuredCrons(file("broken.json", `{"name": `))).toBeNull();
    expect(configuredCrons(join(dir, "missing.toml"))).toBeNull();
  });
});

describe("firing on the minute", () => {
  let server: Server | undefined;
  let cron: DevCron | undefined;
  afterEach(async () => {
    cron?.stop();
    await new Promise((r) => (server ? server.close(r) : r(null)));
  });

  /** A stand-in runtime that records the trigger requests it gets. */
  async function runtime() {
    const hits: URL[] = [];
    server = createServer((req, res) => {
      hits.push(new URL(req.url!, "http://runtime"));
      res.end("ok");
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return { hits, port: (server.address() as AddressInfo).port };
  }

  /** A clock `ms` before a minute boundary (the real one, shifted): the timer fires then. */
  const clockBefore = (ms: number) => {
    const boundary = Math.floor(Date.now() / 60_000) * 60_000 + 120_000;
    const shift = boundary - ms - Date.now();
    return { boundary, now: () => Date.now() + shift };
  };

  it("fires each cron that matches the minute, with that minute as the scheduled time, and not the others", async () => {
    const { hits, port } = await runtime();
    const { boundary, now } = clockBefore(300);
    const hour = new Date(boundary).getUTCHours();
    const minute = new Date(boundary).getUTCMinutes();
    const matching = `${minute} ${hour} * * *`;
    const other = `${(minute + 1) % 60} * * * *`;
    cron = startDevCron({ crons: ["* * * * *", matching, other], port: () => port, log: () => undefined, now });
    await until(
      async () => hits.length,
      (n) => n >= 2,
      "the minute's triggers",
      { ms: 5_000, every: 20 },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(hits.map((u) => u.pathname)).toEqual(["/__scheduled", "/__scheduled"]);
    expect(hits.map((u) => u.searchParams.get("cron"))).toEqual(["* * * * *", matching]);
    expect(hits.map((u) => Number(u.searchParams.get("time")))).toEqual([boundary, boundary]);
  });

  it("fires a minute once even when its timer wakes before the minute by the clock", async () => {
    const { hits, port } = await runtime();
    // A clock that stands still just before a boundary: every wake-up reads as early.
    const { boundary } = clockBefore(200);
    cron = startDevCron({ crons: ["* * * * *"], port: () => port, log: () => undefined, now: () => boundary - 200 });
    await until(
      async () => hits.length,
      (n) => n >= 1,
      "the minute's trigger",
      { ms: 5_000, every: 20 },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hits.map((u) => Number(u.searchParams.get("time")))).toEqual([boundary]);
  });

  it("skips a minute while the runtime restarts, saying so, and stops firing once stopped", async () => {
    const lines: string[] = [];
    const { now } = clockBefore(100);
    cron = startDevCron({ crons: ["* * * * *"], port: () => undefined, log: (l) => lines.push(l), now });
    await until(
      async () => lines.length,
      (n) => n > 0,
      "the skipped minute",
      { ms: 5_000, every: 20 },
    );
    expect(lines[0]).toMatch(/restarting, this minute's trigger is skipped/);

    const { hits, port } = await runtime();
    const second = clockBefore(150);
    const stopped = startDevCron({ crons: ["* * * * *"], port: () => port, log: () => undefined, now: second.now });
    stopped.stop();
    await new Promise((r) => setTimeout(r, 400));
    expect(hits).toEqual([]);
  });
});
