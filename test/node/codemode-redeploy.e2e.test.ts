import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCodeModeHarness } from "../support/codemode-harness.js";

/**
 * A CodeMode session's state outlives a redeploy: the Worker is stopped and started again as a
 * new build (another BUILD value, a new workerd process, new isolates) on the same persisted
 * Durable Object storage, and the next cell still sees the names the earlier cells defined.
 */
describe("CodeMode across a redeploy", () => {
  const persistTo = mkdtempSync(join(tmpdir(), "agno-codemode-"));
  afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

  it("keeps variables, functions and classes; a Map is reported as not kept", { timeout: 180_000 }, async () => {
    const before = await startCodeModeHarness({ persistTo, build: "v1" });
    try {
      const first = await before.cell(
        "s1",
        `const prices = await Promise.all([1, 2].map((id) => lookup_price({ item_id: id })));\nlet total = prices.reduce((s, p) => s + p.cents, 0);\nfunction withTax(x) { return Math.round(x * 1.2) }\nclass Cart { constructor(n) { this.n = n } size() { return this.n } }\nconst seen = new Map();\nreturn total`,
      );
      expect(first).toEqual({ build: "v1", result: 300, not_persisted: ["seen"] });
    } finally {
      await before.stop();
    }
    const after = await startCodeModeHarness({ persistTo, build: "v2" });
    try {
      expect(
        await after.cell("s1", `return { total, taxed: withTax(total), cart: new Cart(3).size(), seen: typeof seen }`),
      ).toEqual({
        build: "v2",
        result: { total: 300, taxed: 360, cart: 3, seen: "undefined" },
      });
      // Another session never saw any of it.
      expect((await after.cell("s2", `return typeof total`)).result).toBe("undefined");
      // Under wrangler too, cells run in a loaded Worker that cannot reach a server on loopback.
      let hits = 0;
      const canary = createServer((_req, res) => (hits++, res.end("hit")));
      await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
      try {
        const probe = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/`;
        expect(await after.isolation("s1", probe)).toEqual({
          where: "worker-loader",
          network: "blocked",
          bindings: [],
        });
        expect(hits).toBe(0);
        await fetch(probe);
        expect(hits).toBe(1);
      } finally {
        canary.close();
      }
    } finally {
      await after.stop();
    }
  });
});
