import { build, type Metafile } from "esbuild";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("../../src/codemode/session-object.ts", import.meta.url));

/**
 * Every module a bundle of the CodeModeSession object reads, with AGNO_CODEMODE_SANDBOX defined
 * as a Worker's build defines it (wrangler.toml `define`), or left unset. The `.wasm` import stays
 * external as wrangler keeps it: a module of its own, uploaded when imported.
 */
async function bundledModules(sandbox?: "loader" | "object"): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    external: ["cloudflare:workers", "*.wasm"],
    define: sandbox ? { AGNO_CODEMODE_SANDBOX: JSON.stringify(sandbox) } : {},
    logLevel: "silent",
  });
  const meta: Metafile = result.metafile!;
  const output = Object.values(meta.outputs)[0]!;
  const external = Object.values(meta.inputs).flatMap((i) => i.imports.filter((x) => x.external).map((x) => x.path));
  return [...Object.keys(output.inputs), ...external];
}

const has = (modules: string[], pattern: RegExp) => modules.some((m) => pattern.test(m));
const loadedSandbox = /codemode\/generated\/sandbox-bundle\.ts$/;
const inObjectQuickJS = /emscripten-module\.wasm$/;
const quickJSCore = /node_modules\/quickjs-emscripten-core\//;

describe("CodeMode sandboxes in a Worker's bundle", () => {
  it("carries both sandboxes unless the build says otherwise", async () => {
    const modules = await bundledModules();
    expect(has(modules, loadedSandbox)).toBe(true);
    expect(has(modules, inObjectQuickJS)).toBe(true);
    expect(has(modules, quickJSCore)).toBe(true);
  });

  it('leaves out QuickJS for the object\'s own isolate when built for the loader only ("loader")', async () => {
    const modules = await bundledModules("loader");
    expect(has(modules, loadedSandbox)).toBe(true);
    expect(has(modules, inObjectQuickJS)).toBe(false);
    expect(has(modules, quickJSCore)).toBe(false);
  });

  it('leaves out the loaded sandbox Worker when built for the object\'s own isolate only ("object")', async () => {
    const modules = await bundledModules("object");
    expect(has(modules, loadedSandbox)).toBe(false);
    expect(has(modules, inObjectQuickJS)).toBe(true);
  });
});
