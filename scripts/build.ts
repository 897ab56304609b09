/**
 * `npm run build`: the package as `npm pack` ships it, in dist/ (ESM JavaScript and declarations,
 * src/ and migrations/ as in the repository, and the browser console in dist/ui). The repository itself never needs it: its tests and
 * `npm run dev` run the TypeScript sources.
 *
 * The QuickJS WebAssembly is imported from the sources by its path in node_modules (wrangler makes
 * a compiled module only of an import that ends in .wasm, which the package's own export does not);
 * that path does not exist where a user's npm puts this package, so the .wasm is copied beside the
 * module that imports it and the import points there.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSandbox } from "./build-sandbox.js";
import { buildUi } from "./build-ui.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const WASM_IMPORT = "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";

await buildSandbox();
// Everything but dist/ui goes: the console is rebuilt in place below (unchanged files are left as they
// are), since `npm run dev` and the tests serve it from there while a build (npm pack) runs.
for (const entry of existsSync(dist) ? readdirSync(dist) : [])
  if (entry !== "ui") rmSync(join(dist, entry), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
for (const project of ["tsconfig.build.json", "tsconfig.build-node.json"])
  execFileSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });

const quickjs = join(dist, "src/codemode/quickjs.js");
const source = readFileSync(quickjs, "utf8");
if (!source.includes(WASM_IMPORT))
  throw new Error(`${quickjs} no longer imports ${WASM_IMPORT}: update scripts/build.ts`);
writeFileSync(quickjs, source.replace(WASM_IMPORT, "./quickjs.wasm"));
copyFileSync(join(root, WASM_IMPORT.replace("../../", "")), join(dist, "src/codemode/quickjs.wasm"));
chmodSync(join(dist, "src/cli/main.js"), 0o755);
// The browser console, which a user's wrangler.toml serves with `[assets] directory = "node_modules/agno-edge/dist/ui"`.
await buildUi(join(dist, "ui"));
process.stderr.write("[build] dist/\n");
