import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type Page } from "playwright-core";

/*
 * The browser the console tests drive: Debian's chromium-headless-shell, installed with apt by
 * the first test that needs it when it is missing (the suite runs as root on Debian), never a
 * browser downloaded by playwright.
 */

const PACKAGE = "chromium-headless-shell";

function installedBinary(): string | undefined {
  try {
    const files = execFileSync("dpkg", ["-L", PACKAGE], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return files.split("\n").find((f) => /\/bin\/chromium-headless-shell$/.test(f) && existsSync(f));
  } catch {
    return undefined; // not installed
  }
}

/** The headless shell's path, installing the Debian package first when it is not there. */
export function chromiumBinary(): string {
  const found = installedBinary();
  if (found) return found;
  // Two test files may get here at once: apt waits for the other's lock instead of failing.
  const apt = (...args: string[]) =>
    execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=240", ...args], {
      stdio: "ignore",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      timeout: 300_000,
    });
  try {
    apt("install", "-y", "--no-install-recommends", PACKAGE);
  } catch {
    // a fresh machine has no package lists yet
    apt("update");
    apt("install", "-y", "--no-install-recommends", PACKAGE);
  }
  const installed = installedBinary();
  if (!installed) throw new Error(`apt-get installed ${PACKAGE} but dpkg -L lists no chromium-headless-shell binary`);
  return installed;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumBinary(), args: ["--no-sandbox", "--disable-gpu"] });
}

/**
 * Every console error, uncaught exception and failed request of a page, as lines: a test fails
 * when any is there that it did not cause on purpose.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  return errors;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's audit of the page as it is now (WCAG 2.x A and AA rules), its serious and critical
 * violations only. axe is evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy does not govern, so the page is audited with its CSP in force.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(options: object): Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
    }
    const results = await axe.run({ runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }));
  });
}
