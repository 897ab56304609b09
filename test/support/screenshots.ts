import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";

/** Every run's screenshots (gitignored), to look at after a run. */
export const SCREENSHOT_DIR = new URL("../../test-results/screenshots/", import.meta.url).pathname;
/** The README's screenshots: written only when asked, so a test run leaves the tree clean. */
const DOCS_DIR = new URL("../../docs/screenshots/", import.meta.url).pathname;

/**
 * A screenshot of the page as `name`.png in test-results/screenshots/, and also in
 * docs/screenshots/ when AGNO_UPDATE_SCREENSHOTS=1 (how the README's pictures are refreshed).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path });
  if (process.env.AGNO_UPDATE_SCREENSHOTS === "1") {
    mkdirSync(DOCS_DIR, { recursive: true });
    copyFileSync(path, join(DOCS_DIR, `${name}.png`));
  }
}
