import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCodeModeHarness } from "../support/codemode-harness.js";

/**
 * Where a CodeModeSession object runs cells when the Worker Loader is not bound: in its own
 * isolate when the build carries that sandbox (the default), and nowhere, with an error naming
 * the binding, when the Worker was built for the loader only (AGNO_CODEMODE_SANDBOX "loader").
 */
describe("CodeMode without the Worker Loader binding", () => {
  const persistTo = mkdtempSync(join(tmpdir(), "agno-codemode-sandboxes-"));
  afterAll(() => rmSync(persistTo, { recursive: true, force: true }));

  it("runs cells in the object's own isolate, keeping the session's names", { timeout: 180_000 }, async () => {
    const harness = await startCodeModeHarness({
      persistTo: join(persistTo, "object"),
      build: "v1",
      sandbox: "object",
    });
    try {
      expect(await harness.cell("s1", "let total = (await lookup_price({ item_id: 2 })).cents; return total")).toEqual({
        build: "v1",
        result: 200,
      });
      expect((await harness.cell("s1", "return total + 1")).result).toBe(201);
      expect(await harness.isolation("s1", "http://127.0.0.1:9/")).toEqual({ where: "object" });
    } finally {
      await harness.stop();
    }
  });

  it(
    "built for the loader only, answers each cell with an error that names the binding",
    { timeout: 180_000 },
    async () => {
      const harness = await startCodeModeHarness({
        persistTo: join(persistTo, "loader-build"),
        build: "v1",
        sandbox: "loader-build-unbound",
      });
      try {
        const cell = await harness.cell("s1", "return 1");
        expect(cell.result).toBeUndefined();
        expect(cell.error).toMatch(/the sandbox failed: .*CODEMODE_LOADER/);
      } finally {
        await harness.stop();
      }
    },
  );
});
