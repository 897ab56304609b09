import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base64url, SignJWT } from "jose";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshot } from "../support/screenshots.js";
import { collectPageErrors, launchChromium, seriousViolations } from "../support/browser.js";
import { startDev, type DevServer } from "../support/dev-server.js";

const KEY = "console-test-key";

/**
 * The console of a deployment with a security key (`npm run dev` with OS_SECURITY_KEY): the page
 * itself is public and holds nothing; it asks for the key before it asks the API for anything,
 * keeps it in the tab's sessionStorage only, and a refused key brings the sign-in form back.
 */
describe("the console with a security key", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-console-auth-"));
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  /** every request the page made: method, path and the credential it carried */
  const requested: Array<{ line: string; bearer?: string }> = [];

  beforeAll(async () => {
    [dev, browser] = await Promise.all([startDev({ AGNO_DEV_DATA: dataDir, OS_SECURITY_KEY: KEY }), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1000, height: 700 } })).newPage();
    errors = collectPageErrors(page);
    page.on("request", (r) =>
      requested.push({ line: `${r.method()} ${new URL(r.url()).pathname}`, bearer: r.headers()["authorization"] }),
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves the page without credentials, and asks for the key before any data", async () => {
    const response = await page.goto(`${dev.url}/ui`);
    expect(response!.status()).toBe(200);
    const form = page.getByRole("heading", { name: /^Sign in to / });
    await form.waitFor();
    await page.getByLabel("Security key").waitFor();
    // The page's own files and the public /info: nothing else was asked for.
    expect(requested.map((r) => r.line).filter((r) => !r.startsWith("GET /ui"))).toEqual(["GET /info"]);
    // The API answers nothing without the key, whatever the page does.
    expect((await fetch(`${dev.url}/agents`)).status).toBe(401);
    expect((await fetch(`${dev.url}/sessions`)).status).toBe(401);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "console-sign-in");
    expect(errors).toEqual([]);
  });

  it("refuses a wrong key with the server's reason, then signs in with the right one", async () => {
    await page.getByLabel("Security key").fill("not-the-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/refused the credential/);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // The browser reports each refused request as a console error: those, and nothing else.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    errors.length = 0;

    await page.getByLabel("Security key").fill(KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Chat with").waitFor();
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([KEY]);
    expect(page.url()).not.toContain(KEY);
    // Every data request carried the key.
    const data = requested.filter((r) => /^GET \/(agents|teams|workflows)$/.test(r.line));
    expect(data.map((r) => r.bearer)).toEqual([
      ...["Bearer not-the-key", "Bearer not-the-key", "Bearer not-the-key"],
      ...[`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`],
    ]);
    expect(errors).toEqual([]);
  });

  it("stays signed in across a reload of the tab, and signs out", async () => {
    await page.reload();
    await page.getByLabel("Chat with").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Security key").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(errors).toEqual([]);
  });
});

/**
 * The console of a deployment that takes JWTs (`npm run dev` with JWT_VERIFICATION_KEYS): the
 * person pastes a token their identity provider issued. The form says so; an expired token or one
 * signed with another key is refused with the server's reason and kept nowhere; a good one is
 * kept in the tab's sessionStorage and sent as the bearer of every data request.
 */
describe("the console with JWT sign-in", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-console-jwt-"));
  const secret = randomBytes(32);
  const keys = JSON.stringify([{ kty: "oct", k: base64url.encode(secret), kid: "idp" }]);
  let dev: DevServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const requested: Array<{ line: string; bearer?: string }> = [];
  let refused = 0;
  let inFlight = 0;

  const mint = (opts: { key?: Uint8Array; expiresIn?: number } = {}) =>
    new SignJWT({ scopes: ["agent_os:admin"] })
      .setProtectedHeader({ alg: "HS256", kid: "idp" })
      .setSubject("ann")
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) + (opts.expiresIn ?? 3600))
      .sign(opts.key ?? secret);

  beforeAll(async () => {
    [dev, browser] = await Promise.all([
      startDev({ AGNO_DEV_DATA: dataDir, JWT_VERIFICATION_KEYS: keys }),
      launchChromium(),
    ]);
    page = await (await browser.newContext({ viewport: { width: 1000, height: 700 } })).newPage();
    errors = collectPageErrors(page);
    page.on("request", (r) =>
      requested.push({ line: `${r.method()} ${new URL(r.url()).pathname}`, bearer: r.headers()["authorization"] }),
    );
    page.on("response", (r) => void (r.status() === 401 && refused++));
    page.on("request", () => inFlight++);
    page.on("requestfinished", () => inFlight--);
    page.on("requestfailed", () => inFlight--);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const signIn = async (token: string) => {
    await page.getByLabel("Token (JWT)").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
  };

  it("asks for a token, and refuses an expired one and one signed with another key", async () => {
    await page.goto(`${dev.url}/ui`);
    await page.getByRole("heading", { name: /^Sign in to / }).waitFor();
    await page.getByText(/paste a token your identity provider issued/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    for (const token of [await mint({ expiresIn: -3600 }), await mint({ key: randomBytes(32) })]) {
      const answered = page.waitForResponse((r) => r.status() === 401);
      await signIn(token);
      await answered;
      const alert = page.getByRole("alert");
      await expect.poll(() => alert.textContent()).toMatch(/refused the credential/);
      await expect.poll(() => page.evaluate(() => sessionStorage.length)).toBe(0);
      await page.getByLabel("Token (JWT)").waitFor();
    }
    // The browser reports each refused request as a console error, once it has its answer: those,
    // and nothing else.
    await expect.poll(() => inFlight).toBe(0);
    await expect.poll(() => errors.length).toBe(refused);
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    errors.length = 0;
  });

  it("signs in with a token from the identity provider and sends it with every data request", async () => {
    const token = await mint();
    requested.length = 0;
    await signIn(token);
    await page.getByLabel("Chat with").waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([token]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(page.url()).not.toContain(token);
    const sessions = page.waitForResponse((r) => new URL(r.url()).pathname === "/sessions");
    await page.getByRole("link", { name: "Sessions" }).click();
    expect((await sessions).status()).toBe(200);
    await page.getByRole("navigation", { name: "Session list" }).waitFor();
    const data = requested.filter((r) => !r.line.startsWith("GET /ui") && r.line !== "GET /info");
    expect(data.length).toBeGreaterThan(3);
    expect(data.filter((r) => r.bearer !== `Bearer ${token}`)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
