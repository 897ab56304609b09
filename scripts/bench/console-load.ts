/**
 * `npm run bench -- console`: how long the browser console (/ui) takes to open, from the
 * navigation until its first view is usable (the Chat view's list of agents, teams and workflows
 * filled from the API), in headless Chromium against `npm run dev` with auth off.
 *
 * - `cold`: the page is the first request the Worker serves after its runtime started (dev waits
 *   for wrangler's "Ready on", not for a request), with an empty browser cache: the Worker's first
 *   request, the page, its script and stylesheet, /info and the three lists.
 * - `warm`: the same Worker after those loads, each load in a new browser context (empty cache).
 * - Each both on loopback and through Chromium's network emulation of a slow mobile link
 *   (`slow-4g`: 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, as Lighthouse's mobile profile).
 *
 * The Worker's startup (its global scope, run by workerd before "Ready on") is not in these figures:
 * `wrangler check startup` profiles it. Nothing here asserts a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../test/support/browser.js";
import { startDev } from "../../test/support/dev-server.js";
import { emit, log, median, round } from "./util.js";

const COLD_STARTS = Number(process.env.BENCH_CONSOLE_COLD ?? 5);
const WARM_LOADS = Number(process.env.BENCH_CONSOLE_WARM ?? 10);

const NETWORKS = {
  loopback: undefined,
  "slow-4g": { latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 },
} as const;
type Network = keyof typeof NETWORKS;

interface Load {
  ttfb_ms: number;
  dom_content_loaded_ms: number;
  load_ms: number;
  /** the Chat view's target list has its first option */
  ready_ms: number;
  /** bytes over the wire: the page, its files and the API answers it waited for */
  transferred_bytes: number;
}

/** Records, in the page's own clock, when the Chat view first lists something to chat with. */
const READY_PROBE = `
  new MutationObserver((_, observer) => {
    if (document.querySelector("select#target option")) {
      globalThis.__consoleReady = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`;

async function loadOnce(browser: Browser, url: string, network: Network): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 820 } });
  try {
    const page: Page = await context.newPage();
    await page.addInitScript(READY_PROBE);
    const conditions = NETWORKS[network];
    if (conditions) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, ...conditions });
    }
    await page.goto(`${url}/ui`, { waitUntil: "load" });
    await page.waitForFunction(() => "__consoleReady" in globalThis, undefined, { timeout: 60_000 });
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
      return {
        ttfb_ms: nav.responseStart,
        dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        load_ms: nav.loadEventEnd,
        ready_ms: (globalThis as unknown as { __consoleReady: number }).__consoleReady,
        transferred_bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
      };
    });
  } finally {
    await context.close();
  }
}

function summary(worker: "cold" | "warm", network: Network, loads: Load[]) {
  const of = (key: keyof Load) => round(median(loads.map((l) => l[key])), 1);
  return {
    bench: "console_load",
    worker,
    network,
    n: loads.length,
    ttfb_median_ms: of("ttfb_ms"),
    dom_content_loaded_median_ms: of("dom_content_loaded_ms"),
    load_median_ms: of("load_ms"),
    ready_median_ms: of("ready_ms"),
    ready_max_ms: round(Math.max(...loads.map((l) => l.ready_ms)), 1),
    transferred_bytes: Math.round(median(loads.map((l) => l.transferred_bytes))),
    loadavg_1m: round(loadavg()[0]!, 2),
  };
}

export async function benchConsoleLoad(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-bench-console-"));
  const browser = await launchChromium();
  const env = { AGNO_DEV_DATA: dataDir, AGNO_DEV_CRON: "off" };
  try {
    // A first start migrates the embedded Postgres: the measured starts find it current, as a
    // deployment's database is.
    await (await startDev(env)).stop();
    const cold: Record<Network, Load[]> = { loopback: [], "slow-4g": [] };
    const warm: Record<Network, Load[]> = { loopback: [], "slow-4g": [] };
    for (let i = 0; i < COLD_STARTS; i++) {
      for (const network of Object.keys(NETWORKS) as Network[]) {
        log(`[console] cold start ${i + 1}/${COLD_STARTS}, ${network}`);
        const dev = await startDev(env, [], { ready: "runtime" });
        try {
          cold[network].push(await loadOnce(browser, dev.url, network));
          // Warm loads on the last starts only, alternating the networks.
          if (i === COLD_STARTS - 1)
            for (let j = 0; j < WARM_LOADS; j++)
              for (const net of Object.keys(NETWORKS) as Network[])
                warm[net].push(await loadOnce(browser, dev.url, net));
        } finally {
          await dev.stop();
        }
      }
    }
    for (const network of Object.keys(NETWORKS) as Network[]) {
      emit(summary("cold", network, cold[network]));
      emit(summary("warm", network, warm[network]));
    }
  } finally {
    await browser.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
