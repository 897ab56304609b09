import { describe, expect, it } from "vitest";
import { send } from "./worker-client.js";

const none = {};

/** The browser console as the example Worker serves it from its ASSETS binding (wrangler.toml's [assets]). */
describe("the console at /ui", () => {
  it("is public static HTML with a strict Content-Security-Policy, referencing only its own hashed files", async () => {
    for (const path of ["/ui", "/ui/"]) {
      const page = await send(path, {}, {}, none);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = page.headers.get("content-security-policy")!;
      for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"])
        expect(csp).toContain(directive);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("cache-control")).toBe("no-cache");
      const html = await page.text();
      // No inline script or style for the CSP to forbid: the script and the stylesheet are files.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=/);
      const script = html.match(/<script type="module" src="(\/ui\/console-[0-9a-f]+\.js)">/)?.[1];
      const style = html.match(/<link rel="stylesheet" href="(\/ui\/console-[0-9a-f]+\.css)"/)?.[1];
      expect(script && style).toBeTruthy();
      const js = await send(script!, {}, {}, none);
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toMatch(/javascript/);
      expect(js.headers.get("cache-control")).toContain("immutable");
      expect((await send(style!, {}, {}, none)).headers.get("content-type")).toMatch(/^text\/css/);
    }
  });

  it("answers 404 for a file it does not have, and leaves other methods and paths to the API (which needs credentials)", async () => {
    expect((await send("/ui/missing.js", {}, {}, none)).status).toBe(404);
    expect((await send("/ui", { method: "POST" }, {}, none)).status).toBe(401);
    expect((await send("/uix", {}, {}, none)).status).toBe(401);
    expect((await send("/agents", {}, {}, none)).status).toBe(401);
  });

  it("is linked from / when it is served, whose body stays agno's", async () => {
    const home = await send("/", {}, {}, none);
    expect(home.headers.get("link")).toBe('</ui>; rel="console"');
    expect(await home.json()).toEqual({ name: expect.any(String), health: "/health", info: "/info", docs: "/docs" });
    const bare = await send("/", {}, { ASSETS: undefined }, none);
    expect(bare.headers.get("link")).toBeNull();
    expect((await send("/ui", {}, { ASSETS: undefined }, none)).status).toBe(401);
  });
});
